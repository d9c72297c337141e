#include "core/compare/op_graph.h"

#include <cstdint>
#include <map>
#include <unordered_map>

namespace gapscope {

std::optional<std::size_t> OpGraph::nodeOfRow(std::size_t row) const {
    std::optional<std::size_t> last;
    for (std::size_t i = 0; i < nodes.size(); ++i)
        if (nodes[i].row == row)
            last = i;
    return last;
}

OpGraph buildOpGraph(const Comparison& c, const ExportGraph& graph) {
    OpGraph g;
    // A node belongs to the first row (ExecuTorch's table order) naming it
    // among its AOT ops (the capture's names are the graph's node names), else
    // listing one of its handles (a graph without names in the capture; an
    // ATen program carries no handles, so names come first).
    std::unordered_map<std::string, std::size_t> rowOfName, tapOfName;
    std::unordered_map<std::int64_t, std::size_t> rowOfHandle;
    for (const auto& r : c.rows) {
        if (r.tap) { // a tap measures a node inside another row's event: not the node's row
            tapOfName.emplace(r.tap->spec.node_name, r.index);
            continue;
        }
        for (const auto& op : r.id().aot_ops)
            rowOfName.emplace(op, r.index);
        for (auto h : r.id().aot_debug_handle)
            rowOfHandle.emplace(h, r.index);
    }
    std::unordered_map<std::string, std::size_t> producer;
    // ExecuTorch's tap ops (executorch_devtools.tap.Tensor) are not the model's:
    // the program returns their values, and the tapped node shows them (tap_row).
    constexpr std::size_t kLeftOut = SIZE_MAX;
    std::vector<std::size_t> placed(graph.nodes.size(), kLeftOut); // graph node → its node here
    for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
        const auto& n = graph.nodes[i];
        if (n.target.find("executorch_devtools.tap.Tensor") != std::string::npos)
            continue;
        placed[i] = g.nodes.size();
        OpGraphNode node{n.name, shortTarget(n.target), n.debug_handles, std::nullopt, -1, std::nullopt};
        if (const auto it = tapOfName.find(n.name); it != tapOfName.end())
            node.tap_row = it->second;
        if (const auto it = rowOfName.find(n.name); it != rowOfName.end())
            node.row = it->second;
        for (auto h : node.row ? std::vector<std::int64_t>{} : n.debug_handles)
            if (const auto it = rowOfHandle.find(h); it != rowOfHandle.end()) {
                node.row = it->second;
                break;
            }
        g.nodes.push_back(std::move(node));
        for (const auto& t : n.output_tensors)
            producer.emplace(t, placed[i]);
    }
    for (std::size_t i = 0; i < graph.nodes.size(); ++i)
        if (placed[i] != kLeftOut)
            for (const auto& t : graph.nodes[i].input_tensors)
                if (const auto it = producer.find(t); it != producer.end() && it->second != placed[i])
                    g.edges.emplace_back(it->second, placed[i]);

    // Rows whose runtime event covers several graph nodes: a group each.
    std::map<std::size_t, std::vector<std::size_t>> nodesOfRow;
    for (std::size_t i = 0; i < g.nodes.size(); ++i)
        if (g.nodes[i].row)
            nodesOfRow[*g.nodes[i].row].push_back(i);
    for (const auto& [row, members] : nodesOfRow) {
        if (members.size() < 2 || row >= c.rows.size())
            continue;
        const auto& ops = c.rows[row].id().runtime_ops;
        OpGraphGroup group{row,
                           (ops.empty() ? std::string("row ") + std::to_string(row) : ops.front()) + " · " +
                               std::to_string(members.size()) + " ops",
                           members};
        for (auto m : members)
            g.nodes[m].group = static_cast<int>(g.groups.size());
        g.groups.push_back(std::move(group));
    }
    return g;
}

} // namespace gapscope
