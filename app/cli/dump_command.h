#pragma once

#include <CLI/CLI.hpp>

namespace gapscope::cli {

// `gapscope-cli dump FILE.etdp [--debug-buffer FILE] [--json]`
void addDumpCommand(CLI::App& app, int& exitCode);

} // namespace gapscope::cli
