#pragma once

#include <optional>
#include <string>

namespace gapscope {

struct Session;

// A session with an ETDump and an ETRecord but no AOT capture: the command
// that makes one for this session's kind, with its own paths. A QNN-delegated
// program is captured while QNN's intermediate debugger is alive
// (capture_from_qnn_debugger); any other from its ETRecord
// (gapscope-capture from-etrecord). None when a capture is there, or no
// ETRecord says what the program is.
std::optional<std::string> captureAdvice(const Session& session);

} // namespace gapscope
