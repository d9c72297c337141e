#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace gapscope {

// What Gapscope must know about one ExecuTorch delegate beyond ExecuTorch's
// Inspector rules, as one table the resolver, the alignment and the planner
// read, instead of comparing the backend's name in each of them. A backend with
// no table (XNNPACK, the portable kernels, any delegate not listed) follows
// the Inspector's rules alone. Adding a backend is one file in core/backends/
// that defines its table, and its line in backend_conventions.cpp
// (docs/architecture.md, "Adding a backend").
//
// Quantisation needs no entry: every backend's device tensors are dequantised
// with the parameters the capture records for that output (the QNN debugger's
// per-tensor encodings, or the program's quantize ops), whatever the backend.
struct BackendConventions {
    std::string_view backend; // as the delegate writes it into the ETRecord ("QnnBackend")
    std::string_view label;   // as messages name it ("QNN")

    // Name patterns and multi-output resolution: the delegate logs output k of
    // a node as "<node>@<k>", so the index picks the node's output, and the
    // outputs of a node the delegate_map leaves out are found by <node> in the
    // op graph. A graph output's name carries this prefix before <node>.
    bool output_index_in_name = false;
    std::string_view graph_output_prefix;

    // Internal tensors: the delegate_map maps every op the delegate lowered, so
    // a delegated event without a debug handle is a tensor the delegate added
    // itself; this says what such tensors are. Empty: an unresolved event.
    std::string_view internal_tensor_reason;

    // Layout: the device may hold tensors of ranks [min, max] in another layout
    // (channels last), so a capture that does not record each output's layout
    // cannot be compared at those ranks. {0, 0}: never.
    std::size_t relaid_min_rank = 0, relaid_max_rank = 0;

    // The ETRecord graph whose debug handles the delegate_map uses, when it is
    // not the exported program's own; empty otherwise.
    std::string_view reference_graph;
    // How to capture a reference that fits these rules, for messages.
    std::string_view capture_hint;

    // Per-op profiling events inside a delegate call, named
    // "<node><op_event_marker><n> (<unit>)" (QNN's detailed profile:
    // "aten_linear_default:OpId_12 (cycles)"); empty: the backend logs none.
    std::string_view op_event_marker;
    // The unit of those events that counts on the delegate's own clock, whose
    // share of the call's total apportions the call's time ("cycles").
    std::string_view op_event_clock_unit;

    // ExecuTorch's Inspector reads this delegate's runs (an ETDump). False where
    // Gapscope reads the backend's own run in its place (Arm's TOSA run,
    // backend_run.h): ExecuTorch computes no number for such a row, so none is
    // shown as ExecuTorch's.
    bool inspector_reads_runs = true;

    bool relaidAt(std::size_t rank) const {
        return relaid_max_rank > 0 && rank >= relaid_min_rank && rank <= relaid_max_rank;
    }
};

// The conventions of `backend`; the Inspector's rules alone (a table with
// every field empty) for a backend without one.
const BackendConventions& backendConventions(std::string_view backend);

// One table per file (core/backends/<backend>_conventions.cpp).
const BackendConventions& qnnConventions();
const BackendConventions& armConventions();
const BackendConventions& ethosUConventions();

// A delegate's tensor named "<node>@<k>" (output_index_in_name: QNN's "split@1",
// "output_topk@0"): the node ("split"; the whole name without an '@' or with one
// at its start), and k when the text after the last '@' is a decimal of at most
// 1,000,000. The one reader of this naming (issue 57: three split it).
struct DelegateTensorName {
    std::string_view node;
    std::optional<int> output;
};
DelegateTensorName delegateTensorName(std::string_view name);

// A delegate's per-op profiling event, read by the conventions of the backend
// whose naming it follows: views into the name.
struct DelegateOpEvent {
    std::string_view node, unit;
    bool own_clock = false; // its unit is the backend's op_event_clock_unit
};
std::optional<DelegateOpEvent> delegateOpEvent(std::string_view name);

} // namespace gapscope
