#pragma once

#include <optional>
#include <string>

namespace gapscope::cli {

// Writes a report the user asked for (--csv, --json, --markdown) atomically;
// nothing for an empty path. The error message, or nothing.
std::optional<std::string> writeOutput(const std::string& path, const std::string& text);

} // namespace gapscope::cli
