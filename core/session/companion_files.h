#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace gapscope {

// A dump opened alone (a double click in the file manager, `gapscope run.etdp`)
// is useless without its ETRecord and capture, and ExecuTorch's tools write them
// into the same folder. These are the ETRecords and AOT captures beside an ETDump,
// told by content (not name), sorted by path; the debug buffer is found by
// sessionInputsFromPaths. The scan stops after kMaxCompanionScan directory entries
// so that a dump saved into a huge Downloads folder still opens at once.
inline constexpr std::size_t kMaxCompanionScan = 512;

std::vector<std::string> companionFilesOf(const std::string& etdumpPath);

} // namespace gapscope
