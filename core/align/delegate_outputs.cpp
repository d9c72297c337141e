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

// Whether node `to` depends on node `from` (from < to: the graph is in
// topological order, so the search stays between them).
bool dependsOn(const ExportGraph& g,
               const std::unordered_map<std::string, std::vector<std::size_t>>& consumers, std::size_t from,
               std::size_t to) {
    std::vector<std::size_t> open{from};
    std::unordered_set<std::size_t> seen{from};
    while (!open.empty()) {
        const auto i = open.back();
        open.pop_back();
        for (const auto& t : g.nodes[i].output_tensors)
            if (const auto c = consumers.find(t); c != consumers.end())
                for (auto user : c->second) {
                    if (user == to)
                        return true;
                    if (user < to && seen.insert(user).second)
                        open.push_back(user);
                }
    }
    return false;
}

} // namespace

HandleSpread handleSpread(const MethodMaps& maps, std::int64_t instruction,
                          const std::vector<std::int64_t>& list) {
    HandleSpread s;
    const std::set<std::int64_t> wanted(list.begin(), list.end());
    for (const auto& [id, entry] : maps.debug_handle_map)
        for (auto h : entry.handles)
            if (wanted.count(h)) {
                ++s.total[h];
                if (id < instruction)
                    ++s.before[h];
            }
    return s;
}

DelegateOutputOrder delegateOutputOrder(const ExportGraph& g, const std::vector<std::int64_t>& list,
                                        std::size_t outputs, const HandleSpread* spread) {
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

    // A node with several results takes a place for itself and one for each
    // result: in the lowered module each is read through a getitem node that
    // carries its producer's handle, while the saved edge program (torch.export's
    // serialised graph) folds the getitems into the node's outputs. torchao's
    // dynamic quantisation (choose_qparams_affine: scale, zero point) is such a
    // node in every 8da4w linear (issue 54: "handle 56 has 3 places but 1 nodes").
    const auto placesOf = [&](std::size_t i) {
        const auto n = g.nodes[i].output_tensors.size();
        return n > 1 ? 1 + n : std::size_t{1};
    };
    std::set<std::size_t> members;
    std::map<std::int64_t, std::size_t> left; // handles shared with nodes outside: places still open
    for (const auto& [h, places] : need) {
        const auto it = byHandle.find(h);
        std::size_t have = 0;
        if (it != byHandle.end())
            for (auto i : it->second)
                have += placesOf(i);
        if (have == places) {
            members.insert(it->second.begin(), it->second.end());
            continue;
        }
        if (have > places && spread) {
            // A chain split over instructions: the earlier ones took its first nodes.
            const auto& nodes = it->second;
            const auto total = spread->total.find(h);
            const auto before = spread->before.find(h);
            const std::size_t skip = before == spread->before.end() ? 0 : before->second;
            bool chain = total != spread->total.end() && total->second == nodes.size() &&
                         skip + places <= nodes.size();
            for (std::size_t k = 0; chain && k < nodes.size(); ++k)
                chain =
                    placesOf(nodes[k]) == 1 && (k == 0 || dependsOn(g, consumers, nodes[k - 1], nodes[k]));
            if (chain) {
                members.insert(nodes.begin() + static_cast<long>(skip),
                               nodes.begin() + static_cast<long>(skip + places));
                continue;
            }
        }
        if (have < places)
            problems.push_back("handle " + std::to_string(h) + " has " + std::to_string(places) +
                               " places but " + std::to_string(have) + " for its nodes");
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
            std::size_t taking = 0;
            for (auto i : joining)
                taking += placesOf(i);
            if (taking > it->second) {
                problems.push_back("handle " + std::to_string(it->first) +
                                   " is shared with ops outside the delegate: " + std::to_string(taking) +
                                   " places of candidates for " + std::to_string(it->second));
                // The first that fit join; the handle is settled (said above) either way.
                std::size_t kept = 0, room = it->second;
                while (kept < joining.size() && placesOf(joining[kept]) <= room)
                    room -= placesOf(joining[kept++]);
                joining.resize(kept);
                taking = it->second;
            }
            members.insert(joining.begin(), joining.end());
            it->second -= taking;
            grown = true;
            it = it->second == 0 ? left.erase(it) : std::next(it);
        }
    }
    for (const auto& [h, open] : left)
        problems.push_back("handle " + std::to_string(h) + ": " + std::to_string(open) +
                           " places without a node");

    // Each member's places: the next of its handle's occurrences in the list, in
    // node order; a node with several results has its own place, then one per
    // result (its getitems).
    std::map<std::int64_t, std::vector<std::size_t>> occurrences;
    for (std::size_t p = 0; p < list.size(); ++p)
        occurrences[list[p]].push_back(p);
    std::unordered_set<std::string> readOutside(g.graph_outputs.begin(), g.graph_outputs.end());
    for (std::size_t i = 0; i < g.nodes.size(); ++i)
        if (!members.count(i))
            readOutside.insert(g.nodes[i].input_tensors.begin(), g.nodes[i].input_tensors.end());
    std::map<std::int64_t, std::size_t> taken;
    std::vector<std::pair<std::size_t, std::int64_t>> returned; // place, handle
    for (auto i : members) {
        const auto& n = g.nodes[i];
        const auto h = n.debug_handles.front();
        const auto& occ = occurrences[h];
        const std::size_t first = taken[h];
        taken[h] += placesOf(i);
        if (first >= occ.size())
            continue;
        const bool several = n.output_tensors.size() > 1;
        long used = 0;
        for (std::size_t k = 0; k < n.output_tensors.size(); ++k) {
            if (!readOutside.count(n.output_tensors[k]))
                continue;
            ++used;
            const std::size_t at = several && first + 1 + k < occ.size() ? occ[first + 1 + k] : occ[first];
            returned.emplace_back(at, h);
        }
        if (used > 1)
            problems.push_back("'" + n.name + "' returns several results from the delegate");
    }
    std::sort(returned.begin(), returned.end());
    for (const auto& [place, h] : returned)
        out.handles.push_back(h);
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
