#pragma once

#include "core/align/inspector_events.h"
#include "core/capture/aot_capture.h"
#include "core/etrecord/export_graph.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gapscope {

using HandleTuple = std::vector<std::int64_t>;

// A runtime entry after §5.2: the event kept for a handle key (largest
// instruction id), merged with every overlapping key.
struct RuntimeEntry {
    HandleTuple handles;
    std::int32_t instruction_id = -1;
    const InspectorEvent* event = nullptr; // whose debug data is compared
    std::int64_t num_outputs = 1;
};

// The AOT side of a row: one value, or the whole record output when the
// reference produced a sequence (topk) — ExecuTorch skips those, we keep them.
struct AotSide {
    const CaptureRecord* record = nullptr;
    bool sequence = false;
};

// One ExecuTorch mapping entry (§5.4): both sides carry the runtime tuple.
struct AlignedPair {
    HandleTuple handles;  // runtime_debug_handle == aot_debug_handle
    int output_index = 0; // i in 0..num_outputs-1 (negative index -(i+1))
    AotSide aot;
    const RuntimeEntry* runtime = nullptr;
    // The runtime value ExecuTorch compares: a tensor/scalar, or a list.
    RuntimeValue runtime_value;
    bool runtime_value_valid = true;
    std::string problem;   // why ExecuTorch would raise (mapping error), if it would
    std::string selection; // how a multi-output runtime value was chosen (shape/dtype/last)
    // Several runtime outputs had the reference's shape and dtype: ExecuTorch
    // compares the last one, which may be the wrong output (native_layer_norm).
    bool ambiguous_selection = false;
    // ExecuTorch's reference for this output when it differs from `aot.record`: its
    // positional rule pairs the delegate's output with another op of the group
    // (delegateOutputOrder). ExecuTorch's own numbers are computed against it.
    const CaptureRecord* executorch_record = nullptr;
    // ExecuTorch's table is keyed by the reference: when two outputs of one
    // runtime group end in the same handle (…, 6, 6), the later output's entry
    // overwrites the earlier's, which keeps the earlier's place. The earlier pair
    // then carries the runtime value ExecuTorch compares (`executorch_value`),
    // and the later one the output index of the row that stands for it.
    std::optional<RuntimeValue> executorch_value;
    int executorch_merged_into = -1;
    // The reference output compared, one per runtime item, one per runtime item, when the device logged
    // only some outputs of a multi-output node by QNN tensor name ("<node>@<idx>":
    // native_layer_norm's output without mean and rstd, or split's chunks). Empty:
    // the runtime value stands for the whole reference output, as in ExecuTorch.
    std::vector<int> reference_elements;
};

// A pre-merge runtime key and its op name (an entry of ExecuTorch's
// runtime_debug_handle_to_op_names): views into the events, as
// RuntimeEntry::event is, which whoever holds the alignment keeps (AlignedRun).
// A copy of each key and name was two allocations per event, 100,000 for
// opening a 50,000-op session.
struct RuntimeOpName {
    const HandleTuple* handles = nullptr;
    const std::string* name = nullptr;
};

struct Alignment {
    std::vector<RuntimeEntry> runtime; // after merging, in insertion order
    std::vector<AlignedPair> pairs;    // ExecuTorch's mapping order
    // Op names per pre-merge runtime key (ExecuTorch's runtime_debug_handle_to_op_names).
    std::vector<RuntimeOpName> runtime_op_names;
    // Components that had AOT nodes but no runtime node, and vice versa.
    std::vector<const CaptureRecord*> aot_without_runtime;
    std::vector<const RuntimeEntry*> runtime_without_aot;
    std::vector<std::string> errors; // component errors ExecuTorch raises on (e.g. two runtime nodes)
    // Components with both sides where ExecuTorch's rules produced no pair.
    struct Skipped {
        std::vector<const CaptureRecord*> aot;
        const RuntimeEntry* runtime = nullptr;
        std::string reason;
    };
    std::vector<Skipped> skipped;
    // Reference records inside a compared runtime group that are not its compared
    // (last) output: fused ops whose own result the device never exposed.
    std::vector<std::pair<const CaptureRecord*, const RuntimeEntry*>> fused;
};

// The runtime side of an alignment, which depends on the events alone (§5.2):
// the merged entries, pointing into the events, and the op names per key.
struct RuntimeSide {
    std::vector<RuntimeEntry> entries;
    std::vector<RuntimeOpName> op_names;
};
RuntimeSide runtimeSideOf(const std::vector<InspectorEvent>& events);

// §5.2 + §5.4 over one run's Inspector events and a capture. With the edge
// program (may be null), a delegate call's outputs are paired in the order the
// delegate returns them (delegateOutputOrder) where ExecuTorch's positional rule
// pairs an output with another op; where that order cannot be established, an
// output is paired only with the one op of the group of its size, else the row is
// invalid with the reason.
//
// `ahead`, when given, is runtimeSideOf(events) computed before (EventsBuilt:
// on another core, while the capture was read); it is taken, not copied.
// `maps`, when given, says where a delegate call's handles also appear (HandleSpread).
Alignment alignRuntimeWithCapture(const std::vector<InspectorEvent>& events, const AotCapture& capture,
                                  const ExportGraph* graph = nullptr, RuntimeSide* ahead = nullptr,
                                  const MethodMaps* maps = nullptr);

// Exposed for tests: ExecuTorch's _merge_runtime_debug_handles.
HandleTuple mergeHandleTuples(const HandleTuple& first, const HandleTuple& second);

} // namespace gapscope
