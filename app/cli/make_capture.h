#pragma once

#include "core/session/capture_request.h"

#include <optional>

namespace gapscope::cli {

// `compare DIR --make-capture` (issue 60): runs the exporter's
// `gapscope-capture for-session` for `request`, its progress on standard error
// (never on standard output, which may carry a report). Nothing when the
// capture was written; else the exit status to return, the reason said.
std::optional<int> makeCapture(const CaptureRequest& request);

} // namespace gapscope::cli
