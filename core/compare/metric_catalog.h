#pragma once

#include "core/compare/comparison.h"

#include <optional>
#include <string>
#include <vector>

namespace gapscope {

// Names users give metrics (CLI, settings, report keys) and which way is worse.
struct MetricInfo {
    const char* name;
    bool higher_is_worse; // mse: higher is worse; snr, cosine: lower is worse
};

const std::vector<MetricInfo>& metricCatalog();
std::optional<MetricInfo> findMetric(const std::string& name);

// One metric of one element; nullopt when it does not apply (no scale, not logits).
std::optional<double> metricValue(const GapMetrics& m, const std::string& name);
// The row's value: the worst over its elements; nullopt for invalid rows.
std::optional<double> rowMetric(const ComparisonRow& row, const std::string& name);
// value is worse than limit in the metric's direction.
bool worseThan(const MetricInfo& metric, double value, double limit);

struct MetricThreshold {
    std::string metric;
    double value = 0;
};
// "mse=1e-3" → threshold; an error message otherwise.
std::optional<MetricThreshold> parseThreshold(const std::string& text, std::string& error);

} // namespace gapscope
