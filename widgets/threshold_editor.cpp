#include "widgets/threshold_editor.h"

#include "widgets/metric_box.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <limits>

namespace gapscope {

namespace {

// "20", "0.001", "1e-06": as many digits as the value has, not six decimals.
class ShortDoubleSpinBox : public QDoubleSpinBox {
public:
    using QDoubleSpinBox::QDoubleSpinBox;
    QString textFromValue(double value) const override { return QString::number(value, 'g', 6); }
    double valueFromText(const QString& text) const override { return text.toDouble(); }
    QValidator::State validate(QString& text, int&) const override {
        bool ok = false;
        text.toDouble(&ok);
        return ok ? QValidator::Acceptable : QValidator::Intermediate;
    }
};

} // namespace

ThresholdEditor::ThresholdEditor(QWidget* parent)
    : QWidget(parent), m_filter(new QCheckBox(tr("only ops past"), this)), m_metric(new QComboBox(this)),
      m_direction(new QLabel(this)), m_value(new ShortDoubleSpinBox(this)) {
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    layout->addWidget(m_filter);
    layout->addWidget(m_metric);
    layout->addWidget(m_direction);
    layout->addWidget(m_value);
    addMetrics(m_metric, nullptr);
    m_value->setDecimals(6);
    m_value->setRange(-std::numeric_limits<double>::max(), std::numeric_limits<double>::max());
    m_value->setKeyboardTracking(false); // one change per edit, not per digit
    m_value->setMinimumWidth(80);
    setToolTip(tr("The threshold an op's gap is judged by: it decides the first divergence (⚑), "
                  "View → Next divergent op (F3), the chart's threshold line and this filter"));
    connect(m_filter, &QCheckBox::toggled, this, &ThresholdEditor::filteringChanged);
    connect(m_metric, qOverload<int>(&QComboBox::activated), this, [this] {
        showDirection();
        emit thresholdChanged(threshold());
    });
    connect(m_value, qOverload<double>(&QDoubleSpinBox::valueChanged), this,
            [this] { emit thresholdChanged(threshold()); });
    showDirection();
}

void ThresholdEditor::setThreshold(const MetricThreshold& t) {
    const QSignalBlocker metric(m_metric), value(m_value);
    selectMetric(m_metric, t.metric);
    m_value->setValue(t.value);
    showDirection();
}

MetricThreshold ThresholdEditor::threshold() const {
    return {selectedMetric(m_metric), m_value->value()};
}

bool ThresholdEditor::filtering() const {
    return m_filter->isChecked();
}

void ThresholdEditor::showDirection() {
    m_direction->setText(metricInfo(threshold().metric).higher_is_worse ? QStringLiteral(">")
                                                                        : QStringLiteral("<"));
}

} // namespace gapscope
