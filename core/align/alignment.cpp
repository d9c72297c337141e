#include "core/align/alignment.h"

#include "core/align/delegate_outputs.h"
#include "core/align/handle_postings.h"
#include "core/align/handle_subset_index.h"
#include "core/align/runtime_entries.h"
#include "core/backends/backend_conventions.h"
#include "core/common/side_task.h"

#include <algorithm>
#include <map>

namespace gapscope {

namespace {

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

// The node outputs an event's debug data stand for, in order, where the
// backend names them (BackendConventions::output_index_in_name): a gathered
// multi-output node's indices, or the "@<idx>" of a single tensor name. Empty
// for every other event.
std::vector<int> namedOutputIndices(const InspectorEvent& e) {
    if (!e.output_indices.empty())
        return e.output_indices;
    if (e.delegated && backendConventions(e.resolved.backend).output_index_in_name &&
        e.resolved.output_index && e.debug_data.size() == 1 && e.debug_data.front().isTensor())
        return {*e.resolved.output_index};
    return {};
}

} // namespace

namespace {

// The connected components of the bipartite overlap graph (§5.4): AOT nodes
// first (0 … records − 1), then runtime nodes, joined where they share a debug
// handle; in the order ExecuTorch finds them. Flat: component c is nodes[starts[c]
// … starts[c + 1]) (50,000 small vectors were a tenth of aligning 50,000 ops).
struct Components {
    std::vector<std::size_t> nodes, starts{0};
    std::size_t size() const { return starts.size() - 1; }
};

Components overlapComponents(const AotCapture& capture, const std::vector<RuntimeEntry>& runtime,
                             const HandlePostings& aotWith) {
    const std::size_t nAot = capture.records.size();
    const std::size_t n = nAot + runtime.size();
    auto handlesOf = [&](std::size_t i) -> const HandleTuple& {
        return i < nAot ? capture.records[i].debug_handle : runtime[i - nAot].handles;
    };
    // Its edges through a handle index: a node's neighbours are the other
    // side's nodes sharing a handle, in ascending order (what the pairwise scan
    // gave), so the components and their order are ExecuTorch's. Flat arrays
    // (CSR): node i's neighbours are edges[first[i] … first[i + 1]).
    std::vector<const HandleTuple*> runtimeTuples;
    runtimeTuples.reserve(runtime.size());
    for (const auto& r : runtime)
        runtimeTuples.push_back(&r.handles);
    const HandlePostings runtimeWith(runtimeTuples, nAot);
    std::vector<std::size_t> first(n + 1, 0), edges, scratch;
    for (std::size_t i = 0; i < n; ++i) {
        const auto& other = i < nAot ? runtimeWith : aotWith;
        scratch.clear();
        for (auto h : handlesOf(i)) {
            const auto with = other.of(h);
            scratch.insert(scratch.end(), with.begin(), with.end());
        }
        if (scratch.size() > 1) {
            std::sort(scratch.begin(), scratch.end());
            scratch.erase(std::unique(scratch.begin(), scratch.end()), scratch.end());
        }
        edges.insert(edges.end(), scratch.begin(), scratch.end());
        first[i + 1] = edges.size();
    }
    std::vector<bool> visited(n, false);
    Components components;
    components.nodes.reserve(n);
    std::vector<std::pair<std::size_t, std::size_t>> stack; // node, next neighbour
    // Depth-first in the order a recursive walk visits (pre-order, neighbours
    // ascending), with an explicit stack: a long chain cannot overflow the stack.
    const auto component = [&](std::size_t start) {
        auto& comp = components.nodes;
        visited[start] = true;
        comp.push_back(start);
        stack.emplace_back(start, 0);
        while (!stack.empty()) {
            auto& [v, next] = stack.back();
            if (first[v] + next == first[v + 1]) {
                stack.pop_back();
                continue;
            }
            const std::size_t w = edges[first[v] + next++];
            if (visited[w])
                continue;
            visited[w] = true;
            comp.push_back(w);
            stack.emplace_back(w, 0);
        }
        components.starts.push_back(comp.size());
    };
    for (std::size_t start = 0; start < n; ++start)
        if (!visited[start])
            component(start);
    return components;
}

// The runtime value a pair compares, from the logged values of its event:
// the outputs a backend names by index, the logged list, or one value (by
// shape when a delegate call logged several).
void chooseRuntimeValue(AlignedPair& pair, const RuntimeValue& element, const RuntimeEntry& rt,
                        const AotCapture& capture) {
    const auto& data = rt.event->debug_data;
    const auto namedIndices = namedOutputIndices(*rt.event);
    if (pair.aot.sequence && !namedIndices.empty()) {
        const auto outputs = pair.aot.record->outputs.size();
        const auto beyond = std::find_if(namedIndices.begin(), namedIndices.end(), [&](int index) {
            return static_cast<std::size_t>(index) >= outputs;
        });
        if (beyond != namedIndices.end()) {
            pair.runtime_value_valid = false;
            pair.problem = "the device logged output " + std::to_string(*beyond) + " of '" + rt.event->name +
                           "' but the reference node has " + std::to_string(outputs) + " outputs";
        } else {
            pair.runtime_value.kind = RuntimeValue::Kind::List;
            pair.runtime_value.items = data;
            pair.reference_elements = namedIndices;
            pair.selection = std::string(backendConventions(rt.event->resolved.backend).label) +
                             " tensors by output index: the device logged " +
                             std::to_string(namedIndices.size()) + " of the node's " +
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
        const auto* aotTensor =
            pair.aot.record->outputs.empty() ? nullptr : capture.tensor(pair.aot.record->outputs.front());
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
}

// Pairs of one component that ExecuTorch keys by the same reference collapse
// into its one row: the first carries the last one's value, the others say so.
void markExecutorchMerges(std::vector<AlignedPair>& pairs, std::size_t pairsBefore,
                          const std::vector<const CaptureRecord*>& keys) {
    for (std::size_t p = pairsBefore; p < pairs.size(); ++p) {
        if (!pairs[p].runtime_value_valid || pairs[p].executorch_merged_into >= 0)
            continue;
        std::size_t last = p;
        for (std::size_t q = p + 1; q < pairs.size(); ++q)
            if (keys[q - pairsBefore] == keys[p - pairsBefore] && pairs[q].runtime_value_valid) {
                pairs[q].executorch_merged_into = pairs[p].output_index;
                last = q;
            }
        if (last != p) {
            pairs[p].executorch_value = pairs[last].runtime_value;
            if (!pairs[p].executorch_record && pairs[p].aot.record != keys[p - pairsBefore])
                pairs[p].executorch_record = keys[p - pairsBefore];
        }
    }
}

} // namespace

RuntimeSide runtimeSideOf(const std::vector<InspectorEvent>& events) {
    RuntimeSide side;
    side.entries = runtimeEntries(events, side.op_names);
    return side;
}

Alignment alignRuntimeWithCapture(const std::vector<InspectorEvent>& events, const AotCapture& capture,
                                  const ExportGraph* graph, RuntimeSide* ahead, const MethodMaps* maps) {
    Alignment a;
    HandlePostings aotWith;
    if (ahead) {
        // Nothing to do here meanwhile: indexed here, not on a thread of its
        // own beside the caller's (planComparison's), whose one more runnable
        // thread on two cores preempted this one for milliseconds.
        a.runtime = std::move(ahead->entries);
        a.runtime_op_names = std::move(ahead->op_names);
        aotWith = HandlePostings(capture.debugHandles());
    } else {
        // The capture's side of the overlap graph needs no event: it is indexed
        // on another core while the runtime entries are merged here.
        SideTask<HandlePostings> indexed([&capture] { return HandlePostings(capture.debugHandles()); });
        a.runtime = runtimeEntries(events, a.runtime_op_names);
        aotWith = indexed.get();
    }

    const std::size_t nAot = capture.records.size();
    const Components components = overlapComponents(capture, a.runtime, aotWith);
    a.pairs.reserve(a.runtime.size());
    // Reused from component to component: most hold one record and one event.
    std::vector<const CaptureRecord*> aotList;
    std::vector<const RuntimeEntry*> runtimeList;
    std::vector<const CaptureRecord*> keys; // per pair: the reference ExecuTorch keys it by
    HandleTuple combined;
    for (std::size_t c = 0; c < components.size(); ++c) {
        aotList.clear();
        runtimeList.clear();
        for (std::size_t at = components.starts[c]; at < components.starts[c + 1]; ++at) {
            const std::size_t v = components.nodes[at];
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
        // AOT keys by their first handle (ExecuTorch's dict(aot_nodes) + t[0]):
        // a later record of the same handles replaces an earlier one.
        combined.clear();
        for (const auto* r : aotList)
            combined.push_back(r->debug_handle.front());
        const auto keyedBy = [&](std::int64_t handle) -> const CaptureRecord* {
            for (auto r = aotList.rbegin(); r != aotList.rend(); ++r)
                if ((*r)->debug_handle.size() == 1 && (*r)->debug_handle.front() == handle)
                    return *r;
            return nullptr;
        };
        const std::size_t pairsBefore = a.pairs.size();
        keys.clear();
        std::string skipReason;
        // A delegate call with several outputs: which op each output is, from the
        // program (delegateOutputOrder), not from ExecuTorch's positional rule.
        const std::size_t returns = static_cast<std::size_t>(std::max<std::int64_t>(rt.num_outputs, 0));
        std::optional<DelegateOutputOrder> order;
        std::map<HandleTuple, const CaptureRecord*> aotMap; // for pickDelegateOutput alone
        if (graph && returns > 1 && rt.event->name == "DELEGATE_CALL") {
            std::optional<HandleSpread> spread;
            if (maps)
                spread = handleSpread(*maps, rt.event->instruction_id, rt.event->resolved.handles);
            order =
                delegateOutputOrder(*graph, rt.event->resolved.handles, returns, spread ? &*spread : nullptr);
            for (const auto* r : aotList)
                aotMap[r->debug_handle] = r;
        }
        for (std::int64_t i = 0; i < rt.num_outputs; ++i) {
            if (!handlesWithin(combined, rt.handles)) {
                skipReason = "the reference handles are not a subset of the runtime handles";
                break; // same for every i
            }
            const auto k = static_cast<std::int64_t>(rt.handles.size()) - 1 - i;
            if (k < 0)
                break;
            const auto negative = static_cast<std::size_t>(i + 1);
            const CaptureRecord* positional = keyedBy(rt.handles[static_cast<std::size_t>(k)]);
            // Rows are ExecuTorch's: where its rule keys no reference, there is no row.
            if (!positional) {
                skipReason =
                    "no reference output is keyed by handle " +
                    std::to_string(rt.handles[static_cast<std::size_t>(k)]) +
                    ", the runtime group's last handle (ExecuTorch compares a fused group's last op)";
                continue;
            }
            AlignedPair pair;
            pair.handles = rt.handles;
            pair.output_index = static_cast<int>(i);
            pair.aot.record = positional;
            pair.aot.sequence = pair.aot.record->sequence;
            pair.runtime = &rt;
            const auto& data = rt.event->debug_data;
            if (data.size() < negative) {
                pair.runtime_value_valid = false;
                pair.problem = "the runtime event logged " + std::to_string(data.size()) +
                               " values, fewer than output " + std::to_string(i + 1) + " from the end";
                keys.push_back(pair.aot.record);
                a.pairs.push_back(std::move(pair));
                continue;
            }
            const RuntimeValue& element = data[data.size() - negative];
            if (order && element.isTensor()) {
                const DelegatePick pick =
                    pickDelegateOutput(*order, returns - negative, aotMap, capture, *element.tensor);
                if (!pick.why.empty()) {
                    pair.runtime_value_valid = false;
                    pair.problem = pick.why;
                    keys.push_back(positional);
                    a.pairs.push_back(std::move(pair));
                    continue;
                }
                if (pick.record && pick.record != positional) {
                    pair.executorch_record = positional;
                    pair.aot.record = pick.record;
                    pair.aot.sequence = false;
                    pair.selection = "delegate output " + std::to_string(i) + " is '" +
                                     pick.record->ops.back() + "' (" + pick.how +
                                     "); ExecuTorch's positional rule pairs it with '" +
                                     positional->ops.back() + "'";
                }
            }
            chooseRuntimeValue(pair, element, rt, capture);
            keys.push_back(positional);
            a.pairs.push_back(std::move(pair));
        }
        markExecutorchMerges(a.pairs, pairsBefore, keys);
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
