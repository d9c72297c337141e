#pragma once

#include "core/compare/comparison_value.h"
#include "core/compare/metric_catalog.h"
#include "core/etrecord/etrecord_model.h"

#include <optional>
#include <vector>

namespace gapscope {

// Row indices in execution order: instruction id, then output index.
std::vector<std::size_t> executionOrder(const Comparison& c);

// Whether a row's metric is worse than the threshold. Only rows compared element
// for element (status ok) can cross it: a broadcast row's numbers mix unrelated
// elements, and an invalid row has none. Nor can a row whose outputs agree
// exactly, whatever its metrics (SNR of two zero tensors is 0/0 = NaN, which
// would otherwise count as the worst value). The first divergence, the app's
// "next past the threshold" and its threshold filter all use this.
bool crossesThreshold(const ComparisonRow& row, const MetricThreshold& threshold);
// Whether any row has numbers. None (another model's capture, a method the
// program lacks, the method-load block, no debug buffer) is a comparison warning
// and fails every gate.
bool comparedAnything(const Comparison& c);

// The same rule for a program output: compared element for element, not in exact
// agreement (an all-zero output's SNR is 0/0), and worse than the threshold.
bool crossesThreshold(const OutputComparison& output, const MetricThreshold& threshold);

// The next (direction +1) or previous (−1) row in execution order after row
// `from` (none: the first row) that crosses the threshold, wrapping around; none
// when no row does. The app's "next/previous past the threshold".
std::optional<std::size_t> stepPastThreshold(const Comparison& c, std::optional<std::size_t> from,
                                             int direction, const MetricThreshold& threshold);

// The first row in execution order (instruction id, then output index) that
// crosses the threshold.
struct FirstDivergence {
    std::size_t row = 0;
    MetricThreshold threshold;
    double value = 0;
};
std::optional<FirstDivergence> firstDivergence(const Comparison& c, const MetricThreshold& threshold);
// The compared row whose value of `metric` is worst (the first in execution
// order among equals), leaving out rows in exact agreement; none when no row
// has a value. What the app offers when no op crosses the threshold.
std::optional<FirstDivergence> worstRow(const Comparison& c, const MetricThreshold& threshold);

// Rows ranked by the error they add: own rel_l2 minus the worst rel_l2 among the
// rows that produce their inputs. Producer edges come from the reference graph;
// without one (a QNN session with no ETRecord), the row measured just before in
// execution order stands in as the only producer, which is exact for a chain and
// an approximation for branches (docs/metrics.md).
struct Introducer {
    std::size_t row = 0;
    double own = 0;
    double worst_producer = 0;
    double added = 0;
    std::vector<std::size_t> producers;
    bool producers_from_graph = true;
    // How much the op multiplies the error it receives, in dB:
    // 20·log10((own + floor) / (worst_producer + floor)), floor = roundingFloor(row).
    // Ranks where drift starts; `added` ranks what contributes most to the final
    // error, which favours late ops when error compounds. NaN for a row with no
    // measured producer (its inputs are the program's): it receives no error to
    // multiply, and a ratio against the floor alone would flag every first op.
    double gain_db = 0;
    static constexpr double kErrorFloor = 1e-6; // rel. L2 of float32 rounding noise, a few ulps
};
// The introducer with the largest gain, if any op at least doubles the error it
// receives (gain ≥ 6 dB).
std::optional<Introducer> strongestGain(const std::vector<Introducer>& introducers);

// The rel. L2 below which a row's error is rounding: float32's few ulps
// (Introducer::kErrorFloor), or, for a row whose quantisation step is known, the
// rounding noise of one step, step/√12 over the reference's RMS
// (= rel_l2 / (rmse_steps·√12)). A gain is measured over this floor, so a row that
// agrees to within rounding shows no growth.
double roundingFloor(const ComparisonRow& row);
double gainDb(double own, double producer, double floor);
std::vector<Introducer> errorIntroducers(const Comparison& c, const ExportGraph* referenceGraph);

// The ETRecord graph a capture was taken from (exported_program, the Edge
// program of its method, or a graph-map key); for another reference (a float
// model) the ETRecord graph that names most of its ops; null if none does.
const ExportGraph* referenceGraphFor(const EtRecord& record, const AotCapture& capture);

} // namespace gapscope
