#pragma once

#include "core/compare/comparison_value.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace gapscope {

// Every metric Gapscope reports (formulas: docs/metrics.md).
enum class Metric {
    Mse,
    L1,
    Snr,
    MeanAbs,
    MaxAbs,
    RelL2,
    Cosine,
    Sqnr,
    RmseSteps,
    MaxAbsSteps,
    Saturation,
    Top1,
    Top5,
#ifdef GAPSCOPE_PROBE_METRIC
    // Only in the sanitizer build (GAPSCOPE_PROBE_METRIC): a metric added here and
    // in the catalog alone, which tests/widgets/tst_probe_metric.cpp finds in every
    // table, chart, report and gate.
    Probe,
#endif
};

// How a metric's value is written for a reader (the table; the reports keep full precision).
enum class MetricFormat {
    Number,  // three significant digits
    Precise, // six: quantised backends score cosines of 0.9999x
    Percent  // a share, shown ×100
};

// The one description of a metric that the CLI, the reports (CSV, JSON), the
// gates, the table and the chart all read. A metric is added here (and to the
// enum above) and nowhere else.
struct MetricInfo {
    Metric id;
    const char* name;     // the key users type and reports use: "rel_l2"
    const char* label;    // a column or axis title: "Rel. L2"
    bool higher_is_worse; // mse: higher is worse; snr, cosine: lower is worse
    bool executorch;      // ExecuTorch's calculate_numeric_gap defines it too
    bool charted;         // offered by the gap chart
    bool tabled;          // a column of the op table
    MetricFormat format;
    const char* tip; // what a table cell means, when the label does not say it; nullptr otherwise
    // Its column title in the Markdown report's table; nullptr: not a column there.
    const char* summary_label;
    // The value for one compared element; nullopt when it does not apply (no
    // quantisation scale, not logits).
    std::optional<double> (*value)(const GapMetrics&);
};

// In report order: ExecuTorch's three first.
const std::vector<MetricInfo>& metricCatalog();
const MetricInfo& metricInfo(Metric metric);
// The sign before a bound that a STATS tap's statistics prove (issue 58): "≤ "
// before a value that may be better (an SNR at most), "≥ " before an error that
// may be larger. Views and reports write bounds with it.
const char* boundSign(Metric metric);
// The metric's position in metricCatalog(): the catalog is in enum order, so a
// vector of values "one per catalog entry" is indexed by the metric itself.
inline std::size_t metricIndex(Metric metric) {
    return static_cast<std::size_t>(metric);
}
std::optional<MetricInfo> findMetric(const std::string& name);
// The metric's key ("rel_l2"): what reports and settings write.
inline std::string metricName(Metric metric) {
    return metricInfo(metric).name;
}
// The metrics a view or report shows, in catalog order: those `shown` keeps
// (the table's: `[](const MetricInfo& m) { return m.tabled; }`).
std::vector<Metric> metricsWhere(bool (*shown)(const MetricInfo&));
// The Markdown and text summaries' columns (MetricInfo::summary_label).
const std::vector<Metric>& summaryMetrics();
// "mse, l1, snr, …": for messages.
std::string metricNames();

// One metric of one element; nullopt when it does not apply (no scale, not logits).
std::optional<double> metricValue(const GapMetrics& m, Metric metric);
// The row's value: the worst over its elements; nullopt for invalid rows.
std::optional<double> rowMetric(const ComparisonRow& row, Metric metric);
// value is worse than limit in the metric's direction.
bool worseThan(const MetricInfo& metric, double value, double limit);

// Metric names are parsed only where users and files give them (the CLI,
// settings, JSON): past that edge, a threshold holds the metric itself.
struct MetricThreshold {
    Metric metric = Metric::Snr;
    double value = 0;
};
// The first-divergence threshold when none is asked for (the CLI, the app's
// first start, a stale setting): SNR below 20 dB. Written here only.
inline const MetricThreshold kDefaultThreshold{Metric::Snr, 20.0};
// The same threshold on another metric, where one value of it is equivalent for
// every row: the metric itself, and SNR, SQNR and relative L2, which are one
// quantity (SNR = SQNR = −20·log10(rel. L2); docs/metrics.md). Nullopt
// otherwise (an MSE limit depends on each row's signal power).
std::optional<double> thresholdOn(const MetricThreshold& threshold, Metric metric);
// "SNR dB < 20": the threshold as a user reads it (label, direction, value).
std::string describeThreshold(const MetricThreshold& threshold);

// "mse=1e-3" → threshold; an error message otherwise.
std::optional<MetricThreshold> parseThreshold(const std::string& text, std::string& error);

} // namespace gapscope
