#pragma once

#include "core/align/debug_handle_resolver.h"
#include "core/align/runtime_value.h"
#include "core/etdump/etdump_model.h"
#include "core/etrecord/etrecord_model.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gapscope {

// One event as ExecuTorch's Inspector builds it from a run (§5.1): ETDump
// events grouped by (instruction id, chain index, delegate ids); one event per
// ProfileEvent of a group (or one for a group of DebugEvents only), carrying the
// group's debug data.
struct InspectorEvent {
    std::string name; // profile name; the delegate id for delegated events
    std::int32_t instruction_id = -1;
    EventKey key;
    bool delegated = false;
    std::vector<RuntimeValue> debug_data;  // one per DebugEvent of the group, in file order
    std::vector<std::size_t> debug_events; // their indices in RunData.events
    ResolvedHandles resolved;
    std::int64_t num_outputs = 1;
    bool has_op_types = false; // a handle names a node of the op graph (and not a framework event)
    // The node outputs `debug_data` holds, in order, when the event gathers the
    // QNN tensors "<node>@<idx>" of one multi-output node (multi_output_by_name.h).
    std::vector<int> output_indices;
};

bool isFrameworkEventName(const std::string& name);

// The debug handles of the op graph's nodes (the Inspector's `op_types`
// lookup): sorted, each once, searched by bisection. A std::set of them was a
// node per op to build on opening.
class OpHandles {
public:
    OpHandles() = default;
    explicit OpHandles(std::vector<std::int64_t> handles);
    // Every handle counts: the guess of the events built ahead when no op graph
    // is known yet (the capture's handles decide, and they are nearly always all
    // of the events' own).
    static OpHandles every();
    bool contains(std::int64_t handle) const;

private:
    // Dense handles (the usual case: 1 … a little more than the number of ops)
    // are bits, handle − m_min, found without a search; sparse ones are sorted.
    std::vector<bool> m_bits;
    std::int64_t m_min = 0;
    std::vector<std::int64_t> m_sorted;
    bool m_every = false;
};

// `maps` and `opGraphHandles` come from the ETRecord (may be null / empty).
std::vector<InspectorEvent> buildInspectorEvents(const RunData& run, const MethodMaps* maps,
                                                 const OpHandles& opGraphHandles);
// The same in two steps. The events of a run and the maps alone (has_op_types
// false everywhere) need no capture, so they may be built while it is read
// (EventsBuilt); markOpTypes then sets has_op_types from the op graph's handles,
// and returns how many events it changed (none: what was derived from the
// events as they were marked before still holds).
std::vector<InspectorEvent> buildInspectorEvents(const RunData& run, const MethodMaps* maps);
std::size_t markOpTypes(std::vector<InspectorEvent>& events, const OpHandles& opGraphHandles);

// Program outputs of a run (DebugEvents whose Value carries output = true), in order.
std::vector<RuntimeValue> programOutputs(const RunData& run);
// The same, a TensorList output counted as its tensors, as the flattened
// reference outputs (and a tap's output_index) count them.
std::vector<RuntimeValue> flatProgramOutputs(const RunData& run);

} // namespace gapscope
