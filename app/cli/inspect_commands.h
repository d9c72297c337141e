#pragma once

#include <CLI/CLI.hpp>

namespace gapscope::cli {

// `gapscope-cli etrecord FILE` and `gapscope-cli capture FILE`: what Gapscope
// reads from the ETRecord and from an AOT capture, as JSON.
void addInspectCommands(CLI::App& app, int& exitCode);

} // namespace gapscope::cli
