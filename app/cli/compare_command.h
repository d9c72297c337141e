#pragma once

#include <CLI/CLI.hpp>

namespace gapscope::cli {

// `gapscope-cli compare --etdump F --debug-buffer F --etrecord F --capture F ...`
// Exit codes: 0 fine, 1 an input could not be read or an output written,
// 2 bad command line, 3 a --fail-above gate tripped.
void addCompareCommand(CLI::App& app, int& exitCode);

} // namespace gapscope::cli
