#pragma once

#include "core/compare/metric_catalog.h"
#include "core/runs/run_match.h"

#include <optional>
#include <string>
#include <vector>

namespace gapscope {

// One metric of one pairing: each side's value, exactly as that run gives it
// alone, and how they differ (docs/compare-runs.md).
struct MetricDelta {
    std::optional<double> a, b;
    std::optional<double> delta; // b − a, in the metric's unit (ΔSNR in dB)
    // How much worse B is than A in the metric's direction: a − b for SNR,
    // SQNR, cosine and top-k (lower is worse), b − a for the error metrics.
    // Positive: B is worse. +∞ when A had a number and B has none or NaN.
    // Levels in dB (SNR, SQNR) count up to kRoundingFloorDb only: above it is
    // rounding, so +∞ against 127 dB is worse by 0, and +∞ against 40 by 60.
    std::optional<double> worse_by;
};

MetricDelta metricDelta(const RunSummary& a, const RunSummary& b, const RowPairing& p, Metric metric);
// The same for two values.
MetricDelta metricDelta(const MetricInfo& metric, std::optional<double> a, std::optional<double> b);

// Two runs and how their rows pair: an immutable value a view reads (the app's
// A/B tab), made off the UI thread.
struct ComparedRuns {
    RunSummary a, b;
    RunMatch match;
};
ComparedRuns compareRuns(RunSummary a, RunSummary b);

// A pairing worse in B than in A by more than a margin (`--fail-if-worse`).
struct Regression {
    std::size_t pairing = 0; // into RunMatch::pairs
    MetricThreshold margin;
    MetricDelta values;
};

// Every pairing worse by more than one of the margins (a margin's value is in
// its metric's unit: snr=3 is 3 dB). A row of A with a number whose partner in
// B has none (now invalid) is worse by any margin; rows of one side only are
// not regressions (the caller lists them).
//
// The noise floor (issue 56): a pairing whose two sides both agree with their
// references to kRoundingFloorDb of SNR or better is judged by no margin. Two
// healthy fp32 backends differ at rounding level, 120 to 150 dB (a ReLU at 131
// against 127 dB), and a 3 dB margin there is noise, not a regression.
constexpr double kRoundingFloorDb = 100.0;
std::vector<Regression> regressions(const RunSummary& a, const RunSummary& b, const RunMatch& match,
                                    const std::vector<MetricThreshold>& margins);

// The pairings in order of how much worse B is on `metric`, the worst first;
// pairings without a value last, in their order.
std::vector<std::size_t> rankByWorsening(const RunSummary& a, const RunSummary& b, const RunMatch& match,
                                         Metric metric);

} // namespace gapscope
