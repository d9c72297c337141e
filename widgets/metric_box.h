#pragma once

#include "core/compare/metric_catalog.h"

class QComboBox;

namespace gapscope {

// The metric choosers of the charts, the A/B table, the steps and the threshold:
// the catalog's metrics that `offered` keeps, labelled as the catalog writes them
// (UTF-8: "Max |Δ|"), each item's data its Metric.
void addMetrics(QComboBox* box, bool (*offered)(const MetricInfo&));
inline bool charted(const MetricInfo& m) {
    return m.charted;
}
// Selects `metric` when the box offers it (else leaves the box as it is).
void selectMetric(QComboBox* box, Metric metric);
Metric selectedMetric(const QComboBox* box);

} // namespace gapscope
