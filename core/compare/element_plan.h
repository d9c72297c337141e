#pragma once

#include "core/align/debug_handle_resolver.h"
#include "core/align/runtime_value.h"
#include "core/capture/aot_capture.h"
#include "core/compare/row_status.h"
#include "core/etdump/etdump_model.h"
#include "core/metrics/gap_metrics.h"

#include <atomic>
#include <optional>
#include <string>

namespace gapscope {

// One compared element (a reference value against a runtime value), planned from
// metadata alone so a table can show shapes and dtypes before any tensor byte is
// read. The operands are views into the mapped inputs: measuring a plan touches
// nothing else, so it may run on another thread while the comparison is shown.
struct ElementPlan {
    RowStatus status = RowStatus::Ok; // MissingData or Invalid: nothing to measure
    std::string reason;
    std::string shape; // the reference's, "1x4x16" or "scalar"
    std::string dtype; // "float32 vs int8 (dequantized)"
    bool dequantized = false;
    Operand reference, runtime;
    GapOptions options;
    // The runtime shape as logged, when it differs from the reference's only by
    // size-1 dimensions (1x5x32 against 5x32: the same elements in the same
    // order): `runtime` then carries the reference's shape and is compared element
    // for element. ExecuTorch broadcasts such shapes instead (see ElementResult).
    std::optional<std::vector<std::int64_t>> logged_shape;
    // logged_shape differs by more than size-1 dimensions: adjacent dimensions
    // merged or split (64x384 against 1x8x8x384).
    bool reshaped = false;
    // Compute ExecuTorch's numbers too (ElementResult::executorch): only for rows
    // ExecuTorch produces, since they may take a second pass over the tensors.
    bool executorch_numbers = true;

    bool measurable() const { return status == RowStatus::Ok; }
};

// ExecuTorch's three numbers for an element, as its comparators compute them:
// the operands as they are (no dequantisation, no re-layout), torch broadcasting.
struct ExecutorchGap {
    double mse = 0, l1 = 0, snr = 0;
};

// What measuring an element found.
struct ElementResult {
    RowStatus status = RowStatus::Ok;
    std::string reason;
    std::optional<GapMetrics> metrics;
    // Null where ExecuTorch's comparators would raise (shapes that do not broadcast).
    std::optional<ExecutorchGap> executorch;
    // Why ExecuTorch's comparison of another pairing fails, when it does (its
    // positional rule pairs a delegate output with another op of the group).
    std::string executorch_problem;
};

// `record` (may be null) gives the quantisation and axis order of output `element`.
// `backend` names the delegate that logged the runtime value ("" when none): a
// QNN tensor may be laid out channels-last, so its layout must be known.
//
// Never a silent wrong number: an integer runtime tensor against a floating-point
// reference without quantisation parameters, an axis_order that does not fit the
// runtime tensor, and a QNN tensor of rank 3 to 5 whose layout the capture does
// not record are Invalid rows with the reason, whatever the shapes.
ElementPlan planElement(const EtDump& dump, const AotCapture& capture, const CaptureRecord* record,
                        std::size_t element, const CaptureValue& reference, const RuntimeValue& runtime,
                        const std::string& backend = {});

// Computes the metrics of a measurable plan; otherwise returns the plan's status.
// Once `cancelled` is set the result is the Invalid status "cancelled", which a
// caller that cancelled drops.
ElementResult measureElement(const ElementPlan& plan, unsigned threads = 0,
                             const std::atomic<bool>* cancelled = nullptr);
// The same with the plan's pair already measured (computeGaps, several rows'
// pairs at once): `gap` is computeGap(plan.reference, plan.runtime,
// measuringOptions(plan, threads, cancelled)).
ElementResult measureElement(const ElementPlan& plan, GapResult gap, unsigned threads = 0,
                             const std::atomic<bool>* cancelled = nullptr);
// The options measureElement measures the plan's pair with.
GapOptions measuringOptions(const ElementPlan& plan, unsigned threads, const std::atomic<bool>* cancelled);

} // namespace gapscope
