#include "core/align/run_methods.h"

#include "core/align/debug_handle_resolver.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace gapscope {

namespace {

std::optional<std::uint64_t> elementCount(const std::vector<std::int64_t>& sizes) {
    std::uint64_t n = 1;
    for (auto s : sizes) {
        if (s < 0)
            return std::nullopt; // symbolic
        n *= static_cast<std::uint64_t>(s);
    }
    return n;
}

// Element count of the first output of the node carrying exactly `handle`.
std::map<std::int64_t, std::uint64_t> outputCountsByHandle(const ExportGraph* graph) {
    std::map<std::int64_t, std::uint64_t> counts;
    if (!graph)
        return counts;
    for (const auto& node : graph->nodes) {
        if (node.debug_handles.size() != 1 || node.output_tensors.empty())
            continue;
        const auto it = graph->tensor_sizes.find(node.output_tensors.front());
        if (it == graph->tensor_sizes.end())
            continue;
        if (const auto n = elementCount(it->second))
            counts[node.debug_handles.front()] = *n; // the last node of a handle writes it last
    }
    return counts;
}

// What one method offers to weigh a run against, built once per comparison.
struct MethodEvidence {
    std::string method;
    const MethodMaps* maps = nullptr;
    std::map<std::int64_t, std::uint64_t> counts; // outputCountsByHandle of its edge program
};

struct Fit {
    std::size_t matched = 0;    // events whose instruction and output size fit
    std::size_t mismatched = 0; // events that cannot belong to this method
};

Fit fit(const RunData& run, const MethodEvidence& m) {
    Fit f;
    const MethodMaps* maps = m.maps;
    const auto& counts = m.counts;
    for (const auto& e : run.events) {
        const auto* d = std::get_if<DebugEvent>(&e);
        if (!d || (d->debug_entry && d->debug_entry->output) || d->instruction_id < 0 || !maps)
            continue; // program outputs and framework events name no instruction
        const EventKey key{d->instruction_id, d->delegate_debug_id_int, d->delegate_debug_id_str};
        const bool known = key.delegated() ? maps->delegate_map.count(d->instruction_id) > 0
                                           : maps->debug_handle_map.count(d->instruction_id) > 0;
        if (!known) {
            ++f.mismatched;
            continue;
        }
        // A kernel's output, or a delegate's intermediate through its delegate map,
        // against the edge-program node of the one handle it resolves to.
        const auto handles = resolveDebugHandles(maps, key).handles;
        const Value* v = d->debug_entry ? &*d->debug_entry : nullptr;
        const auto count = handles.size() == 1 ? counts.find(handles.front()) : counts.end();
        if (!v || v->type() != ValueType::Tensor || v->tensors.size() != 1 || !v->tensors.front().numel ||
            count == counts.end()) {
            f.matched += key.delegated() ? 1 : 0; // a mapped delegate event: weak evidence for
            continue;
        }
        (count->second == *v->tensors.front().numel ? f.matched : f.mismatched) += 1;
    }
    return f;
}

} // namespace

std::vector<std::string> methodNames(const EtRecord& etrecord) {
    std::set<std::string> names;
    for (const auto& [name, maps] : etrecord.methods)
        names.insert(name);
    for (const auto& [name, graph] : etrecord.edge_programs)
        names.insert(name);
    return {names.begin(), names.end()};
}

bool isMultiMethod(const EtRecord& etrecord) {
    return methodNames(etrecord).size() > 1;
}

std::vector<std::vector<std::string>> methodsFittingRuns(const EtDump& dump, const EtRecord& etrecord) {
    std::vector<std::vector<std::string>> out(dump.runs.size());
    if (!isMultiMethod(etrecord))
        return out;
    std::vector<MethodEvidence> methods;
    for (const auto& name : methodNames(etrecord))
        methods.push_back({name, etrecord.maps(name), outputCountsByHandle(etrecord.edgeProgram(name))});
    for (std::size_t r = 0; r < dump.runs.size(); ++r) {
        std::vector<std::pair<Fit, const std::string*>> fits;
        for (const auto& m : methods)
            fits.emplace_back(fit(dump.runs[r], m), &m.method);
        std::stable_sort(fits.begin(), fits.end(), [](const auto& a, const auto& b) {
            return a.first.mismatched != b.first.mismatched ? a.first.mismatched < b.first.mismatched
                                                            : a.first.matched > b.first.matched;
        });
        for (const auto& [f, method] : fits)
            if (f.matched > 0 && f.mismatched == fits.front().first.mismatched && f.matched > f.mismatched)
                out[r].push_back(*method);
    }
    return out;
}

} // namespace gapscope
