#pragma once

#include "core/compare/metric_catalog.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;

namespace gapscope {

// The threshold where it acts: "only ops past [SNR dB] < [20]". The metric and
// value are editable; the box filters the table to the ops past it. The same
// threshold decides the first divergence, F3's next op past it and the chart's
// threshold line, which the tooltip says.
class ThresholdEditor : public QWidget {
    Q_OBJECT
public:
    explicit ThresholdEditor(QWidget* parent = nullptr);

    void setThreshold(const MetricThreshold& threshold); // emits nothing
    MetricThreshold threshold() const;
    bool filtering() const;
    QCheckBox* filterBox() const { return m_filter; }
    QComboBox* metricBox() const { return m_metric; }
    QDoubleSpinBox* valueBox() const { return m_value; }

signals:
    void thresholdChanged(const gapscope::MetricThreshold& threshold);
    void filteringChanged(bool on);

private:
    void showDirection();

    QCheckBox* m_filter;
    QComboBox* m_metric;
    QLabel* m_direction;
    QDoubleSpinBox* m_value;
};

} // namespace gapscope
