#pragma once

#include "core/align/alignment.h"

#include <string>
#include <utility>
#include <vector>

namespace gapscope {

// §5.2: keep per handle key the event with the largest instruction id, then merge
// overlapping keys, the higher instruction id winning. `opNames` gets the op name
// of each pre-merge key (ExecuTorch's runtime_debug_handle_to_op_names).
std::vector<RuntimeEntry> runtimeEntries(const std::vector<InspectorEvent>& events,
                                         std::vector<RuntimeOpName>& opNames);

} // namespace gapscope
