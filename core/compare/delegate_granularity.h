#pragma once

#include "core/capture/aot_capture.h"
#include "core/compare/comparison_value.h"

#include <optional>
#include <string>

namespace gapscope {

// The reference_graph of a capture of the host twin's runtime outputs
// (gapscope_capture.host_twin.HOST_OUTPUTS_GRAPH).
inline constexpr const char* kHostTwinRuntimeGraph = "host_twin_runtime";

// What a session can localise when a delegate logs only its outputs (XNNPACK's
// DELEGATE_CALL): each of its rows stands for every reference op inside it, so the
// op that loses the accuracy inside cannot be named. A note, not a warning: the
// numbers are right, they are coarse. Says how to get one row per op (the host
// twin). Nothing when every row stands for one op.
std::optional<std::string> delegateGranularityNote(const Comparison& c, const AotCapture& capture);

} // namespace gapscope
