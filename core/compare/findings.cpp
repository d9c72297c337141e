#include "core/compare/findings.h"

#include <algorithm>
#include <map>
#include <set>

namespace gapscope {

std::optional<FirstDivergence> firstDivergence(const Comparison& c, const MetricThreshold& threshold) {
    const auto info = findMetric(threshold.metric);
    if (!info)
        return std::nullopt;
    std::vector<const ComparisonRow*> order;
    for (const auto& r : c.rows)
        order.push_back(&r);
    std::stable_sort(order.begin(), order.end(), [](const ComparisonRow* a, const ComparisonRow* b) {
        return a->instruction_id != b->instruction_id ? a->instruction_id < b->instruction_id
                                                      : a->output_index < b->output_index;
    });
    for (const auto* r : order) {
        if (r->status == RowStatus::Invalid || r->status == RowStatus::MissingData)
            continue;
        const auto v = rowMetric(*r, threshold.metric);
        if (v && worseThan(*info, *v, threshold.value))
            return FirstDivergence{r->index, threshold, *v};
    }
    return std::nullopt;
}

const ExportGraph* referenceGraphFor(const EtRecord& record, const AotCapture& capture) {
    const std::string name = capture.reference_graph.value_or("");
    if (name == "exported_program" && record.exported_program)
        return &*record.exported_program;
    if (name == "edge_dialect_exported_program" || name.empty())
        return record.edgeProgram(capture.method);
    const std::string key = name.find('/') == std::string::npos ? name + "/forward" : name;
    auto it = record.graph_map.find(key);
    return it == record.graph_map.end() ? nullptr : &it->second;
}

std::vector<Introducer> errorIntroducers(const Comparison& c, const ExportGraph* graph) {
    std::vector<Introducer> out;
    if (!graph)
        return out;
    // Which row compares each op (a fused group's ops all belong to its row).
    std::map<std::string, std::size_t> rowOfOp;
    for (const auto& r : c.rows)
        for (const auto& op : r.aot_ops)
            rowOfOp.emplace(op, r.index);
    std::map<std::string, const GraphNode*> nodeByName;
    for (const auto& n : graph->nodes)
        nodeByName[n.name] = &n;

    for (const auto& r : c.rows) {
        const auto own = rowMetric(r, "rel_l2");
        if (!own)
            continue;
        std::set<std::size_t> producers;
        for (const auto& op : r.aot_ops) {
            auto node = nodeByName.find(op);
            if (node == nodeByName.end())
                continue;
            for (const auto& input : node->second->input_tensors) {
                const int p = graph->producerOf(input);
                if (p < 0)
                    continue;
                auto pr = rowOfOp.find(graph->nodes[static_cast<std::size_t>(p)].name);
                if (pr != rowOfOp.end() && pr->second != r.index)
                    producers.insert(pr->second);
            }
        }
        Introducer in;
        in.row = r.index;
        in.own = *own;
        for (auto p : producers) {
            if (const auto v = rowMetric(c.rows[p], "rel_l2"))
                in.worst_producer = std::max(in.worst_producer, *v);
            in.producers.push_back(p);
        }
        in.added = in.own - in.worst_producer;
        out.push_back(in);
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const Introducer& a, const Introducer& b) { return a.added > b.added; });
    return out;
}

} // namespace gapscope
