#include "core/align/multi_output_by_name.h"

#include "core/backends/backend_conventions.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <string>
#include <tuple>

namespace gapscope {

bool resolveMultiOutputNodesByName(std::vector<InspectorEvent>& events, const ExportGraph& graph) {
    std::map<std::string, const GraphNode*> multiOutput;
    for (const auto& node : graph.nodes)
        if (node.output_tensors.size() > 1 && !node.debug_handles.empty())
            multiOutput.emplace(node.name, &node);
    // The multi-output node an event is an output of, or end().
    const auto nodeOf = [&multiOutput](const InspectorEvent& e) {
        const BackendConventions& conventions = backendConventions(e.resolved.backend);
        if (!e.delegated || !e.resolved.handles.empty() || !conventions.output_index_in_name ||
            !e.resolved.output_index || e.debug_data.size() != 1)
            return multiOutput.end();
        const std::string id = e.key.delegateId();
        const DelegateTensorName name = delegateTensorName(id);
        if (name.node.size() == id.size())
            return multiOutput.end(); // no "@<k>"
        auto node = multiOutput.find(std::string(name.node));
        // A graph output's name: "<prefix><node>@<idx>".
        const std::string_view prefix = conventions.graph_output_prefix;
        if (node == multiOutput.end() && !prefix.empty() && name.node.substr(0, prefix.size()) == prefix)
            node = multiOutput.find(std::string(name.node.substr(prefix.size())));
        return node;
    };
    if (multiOutput.empty() || std::none_of(events.begin(), events.end(), [&](const InspectorEvent& e) {
            return nodeOf(e) != multiOutput.end();
        }))
        return false;

    // (instruction, node) → index of the event that gathers its outputs.
    std::map<std::pair<std::int32_t, std::string>, std::size_t> gathered;
    std::vector<InspectorEvent> out;
    out.reserve(events.size());
    for (auto& e : events) {
        const auto node = nodeOf(e);
        if (node == multiOutput.end()) {
            out.push_back(std::move(e));
            continue;
        }
        const auto key = std::make_pair(e.instruction_id, node->first);
        const auto existing = gathered.find(key);
        if (existing == gathered.end()) {
            e.resolved.handles = node->second->debug_handles;
            e.resolved.source = HandleSource::QnnNodeName;
            e.resolved.reason.clear();
            e.has_op_types = true;
            e.output_indices = {*e.resolved.output_index};
            gathered.emplace(key, out.size());
            out.push_back(std::move(e));
            continue;
        }
        InspectorEvent& target = out[existing->second];
        target.debug_data.push_back(std::move(e.debug_data.front()));
        target.debug_events.push_back(e.debug_events.front());
        target.output_indices.push_back(*e.resolved.output_index);
    }
    // Outputs in index order, and a name that says which ones the device logged.
    for (const auto& [key, at] : gathered) {
        InspectorEvent& e = out[at];
        std::vector<std::size_t> order(e.output_indices.size());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            return e.output_indices[a] < e.output_indices[b];
        });
        InspectorEvent sorted = e;
        std::string indices;
        for (std::size_t i = 0; i < order.size(); ++i) {
            sorted.debug_data[i] = e.debug_data[order[i]];
            sorted.debug_events[i] = e.debug_events[order[i]];
            sorted.output_indices[i] = e.output_indices[order[i]];
            indices += (i ? "," : "") + std::to_string(sorted.output_indices[i]);
        }
        sorted.name = key.second + "@" + indices;
        e = std::move(sorted);
    }
    events = std::move(out);
    return true;
}

} // namespace gapscope
