#pragma once

#include <CLI/CLI.hpp>

namespace gapscope::cli {

// `gapscope-cli profile DIR|FILES`: ExecuTorch's Inspector timing table
// (to_dataframe) of an ETDump, per event and block over its runs, in text, CSV
// or JSON (docs/profiling.md). Exit codes: 0 fine, 1 an input could not be read
// or an output written, 2 bad command line.
void addProfileCommand(CLI::App& app, int& exitCode);

} // namespace gapscope::cli
