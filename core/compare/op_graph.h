#pragma once

#include "core/compare/comparison_value.h"
#include "core/etrecord/export_graph.h"

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gapscope {

// The reference graph as the graph view shows it: one node per call_function
// node, each tied to the comparison row that measured it (if any), producer →
// consumer edges, and the groups of nodes one runtime event covers (a delegate
// call or a fused kernel), which the view can collapse into one box.
struct OpGraphNode {
    std::string name; // FX node name
    std::string op;   // the target without namespace or ".default": "convolution", "add.Tensor"
    std::vector<std::int64_t> handles;
    std::optional<std::size_t> row; // the comparison row measuring it
    int group = -1;                 // index into OpGraph::groups
    // The row of a tap of this node (issue 58): its own value, from inside the
    // delegate call whose row is `row`.
    std::optional<std::size_t> tap_row;
};

struct OpGraphGroup {
    std::size_t row = 0; // the row whose runtime event covers the nodes
    std::string label;   // "DELEGATE_CALL · 7 ops"
    std::vector<std::size_t> nodes;
};

struct OpGraph {
    std::vector<OpGraphNode> nodes;
    std::vector<std::pair<std::size_t, std::size_t>> edges; // producer, consumer (node indices)
    std::vector<OpGraphGroup> groups;
    // Node index of a row's last node (its compared output), for centring a row.
    std::optional<std::size_t> nodeOfRow(std::size_t row) const;
};

// O(n log n) in nodes and handles: one map from handle to row, one from tensor to producer.
OpGraph buildOpGraph(const Comparison& c, const ExportGraph& graph);

} // namespace gapscope
