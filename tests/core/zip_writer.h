#pragma once

#include <string>
#include <utility>
#include <vector>

namespace gapscope::test {

// Writes a ZIP archive (stored or deflated entries) for ETRecord-shaped test inputs.
void writeZip(const std::string& path, const std::vector<std::pair<std::string, std::string>>& entries,
              bool deflate = false);

// A fresh path under the build's temporary test directory.
std::string tempPath(const std::string& name);

} // namespace gapscope::test
