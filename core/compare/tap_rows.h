#pragma once

#include "core/capture/aot_capture.h"
#include "core/compare/comparison_value.h"
#include "core/compare/row_plan.h"
#include "core/etdump/etdump_model.h"

#include <set>
#include <vector>

namespace gapscope {

// Rows for the capture's taps (ExecuTorch's intermediate-output tap, issue 58),
// appended after the rows of the alignment: each tap's device value is the
// compared run's program output at its index, its reference the capture's
// reference output there.
//
// - FULL_TENSOR: a row like any other, measured later (its plan joins
//   `pending`), with every metric.
// - STATS: its fields side by side (TapFields), and the gap they prove
//   (statsBounds) as the row's metrics, flagged `bounds`.
// - Another reducer: its fields side by side, no metric.
//
// Each row is nested under the row whose handles hold the tapped op's (the
// delegate it sees inside), and sorts right after that row's outputs in
// execution order. None is in ExecuTorch's table.
void planTapRows(const EtDump& dump, const AotCapture& capture, Comparison& c, std::vector<RowPlan>& pending);

// The program outputs that are taps: rows, not outputs (compareProgramOutputs
// leaves them out).
std::set<std::size_t> tappedOutputs(const AotCapture& capture);

} // namespace gapscope
