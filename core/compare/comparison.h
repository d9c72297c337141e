#pragma once

#include "core/align/alignment.h"
#include "core/capture/aot_capture.h"
#include "core/common/result.h"
#include "core/compare/coverage_kind.h"
#include "core/compare/element_plan.h"
#include "core/compare/row_status.h"
#include "core/etdump/etdump_model.h"
#include "core/etrecord/etrecord_model.h"
#include "core/metrics/gap_metrics.h"

#include <atomic>
#include <cstdint>
#include <functional>
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
};

struct CoverageItem {
    CoverageKind kind = CoverageKind::UnresolvedEvent;
    std::string what; // op or event name
    HandleTuple handles;
    std::string reason;
};

struct ComparisonOptions {
    // The program method compared; empty: the capture's own method.
    std::string method;
    std::optional<std::size_t> run; // RunData index; default: the first run with debug events
    // Set by a job that may be cancelled (the app's loader): planning checks it
    // between its stages and every 256 rows, and a cancelled plan is an Error of
    // code Cancelled. Planning 50,000 rows takes a quarter of a second, which a
    // Cancel or a quit would otherwise wait for. Null: never cancelled.
    const std::atomic<bool>* cancelled = nullptr;
};

// The program's outputs on the device against the capture's reference outputs.
struct OutputComparison {
    std::size_t index = 0;
    RowStatus status = RowStatus::Ok;
    std::string reason;
    std::string shape, dtype;
    std::optional<GapMetrics> metrics;
};

// What the rows are read from: the run's events and their alignment with the
// capture. Built once by planComparison and never changed after, so every copy
// of a Comparison shares it (rows and coverage point into it). The alignment
// points into `events`: a copy would point into the original, so there is none
// (a move keeps the vector's storage, and with it every pointer).
struct AlignedRun {
    AlignedRun() = default;
    AlignedRun(const AlignedRun&) = delete;
    AlignedRun& operator=(const AlignedRun&) = delete;
    AlignedRun(AlignedRun&&) = default;
    AlignedRun& operator=(AlignedRun&&) = default;

    std::vector<InspectorEvent> events;
    Alignment alignment;
};

// A value: copies are cheap to make safely (the alignment is shared and
// immutable; rows are copied) and independent, so a loader can publish a
// snapshot after each stage while it goes on measuring its own copy. Rows also
// point into the session's inputs (ETDump, capture), which must outlive every
// copy: a Session snapshot holds them.
struct Comparison {
    std::string method; // the program method compared
    std::size_t run = 0;
    // Multi-method programs: per ETDump run, the methods its events fit (see
    // run_methods.h); empty for single-method programs.
    std::vector<std::vector<std::string>> run_methods;
    std::vector<OutputComparison> outputs; // empty when the capture has no reference outputs
    std::shared_ptr<const AlignedRun> aligned;
    std::vector<ComparisonRow> rows;
    std::vector<CoverageItem> coverage;
    std::vector<std::string> warnings;
    // What the session can and cannot tell, where the numbers are right but coarse
    // (delegateGranularityNote): shown apart from the warnings, never a failure.
    std::vector<std::string> notes;

    const std::vector<InspectorEvent>& events() const;
    const Alignment& alignment() const;
};

// A comparison in stages, for a UI that shows the table before the numbers:
// planComparison aligns and reads metadata only; measureRow computes a row's
// metrics from the mapped bytes (thread-safe, touches no Comparison);
// applyMeasurement puts them into the row; finishComparison adds the program
// outputs and the final coverage. compareSession does all of it at once.
struct RowPlan {
    std::size_t row = 0;
    // The row's identity, whose plans are what the row measures: held, not
    // copied (a copy of every element plan was a tenth of opening 50,000 ops).
    std::shared_ptr<const RowIdentity> identity;
    const std::vector<ElementPlan>& elements() const;
    // When ExecuTorch pairs the runtime value with another reference
    // (AlignedPair::executorch_record): its elements, for its own numbers only.
    std::vector<ElementPlan> executorch_elements;
};
struct RowMeasurement {
    std::size_t row = 0;
    std::vector<ElementResult> elements;
};
struct PlannedComparison {
    Comparison comparison;        // rows in `pending` have measured == false
    std::vector<RowPlan> pending; // in row order
};

Result<PlannedComparison> planComparison(const EtDump& dump, const EtRecord* etrecord,
                                         const AotCapture& capture, const ComparisonOptions& options = {});
// `cancelled`: see measureElement.
RowMeasurement measureRow(const RowPlan& plan, unsigned threads = 0,
                          const std::atomic<bool>* cancelled = nullptr);
// Measures [first, first + count), rows in parallel (big tensors also split inside
// when rows are few); a staged load measures a batch at a time. `rowMeasured`, when
// set, is called with each row's plan on the thread that measured it, as soon
// as it is measured: the stage runner gives the row's input pages back there,
// beside the other rows' work, not after the batch on one core.
std::vector<RowMeasurement> measureRows(const RowPlan* first, std::size_t count,
                                        const std::atomic<bool>* cancelled = nullptr,
                                        const std::function<void(const RowPlan&)>& rowMeasured = {});
inline std::vector<RowMeasurement> measureRows(const std::vector<RowPlan>& plans) {
    return measureRows(plans.data(), plans.size());
}
void applyMeasurement(Comparison& c, const RowMeasurement& measurement);
// The device's program outputs against the capture's reference outputs (empty
// when the capture has none). Reads only the inputs: thread-safe.
std::vector<OutputComparison> compareProgramOutputs(const EtDump& dump, const AotCapture& capture,
                                                    std::size_t run);
// Once every row is measured: stores the outputs and rebuilds the coverage.
void finishComparison(Comparison& c, std::vector<OutputComparison> outputs, const EtRecord* etrecord);

// ETDump + ETRecord + AOT capture → one row per compared op. `etrecord` may be
// null (QNN __debugID_ names still resolve). The result points into the inputs,
// which must outlive it.
Result<Comparison> compareSession(const EtDump& dump, const EtRecord* etrecord, const AotCapture& capture,
                                  const ComparisonOptions& options = {});

} // namespace gapscope
