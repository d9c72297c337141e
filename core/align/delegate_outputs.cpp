#include "core/align/delegate_outputs.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace gapscope {

namespace {

// Tier 1: the lowered program's call node whose module holds exactly the list's
// handles says which node each output is.
std::optional<DelegateOutputOrder>
fromLoweredModule(const ExportGraph& g, const std::vector<std::int64_t>& list, std::size_t outputs) {
    const std::set<std::int64_t> wanted(list.begin(), list.end());
    for (const auto& n : g.nodes) {
        if (!n.lowered)
            continue;
        const std::set<std::int64_t> held(n.lowered->node_handles.begin(), n.lowered->node_handles.end());
        if (held != wanted)
            continue;
        DelegateOutputOrder out;
        out.source = "the lowered module the ETRecord keeps on its call node";
        if (n.lowered->output_handles.size() != outputs) {
            out.problem = "the lowered module '" + n.name + "' returns " +
                          std::to_string(n.lowered->output_handles.size()) + " values, the call " +
                          std::to_string(outputs);
            return out;
        }
        for (const auto& h : n.lowered->output_handles) {
            if (h.size() != 1) {
                out.problem = "an output of the lowered module '" + n.name + "' has no single debug handle";
                out.handles.clear();
                return out;
            }
            out.handles.push_back(h.front());
        }
        return out;
    }
    return std::nullopt;
}

} // namespace

DelegateOutputOrder delegateOutputOrder(const ExportGraph& g, const std::vector<std::int64_t>& list,
                                        std::size_t outputs) {
    if (auto exact = fromLoweredModule(g, list, outputs))
        return *exact;
    DelegateOutputOrder out;
    out.source = "the ETRecord's debug_handle_map";
    std::vector<std::string> problems;
    std::map<std::int64_t, std::size_t> need; // places per handle
    for (auto h : list)
        ++need[h];
    std::map<std::int64_t, std::vector<std::size_t>> byHandle; // nodes carrying one handle of the list
    for (std::size_t i = 0; i < g.nodes.size(); ++i)
        if (g.nodes[i].debug_handles.size() == 1 && need.count(g.nodes[i].debug_handles.front()))
            byHandle[g.nodes[i].debug_handles.front()].push_back(i);
    std::unordered_map<std::string, std::size_t> producer;
    std::unordered_map<std::string, std::vector<std::size_t>> consumers;
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
        for (const auto& t : g.nodes[i].output_tensors)
            producer.emplace(t, i);
        for (const auto& t : g.nodes[i].input_tensors)
            consumers[t].push_back(i);
    }

    std::set<std::size_t> members;
    std::map<std::int64_t, std::size_t> left; // handles shared with nodes outside: places still open
    for (const auto& [h, places] : need) {
        const auto it = byHandle.find(h);
        const std::size_t have = it == byHandle.end() ? 0 : it->second.size();
        if (have == places)
            members.insert(it->second.begin(), it->second.end());
        else if (have < places)
            problems.push_back("handle " + std::to_string(h) + " has " + std::to_string(places) +
                               " places but " + std::to_string(have) + " nodes");
        else
            left[h] = places;
    }
    // Shared handles: the nodes next to members (fed by one, or feeding one) join.
    const auto adjacent = [&](std::size_t i) {
        for (const auto& t : g.nodes[i].input_tensors)
            if (const auto p = producer.find(t); p != producer.end() && members.count(p->second))
                return true;
        for (const auto& t : g.nodes[i].output_tensors)
            if (const auto c = consumers.find(t); c != consumers.end())
                for (auto user : c->second)
                    if (members.count(user))
                        return true;
        return false;
    };
    for (bool grown = true; grown && !left.empty();) {
        grown = false;
        for (auto it = left.begin(); it != left.end();) {
            std::vector<std::size_t> joining;
            for (auto i : byHandle[it->first])
                if (!members.count(i) && adjacent(i))
                    joining.push_back(i);
            if (joining.empty()) {
                ++it;
                continue;
            }
            if (joining.size() > it->second) {
                problems.push_back(
                    "handle " + std::to_string(it->first) +
                    " is shared with ops outside the delegate: " + std::to_string(joining.size()) +
                    " candidates for " + std::to_string(it->second) + " places");
                joining.resize(it->second);
            }
            members.insert(joining.begin(), joining.end());
            it->second -= joining.size();
            grown = true;
            it = it->second == 0 ? left.erase(it) : std::next(it);
        }
    }
    for (const auto& [h, open] : left)
        problems.push_back("handle " + std::to_string(h) + ": " + std::to_string(open) +
                           " places without a node");

    // Each member's place: its handle's k-th occurrence in the list, k in node order.
    std::map<std::int64_t, std::vector<std::size_t>> occurrences;
    for (std::size_t p = 0; p < list.size(); ++p)
        occurrences[list[p]].push_back(p);
    std::map<std::int64_t, std::size_t> taken;
    std::vector<std::pair<std::size_t, std::size_t>> byPlace; // place, node
    for (auto i : members) {
        const auto h = g.nodes[i].debug_handles.front();
        const auto& occ = occurrences[h];
        const std::size_t k = taken[h]++;
        if (k < occ.size())
            byPlace.emplace_back(occ[k], i);
    }
    std::sort(byPlace.begin(), byPlace.end());

    std::unordered_set<std::string> readOutside(g.graph_outputs.begin(), g.graph_outputs.end());
    for (std::size_t i = 0; i < g.nodes.size(); ++i)
        if (!members.count(i))
            readOutside.insert(g.nodes[i].input_tensors.begin(), g.nodes[i].input_tensors.end());
    for (const auto& [place, i] : byPlace) {
        const auto& n = g.nodes[i];
        const auto used = std::count_if(n.output_tensors.begin(), n.output_tensors.end(),
                                        [&](const std::string& t) { return readOutside.count(t) > 0; });
        if (used > 1)
            problems.push_back("'" + n.name + "' returns several results from the delegate");
        for (long k = 0; k < used; ++k)
            out.handles.push_back(n.debug_handles.front());
    }
    if (out.handles.size() != outputs)
        problems.push_back(std::to_string(out.handles.size()) +
                           " of the delegate's nodes are read outside it, for " + std::to_string(outputs) +
                           " outputs");
    // The first few reasons: a delegate of a lowered program lists every handle.
    for (std::size_t i = 0; i < problems.size() && i < 3; ++i)
        out.problem += (i ? "; " : "") + problems[i];
    if (problems.size() > 3)
        out.problem += "; and " + std::to_string(problems.size() - 3) + " more";
    return out;
}

DelegatePick pickDelegateOutput(const DelegateOutputOrder& order, std::size_t place,
                                const std::map<std::vector<std::int64_t>, const CaptureRecord*>& group,
                                const AotCapture& capture, const Tensor& logged) {
    const auto sameSize = [&](const CaptureRecord* r) {
        const auto* t =
            r && !r->sequence && !r->outputs.empty() ? capture.tensor(r->outputs.front()) : nullptr;
        return t && logged.numel && t->numel == *logged.numel;
    };
    DelegatePick pick;
    if (order.known()) {
        const auto it = group.find(std::vector<std::int64_t>{order.handles[place]});
        if (it == group.end())
            pick.why = "the delegate returns handle " + std::to_string(order.handles[place]) +
                       " here, which no reference output is keyed by";
        else if (!sameSize(it->second))
            pick.why =
                "the delegate returns '" + it->second->ops.back() +
                "' here (the ETRecord's order), but its reference holds another number of elements than "
                "the logged tensor: the order is in doubt";
        else
            pick.record = it->second;
        pick.how = "the delegate's return order, from " + order.source;
        return pick;
    }
    std::vector<const CaptureRecord*> candidates;
    for (const auto& [key, r] : group)
        if (sameSize(r))
            candidates.push_back(r);
    if (candidates.size() == 1) {
        pick.record = candidates.front();
        pick.how = "the one op of the group with this output's size; the return order is unknown (" +
                   order.problem + ")";
    } else if (candidates.size() > 1) {
        pick.why = "the delegate's output order cannot be established from the ETRecord (" + order.problem +
                   ") and " + std::to_string(candidates.size()) +
                   " of its ops have this output's size: which one it is is unknown";
    }
    return pick;
}

} // namespace gapscope
