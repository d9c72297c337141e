#pragma once

#include "core/align/inspector_events.h"
#include "core/etrecord/export_graph.h"

#include <vector>

namespace gapscope {

// A backend whose conventions put a node's output index in the tensor name
// (BackendConventions::output_index_in_name; QNN: qnn_preprocess.py maps a
// tensor name to a debug handle only for nodes with exactly one tensor) dumps
// the outputs of split, topk and other multi-output nodes as "<node>@<idx>" with
// no delegate_map entry, and ExecuTorch's Inspector leaves them unresolved. The
// tensors are named after the FX node, so such an event is resolved here through
// the op graph: when `<node>` (without the backend's graph-output prefix) names a
// node of `graph` with several outputs and a debug handle, the event takes that
// handle (HandleSource::QnnNodeName), and the events of one node and instruction
// become one event whose debug data are its outputs in index order
// (`output_indices`). Nothing else changes, so ExecuTorch's rows stay as they are.
// Returns whether any event was resolved so; when none is, `events` is left
// untouched (not even moved), so what points into it still holds.
bool resolveMultiOutputNodesByName(std::vector<InspectorEvent>& events, const ExportGraph& graph);

} // namespace gapscope
