#pragma once

#include "core/align/inspector_events.h"
#include "core/etrecord/export_graph.h"

#include <vector>

namespace gapscope {

// ExecuTorch's Qualcomm backend maps a QNN tensor name to a debug handle only for
// nodes with exactly one QNN tensor (qnn_preprocess.py), so the outputs of split,
// topk and other multi-output nodes are dumped as "<node>@<idx>" with no
// delegate_map entry, and ExecuTorch's Inspector leaves them unresolved. QNN names
// its tensors after the FX node, so such an event is resolved here through the
// op graph: when `<node>` (without the "output_" prefix QNN gives a graph output)
// names a node of `graph` with several outputs and a debug
// handle, the event takes that handle (HandleSource::QnnNodeName), and the events
// of one node and instruction become one event whose debug data are its outputs in
// index order (`output_indices`). Nothing else changes, so ExecuTorch's rows stay
// as they are.
void resolveQnnMultiOutputNodes(std::vector<InspectorEvent>& events, const ExportGraph& graph);

} // namespace gapscope
