#pragma once

#include "core/compare/metric_catalog.h"
#include "core/runs/run_match.h"
#include "core/runs/run_summary.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gapscope {

// A decode loop as a matrix (docs/compare-runs.md, "Decode steps"): one row per
// op, one column per step (each execution compared with its own step capture),
// one metric's row values. Ops are the same node from step to step (the steps
// run one program): keyed by the compared node's handle and output index, in
// the first step's graph order; an op a later step adds is appended.
struct StepMatrix {
    Metric metric = Metric::Snr;
    // The values are how much worse B is than A (buildStepDifference), not the metric.
    bool difference = false;
    std::vector<std::string> ops; // the compared node of each op row
    std::size_t steps = 0;
    // ops.size() × steps, op-major; NaN where the op has no value at that step.
    std::vector<double> values;
    // The row of each op at each step (RunRow::index), −1 where the step lacks it.
    std::vector<std::int64_t> rows;
    // The first step at which any op crosses the threshold, and that op (the
    // first in graph order); the step and op of the worst value overall.
    struct Cell {
        std::size_t step = 0, op = 0;
        double value = 0;
        bool bound = false; // a STATS tap's: what statistics prove (boundAt)
    };
    std::optional<Cell> first_crossing, worst;

    double at(std::size_t op, std::size_t step) const { return values[op * steps + step]; }
    std::int64_t rowAt(std::size_t op, std::size_t step) const { return rows[op * steps + step]; }
    // Per cell (op-major, as values), whether its value is a bound (a STATS tap's
    // row: an SNR at most, an error at least; docs/metrics.md). Empty when none is.
    std::vector<char> bounded;
    bool boundAt(std::size_t op, std::size_t step) const {
        return !bounded.empty() && bounded[op * steps + step];
    }
};

StepMatrix buildStepMatrix(const std::vector<RunSummary>& steps, Metric metric,
                           const MetricThreshold& threshold);

// Two decode loops step by step (the A/B of steps): step k of A against step k
// of B, their rows paired as two runs' rows are (matchRuns), over the steps both
// have. Ops and rows are A's (buildStepMatrix); each value is how much worse B
// is than A on `metric` (MetricDelta::worse_by: positive is worse, +∞ where A
// had a number and B has none), NaN where the op has no partner in B at that
// step. first_crossing: the first step where B is worse than A by more than
// `margin` (in the metric's unit); worst: the largest finite worse_by (+∞ only
// when every value is).
StepMatrix buildStepDifference(const std::vector<RunSummary>& a, const std::vector<RunSummary>& b,
                               Metric metric, double margin);
// The same with the steps already paired (matchSteps): the pairing depends on
// neither the metric nor the margin, so a view pairs once and rebuilds from it.
StepMatrix buildStepDifference(const std::vector<RunSummary>& a, const std::vector<RunSummary>& b,
                               const std::vector<RunMatch>& matches, Metric metric, double margin);
// Step k of A paired with step k of B (matchRuns), over the steps both have.
std::vector<RunMatch> matchSteps(const std::vector<RunSummary>& a, const std::vector<RunSummary>& b);

} // namespace gapscope
