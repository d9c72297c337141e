#pragma once

#include "core/align/alignment.h"
#include "core/capture/capture_tap.h"
#include "core/compare/element_plan.h"
#include "core/compare/reference_probe.h"
#include "core/compare/row_status.h"
#include "core/metrics/gap_metrics.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gapscope {

// What a row aligns with what: the handles, the ops, what each element
// compares. Fixed once the comparison is planned and shared by every snapshot
// of it: a snapshot copies a row's results (ComparisonRow), not this.
//
// Nothing here is a copy of another field: a row's runtime handles and its texts
// are read from where they are held (each copy was an allocation per row, and
// opening 50,000 rows is mostly allocations).
struct RowIdentity {
    HandleTuple aot_debug_handle;
    // ExecuTorch's runtime_debug_handle: a planned row pairs equal tuples
    // (AlignedPair::handles), so it is aot_debug_handle.
    const HandleTuple& runtimeDebugHandle() const { return aot_debug_handle; }
    std::vector<std::string> aot_ops;
    std::vector<std::string> runtime_ops;
    // What each element compares (operands into the mapped inputs, dequantisation,
    // layout), as measured: views read values through ElementReader::of(plan).
    std::vector<ElementPlan> plans;
    const AlignedPair* pair = nullptr;

    // Per element, the plans' texts: "1x4x16" (the reference's shape, with the
    // runtime's when it differs) and "float32 vs float32".
    std::vector<std::string> shapes() const;
    std::vector<std::string> dtypes() const;
};

// A reduced tap's values, field by field (issue 58): what the device's reducer
// wrote and what the same reducer gives on the reference.
struct TapFields {
    std::vector<std::string> names;
    std::vector<double> reference, runtime;
};
// A row of ExecuTorch's intermediate-output tap (tap_rows.h).
struct TapRow {
    std::size_t index = 0; // in AotCapture::taps
    CaptureTap spec;
    std::optional<TapFields> fields; // a reduced tap's (STATS and others)
    // Where it lists in row order: after this row, the last of the delegate
    // call it is nested in (none: after every row). A table in row order shows
    // each tap under its delegate's outputs.
    std::optional<std::size_t> after_row;
};

struct ComparisonRow {
    std::size_t index = 0; // ExecuTorch's row order
    // Shared, never copied by a snapshot; null only in a row built by hand
    // (id() then reads an empty identity).
    std::shared_ptr<const RowIdentity> identity;
    const RowIdentity& id() const;
    const std::vector<ElementPlan>& elementPlans() const { return id().plans; }
    std::int32_t instruction_id = -1;
    int output_index = 0;
    bool in_executorch = true; // ExecuTorch's calculate_numeric_gap has this row
    RowStatus status = RowStatus::Ok;
    std::string reason;
    std::string selection; // how the runtime output was chosen among several
    // One entry per compared element (ExecuTorch's `gap` is a list); empty when invalid.
    std::vector<GapMetrics> gaps;
    // ExecuTorch's calculate_numeric_gap numbers for this row, one per element, as
    // its comparators compute them (broadcasting, no dequantisation); for parity.
    // Null for rows ExecuTorch does not produce or where it raises.
    std::optional<std::vector<ExecutorchGap>> executorch;
    bool dequantized = false;
    // False while the row's metrics are still being computed (a staged load):
    // the identity is known, `gaps` is empty, `status` is provisional.
    bool measured = true;
    // A row of ExecuTorch's intermediate-output tap (issue 58, tap_rows.h), and
    // the row of the delegate (or op) whose handles hold the tapped op's, which
    // it is nested under. Null for every other row.
    std::shared_ptr<const TapRow> tap;
    std::optional<std::size_t> inside;
    // `gaps` holds what a STATS tap's statistics prove (statsBounds): every
    // number a bound, never a measurement.
    bool bounds = false;
    // The reference values a run comparison matches rows by (referenceProbe),
    // read when the row was measured; null before, or for a row built by hand.
    std::shared_ptr<const ReferenceProbe> reference_probe;
};

} // namespace gapscope
