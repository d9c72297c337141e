#pragma once

#include "core/compare/comparison_value.h"
#include "core/etrecord/etrecord_model.h"
#include "core/profile/op_latency.h"

#include <string>
#include <vector>

namespace gapscope {

// One node-data overlay for Google's Model Explorer (docs/profiling.md, "Model
// Explorer"): a ModelNodeData document, {graph id: {name, results: {node id:
// {value}}, gradient}}, as its Python classes (model_explorer.node_data_builder)
// write and its web app loads.
struct NodeDataFile {
    std::string file; // "gapscope-snr.json"
    std::string name; // the overlay's name in Model Explorer
    std::string json;
    std::size_t nodes = 0; // nodes given a value
};

struct NodeDataExport {
    std::string graph_id; // the ETRecord adapter's graph: the method ("forward")
    std::vector<NodeDataFile> files;
    // What could not be placed: rows without a node of the edge program, values
    // that are not finite (JSON has no ∞; an exact op's SNR is left out).
    std::vector<std::string> notes;
};

// Each row's gap (SNR, rel. L2) and time (ms, share %) on the node it compares,
// keyed by that node's name in the ETRecord's edge program and "_": the node ids
// the ETRecord adapter of ExecuTorch's Model Explorer extension gives (it builds
// on ExecuTorch's FXOperatorGraph, which appends the "_"). A node compared by
// several rows (outputs of one node) takes the worst gap. `latency` may be null.
NodeDataExport modelExplorerNodeData(const Comparison& c, const ComparisonLatency* latency,
                                     const EtRecord& etrecord);

} // namespace gapscope
