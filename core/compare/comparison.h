#pragma once

#include "core/capture/aot_capture.h"
#include "core/common/result.h"
#include "core/compare/comparison_options.h"
#include "core/compare/comparison_row.h"
#include "core/compare/comparison_value.h"
#include "core/compare/events_built.h"
#include "core/compare/row_plan.h"
#include "core/etdump/etdump_model.h"
#include "core/etrecord/etrecord_model.h"

#include <atomic>
#include <cstddef>
#include <functional>
#include <vector>

namespace gapscope {

// The comparison of one run with its reference, in stages, for a UI that shows
// the table before the numbers. Its types live in files of their own
// (comparison_row.h, comparison_value.h, row_plan.h, comparison_options.h), so
// that the helpers planning and measuring rows include what they use, never
// this header back (issue 57).
//
// planComparison aligns and reads metadata only; measureRow computes a row's
// metrics from the mapped bytes (thread-safe, touches no Comparison);
// applyMeasurement puts them into the row; finishComparison adds the program
// outputs and the final coverage. compareSession does all of it at once.
// `ahead`: the run's events the read stage built beside the capture read
// (EventsBuilt), taken when they are of the run and maps planned; else built here.
Result<PlannedComparison> planComparison(const EtDump& dump, const EtRecord* etrecord,
                                         const AotCapture& capture, const ComparisonOptions& options = {},
                                         std::optional<EventsBuilt> ahead = std::nullopt);
// `cancelled`: see measureElement.
RowMeasurement measureRow(const RowPlan& plan, unsigned threads = 0,
                          const std::atomic<bool>* cancelled = nullptr);
// The same with the pairs of plan.elements() already measured (computeGaps),
// in order; an element past the end of `gaps` is measured here.
RowMeasurement measureRow(const RowPlan& plan, std::vector<GapResult> gaps, unsigned threads,
                          const std::atomic<bool>* cancelled);
// How many rows measureRows measures together at most: enough for computeGaps
// to fill its four lanes where a few rows do not fit them.
constexpr std::size_t kRowsMeasuredTogether = 8;
// Measures [first, first + count), rows in parallel, up to kRowsMeasuredTogether
// rows a task (big tensors also split inside when rows are few); a staged load
// measures a batch at a time. `rowMeasured`, when set, is called with each row's
// plan on the thread that measured it, once its task is done: the stage runner
// hands the row's input pages to its releaser there, beside the other rows' work.
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
                                                    const Comparison& c);
// The device's program outputs for the compared run, flattened (a TensorList
// counted as its tensors): the outputs the user saved (Comparison::saved_outputs)
// at the run's execution when given, else the ETDump's.
std::vector<RuntimeValue> deviceOutputs(const EtDump& dump, const Comparison& c);
// Once every row is measured: stores the outputs and rebuilds the coverage.
void finishComparison(Comparison& c, std::vector<OutputComparison> outputs, const EtRecord* etrecord);

// ETDump + ETRecord + AOT capture → one row per compared op. `etrecord` may be
// null (QNN __debugID_ names still resolve). The result points into the inputs,
// which must outlive it.
Result<Comparison> compareSession(const EtDump& dump, const EtRecord* etrecord, const AotCapture& capture,
                                  const ComparisonOptions& options = {});

} // namespace gapscope
