#include "widgets/metric_box.h"

#include <QComboBox>

namespace gapscope {

void addMetrics(QComboBox* box, bool (*offered)(const MetricInfo&)) {
    for (const auto& m : metricCatalog())
        if (!offered || offered(m))
            box->addItem(QString::fromUtf8(m.label), static_cast<int>(m.id));
}

void selectMetric(QComboBox* box, Metric metric) {
    const int at = box->findData(static_cast<int>(metric));
    if (at >= 0)
        box->setCurrentIndex(at);
}

Metric selectedMetric(const QComboBox* box) {
    return static_cast<Metric>(box->currentData().toInt());
}

} // namespace gapscope
