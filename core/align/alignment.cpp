#include "core/align/alignment.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

namespace gapscope {

namespace {

bool overlap(const HandleTuple& a, const HandleTuple& b) {
    for (auto x : a)
        if (std::find(b.begin(), b.end(), x) != b.end())
            return true;
    return false;
}

bool subsetOf(const HandleTuple& a, const HandleTuple& b) {
    for (auto x : a)
        if (std::find(b.begin(), b.end(), x) == b.end())
            return false;
    return true;
}

// §5.2: keep per handle key the event with the largest instruction id, then merge
// overlapping keys, the higher instruction id winning.
std::vector<RuntimeEntry> runtimeEntries(const std::vector<InspectorEvent>& events,
                                         std::vector<std::pair<HandleTuple, std::string>>& opNames) {
    // Handles covered by fine-grained delegated events, per backend.
    std::map<std::string, std::set<std::int64_t>> inner;
    for (const auto& e : events)
        if (e.delegated && e.has_op_types && !e.debug_data.empty() && !e.resolved.handles.empty())
            inner[e.resolved.backend].insert(e.resolved.handles.begin(), e.resolved.handles.end());

    std::vector<RuntimeEntry> byKey; // insertion-ordered "dict"
    for (const auto& e : events) {
        if (e.name == "OPERATOR_CALL" || !e.has_op_types)
            continue;
        const HandleTuple& key = e.resolved.handles;
        if (e.name == "DELEGATE_CALL") {
            auto it = inner.find(e.resolved.backend);
            if (it != inner.end() && !it->second.empty()) {
                bool disjoint = true;
                for (auto h : key)
                    disjoint = disjoint && !it->second.count(h);
                if (!disjoint)
                    continue;
            }
        }
        auto existing =
            std::find_if(byKey.begin(), byKey.end(), [&](const RuntimeEntry& r) { return r.handles == key; });
        if (existing == byKey.end()) {
            byKey.push_back(RuntimeEntry{key, e.instruction_id, &e, e.num_outputs});
            opNames.emplace_back(key, e.name);
        } else if (e.instruction_id > existing->instruction_id) {
            existing->instruction_id = e.instruction_id;
            existing->event = &e;
            existing->num_outputs = e.num_outputs;
            for (auto& [k, name] : opNames)
                if (k == key)
                    name = e.name;
        }
    }

    std::vector<RuntimeEntry> merged;
    for (const auto& entry : byKey) {
        HandleTuple current = entry.handles;
        RuntimeEntry value = entry;
        std::vector<std::size_t> remove;
        for (std::size_t i = 0; i < merged.size(); ++i) {
            if (!overlap(entry.handles, merged[i].handles))
                continue;
            if (merged[i].instruction_id < entry.instruction_id) {
                current = mergeHandleTuples(merged[i].handles, current);
            } else {
                current = mergeHandleTuples(current, merged[i].handles);
                value = merged[i];
            }
            remove.push_back(i);
        }
        for (auto it = remove.rbegin(); it != remove.rend(); ++it)
            merged.erase(merged.begin() + static_cast<std::ptrdiff_t>(*it));
        value.handles = current;
        merged.push_back(value);
    }
    return merged;
}

// ExecuTorch's _find_matching_runtime_output_by_shape_and_dtype.
std::size_t pickByShape(const std::vector<RuntimeValue>& items, const SafetensorsTensor& aot,
                        std::string& how, bool& ambiguous) {
    std::vector<std::size_t> shape;
    for (std::size_t i = 0; i < items.size(); ++i)
        if (items[i].isTensor() && items[i].tensor->sizes == aot.shape)
            shape.push_back(i);
    if (shape.size() == 1) {
        how = "the only runtime output of the reference's shape";
        return shape[0];
    }
    if (shape.size() > 1) {
        std::vector<std::size_t> dtype;
        for (auto i : shape)
            if (static_cast<ScalarType>(items[i].tensor->scalar_type) == aot.scalar_type)
                dtype.push_back(i);
        if (dtype.size() == 1) {
            how = "the only runtime output of the reference's shape and dtype";
            return dtype[0];
        }
    }
    ambiguous = shape.size() > 1;
    how = (ambiguous ? std::to_string(shape.size()) + " runtime outputs match the reference's shape and dtype"
                     : std::string("no runtime output has the reference's shape")) +
          "; ExecuTorch takes the last of " + std::to_string(items.size());
    return items.size() - 1;
}

// The node outputs a QNN event's debug data stand for, in order: a gathered
// multi-output node's indices, or the "@<idx>" of a single QNN tensor name.
// Empty for every other event.
std::vector<int> qnnOutputIndices(const InspectorEvent& e) {
    if (!e.output_indices.empty())
        return e.output_indices;
    if (e.delegated && e.resolved.backend == kQnnBackend && e.resolved.output_index &&
        e.debug_data.size() == 1 && e.debug_data.front().isTensor())
        return {*e.resolved.output_index};
    return {};
}

} // namespace

HandleTuple mergeHandleTuples(const HandleTuple& first, const HandleTuple& second) {
    HandleTuple out;
    const std::set<std::int64_t> inSecond(second.begin(), second.end());
    for (auto h : first)
        if (!inSecond.count(h))
            out.push_back(h);
    std::set<std::int64_t> seen(out.begin(), out.end());
    for (auto h : second)
        if (seen.insert(h).second)
            out.push_back(h);
    return out;
}

std::vector<std::string> opNamesWithin(const HandleTuple& target,
                                       const std::vector<std::pair<HandleTuple, std::string>>& names) {
    std::vector<std::string> out;
    for (const auto& [key, name] : names)
        if (subsetOf(key, target))
            out.push_back(name);
    return out;
}

std::vector<std::string> aotOpNamesWithin(const HandleTuple& target, const AotCapture& capture) {
    std::vector<std::string> out;
    for (const auto& r : capture.records)
        if (subsetOf(r.debug_handle, target))
            out.insert(out.end(), r.ops.begin(), r.ops.end());
    return out;
}

HandleTuple delegateOutputHandles(const ExportGraph& graph, const HandleTuple& handles) {
    const std::set<std::int64_t> group(handles.begin(), handles.end());
    auto inGroup = [&](const GraphNode& n) {
        return !n.debug_handles.empty() && std::all_of(n.debug_handles.begin(), n.debug_handles.end(),
                                                       [&](std::int64_t h) { return group.count(h) > 0; });
    };
    // Who consumes each tensor from outside the group.
    std::set<std::string> usedOutside(graph.graph_outputs.begin(), graph.graph_outputs.end());
    for (const auto& n : graph.nodes)
        if (!inGroup(n))
            usedOutside.insert(n.input_tensors.begin(), n.input_tensors.end());
    HandleTuple out;
    for (const auto& n : graph.nodes) {
        if (!inGroup(n) || n.debug_handles.size() != 1)
            continue;
        const bool boundary = std::any_of(n.output_tensors.begin(), n.output_tensors.end(),
                                          [&](const std::string& t) { return usedOutside.count(t) > 0; });
        if (boundary && std::find(out.begin(), out.end(), n.debug_handles.front()) == out.end())
            out.push_back(n.debug_handles.front());
    }
    return out;
}

Alignment alignRuntimeWithCapture(const std::vector<InspectorEvent>& events, const AotCapture& capture,
                                  const ExportGraph* graph) {
    Alignment a;
    a.runtime = runtimeEntries(events, a.runtime_op_names);

    // Bipartite overlap graph: AOT nodes first, then runtime nodes (§5.4).
    const std::size_t nAot = capture.records.size();
    const std::size_t n = nAot + a.runtime.size();
    auto handlesOf = [&](std::size_t i) -> const HandleTuple& {
        return i < nAot ? capture.records[i].debug_handle : a.runtime[i - nAot].handles;
    };
    std::vector<std::vector<std::size_t>> edges(n);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = i + 1; j < n; ++j)
            if ((i < nAot) != (j < nAot) && overlap(handlesOf(i), handlesOf(j))) {
                edges[i].push_back(j);
                edges[j].push_back(i);
            }
    std::vector<bool> visited(n, false);
    std::function<void(std::size_t, std::vector<std::size_t>&)> dfs = [&](std::size_t v,
                                                                          std::vector<std::size_t>& comp) {
        visited[v] = true;
        comp.push_back(v);
        for (auto w : edges[v])
            if (!visited[w])
                dfs(w, comp);
    };
    for (std::size_t start = 0; start < n; ++start) {
        if (visited[start])
            continue;
        std::vector<std::size_t> comp;
        dfs(start, comp);
        std::vector<const CaptureRecord*> aotList;
        std::vector<const RuntimeEntry*> runtimeList;
        for (auto v : comp) {
            if (v < nAot)
                aotList.push_back(&capture.records[v]);
            else
                runtimeList.push_back(&a.runtime[v - nAot]);
        }
        if (runtimeList.empty()) {
            a.aot_without_runtime.insert(a.aot_without_runtime.end(), aotList.begin(), aotList.end());
            continue;
        }
        if (aotList.empty()) {
            a.runtime_without_aot.insert(a.runtime_without_aot.end(), runtimeList.begin(), runtimeList.end());
            continue;
        }
        if (runtimeList.size() != 1) {
            a.errors.push_back("a component holds " + std::to_string(runtimeList.size()) +
                               " runtime entries (ExecuTorch raises here)");
            continue;
        }
        const RuntimeEntry& rt = *runtimeList.front();
        // AOT keys by their first handle (ExecuTorch's dict(aot_nodes) + t[0]).
        std::map<HandleTuple, const CaptureRecord*> aotMap;
        HandleTuple combined;
        for (const auto* r : aotList) {
            aotMap[r->debug_handle] = r;
            combined.push_back(r->debug_handle.front());
        }
        const std::size_t pairsBefore = a.pairs.size();
        std::vector<const CaptureRecord*> keys; // per pair: the reference ExecuTorch keys it by
        std::string skipReason;
        // A delegate call with several outputs: which op each output is, from the graph.
        const HandleTuple delegateOutputs = graph && rt.num_outputs > 1 && rt.event->name == "DELEGATE_CALL"
                                                ? delegateOutputHandles(*graph, rt.handles)
                                                : HandleTuple{};
        for (std::int64_t i = 0; i < rt.num_outputs; ++i) {
            if (!subsetOf(combined, rt.handles)) {
                skipReason = "the reference handles are not a subset of the runtime handles";
                break; // same for every i
            }
            const auto k = static_cast<std::int64_t>(rt.handles.size()) - 1 - i;
            if (k < 0)
                break;
            auto found = aotMap.find(HandleTuple{rt.handles[static_cast<std::size_t>(k)]});
            if (found == aotMap.end()) {
                skipReason =
                    "no reference output is keyed by handle " +
                    std::to_string(rt.handles[static_cast<std::size_t>(k)]) +
                    ", the runtime group's last handle (ExecuTorch compares a fused group's last op)";
                continue;
            }
            AlignedPair pair;
            pair.handles = rt.handles;
            pair.output_index = static_cast<int>(i);
            pair.aot.record = found->second;
            pair.aot.sequence = found->second->sequence;
            pair.runtime = &rt;
            const auto& data = rt.event->debug_data;
            const auto negative = static_cast<std::size_t>(i + 1);
            if (data.size() < negative) {
                pair.runtime_value_valid = false;
                pair.problem = "the runtime event logged " + std::to_string(data.size()) +
                               " values, fewer than output " + std::to_string(i + 1) + " from the end";
                keys.push_back(found->second);
                a.pairs.push_back(std::move(pair));
                continue;
            }
            const RuntimeValue& element = data[data.size() - negative];
            // The delegate's output i is the group's i-th boundary node from the end; where
            // that is another op of the group with the logged shape, compare with it.
            if (delegateOutputs.size() == static_cast<std::size_t>(rt.num_outputs) && element.isTensor()) {
                const auto byGraph =
                    aotMap.find(HandleTuple{delegateOutputs[delegateOutputs.size() - negative]});
                const auto* ref = byGraph != aotMap.end() && !byGraph->second->sequence
                                      ? capture.tensor(byGraph->second->outputs.front())
                                      : nullptr;
                if (ref && byGraph->second != found->second && element.tensor->sizes == ref->shape) {
                    pair.executorch_record = found->second;
                    pair.aot.record = byGraph->second;
                    pair.aot.sequence = false;
                    pair.selection = "delegate output " + std::to_string(i) + " is '" +
                                     byGraph->second->ops.back() +
                                     "' (the group's boundary nodes in graph order); ExecuTorch's positional "
                                     "rule pairs it with '" +
                                     found->second->ops.back() + "'";
                }
            }
            const auto qnnIndices = qnnOutputIndices(*rt.event);
            if (pair.aot.sequence && !qnnIndices.empty()) {
                const auto outputs = found->second->outputs.size();
                const auto beyond = std::find_if(qnnIndices.begin(), qnnIndices.end(), [&](int index) {
                    return static_cast<std::size_t>(index) >= outputs;
                });
                if (beyond != qnnIndices.end()) {
                    pair.runtime_value_valid = false;
                    pair.problem = "the device logged output " + std::to_string(*beyond) + " of '" +
                                   rt.event->name + "' but the reference node has " +
                                   std::to_string(outputs) + " outputs";
                } else {
                    pair.runtime_value.kind = RuntimeValue::Kind::List;
                    pair.runtime_value.items = data;
                    pair.reference_elements = qnnIndices;
                    pair.selection = "QNN tensors by output index: the device logged " +
                                     std::to_string(qnnIndices.size()) + " of the node's " +
                                     std::to_string(outputs) + " outputs";
                }
            } else if (pair.aot.sequence) {
                if (element.isSequence()) {
                    pair.runtime_value = element;
                    pair.selection = "the logged tensor list";
                } else if (element.isTensor()) {
                    pair.runtime_value.kind = RuntimeValue::Kind::List;
                    pair.runtime_value.items = data;
                    pair.selection = "all logged values";
                } else {
                    pair.runtime_value_valid = false;
                    pair.problem = "the reference is a sequence but the runtime value is a scalar";
                }
            } else {
                pair.runtime_value = element;
                const auto* aotTensor = capture.tensor(found->second->outputs.front());
                if (rt.num_outputs == 1 && data.size() > 1 && aotTensor) {
                    bool ambiguous = false;
                    const std::size_t picked = pickByShape(data, *aotTensor, pair.selection, ambiguous);
                    pair.runtime_value = data[picked];
                    if (rt.event->name == "DELEGATE_CALL") {
                        // A delegate call logs its inputs first and its outputs last: the
                        // last value is the output, but a shape match may pick an input.
                        if (picked + 1 != data.size()) {
                            pair.ambiguous_selection = true;
                            pair.selection = "ExecuTorch's shape match picks logged argument " +
                                             std::to_string(picked) + " of " + std::to_string(data.size()) +
                                             ", a delegate input, not its output";
                        } else if (ambiguous) {
                            pair.selection = "the delegate call's last logged argument (its output)";
                        }
                    } else {
                        pair.ambiguous_selection = ambiguous;
                    }
                }
            }
            keys.push_back(found->second);
            a.pairs.push_back(std::move(pair));
        }
        for (std::size_t p = pairsBefore; p < a.pairs.size(); ++p) {
            if (!a.pairs[p].runtime_value_valid || a.pairs[p].executorch_merged_into >= 0)
                continue;
            std::size_t last = p;
            for (std::size_t q = p + 1; q < a.pairs.size(); ++q)
                if (keys[q - pairsBefore] == keys[p - pairsBefore] && a.pairs[q].runtime_value_valid) {
                    a.pairs[q].executorch_merged_into = a.pairs[p].output_index;
                    last = q;
                }
            if (last != p) {
                a.pairs[p].executorch_value = a.pairs[last].runtime_value;
                if (!a.pairs[p].executorch_record && a.pairs[p].aot.record != keys[p - pairsBefore])
                    a.pairs[p].executorch_record = keys[p - pairsBefore];
            }
        }
        if (a.pairs.size() == pairsBefore) {
            a.skipped.push_back({aotList, &rt, skipReason.empty() ? "no output to compare" : skipReason});
        } else {
            for (const auto* r : aotList) {
                bool used = false;
                for (std::size_t p = pairsBefore; p < a.pairs.size(); ++p)
                    used = used || a.pairs[p].aot.record == r;
                if (!used)
                    a.fused.emplace_back(r, &rt);
            }
        }
    }
    return a;
}

} // namespace gapscope
