#include "widgets/step_matrix_view.h"

#include "core/report/text_format.h"
#include "widgets/metric_box.h"
#include "widgets/metric_colors.h"
#include "widgets/new_plot.h"
#include "widgets/plot_export.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QSplitter>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

namespace gapscope {

StepMatrixView::StepMatrixView(QWidget* parent)
    : QWidget(parent), m_summary(new QLabel(this)), m_metricBox(new QComboBox(this)), m_heat(newPlot(this)),
      m_map(new QCPColorMap(m_heat->xAxis, m_heat->yAxis)), m_drift(newPlot(this)),
      m_showBox(new QComboBox(this)), m_marginBox(new QDoubleSpinBox(this)) {
    m_showBox->addItem(tr("A"), ShowA);
    m_showBox->addItem(tr("B"), ShowB);
    m_showBox->addItem(tr("B worse than A by"), ShowDifference);
    m_showBox->setToolTip(tr("A's decode loop, B's, or how much worse B is than A, step by step "
                             "(a click selects an op in A, which the window shows)"));
    m_marginBox->setRange(0, 1e6);
    m_marginBox->setDecimals(3);
    m_marginBox->setValue(m_margin);
    m_marginBox->setToolTip(
        tr("The first crossing: the first step where B is worse than A by more than this"));
    addMetrics(m_metricBox, charted);
    selectMetric(m_metricBox, m_metric);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* scale = new QCPColorScale(m_heat);
    m_heat->plotLayout()->addElement(0, 1, scale);
    m_map->setColorScale(scale);
    m_map->setInterpolate(false);
    m_heat->yAxis->setRangeReversed(true); // the first op on top, as in the table
    m_heat->xAxis->setLabel(tr("step (execution)"));
    m_heat->yAxis->setLabel(tr("op, in graph order"));
    m_heat->setMinimumSize(240, 100);
    m_drift->setMinimumSize(240, 100);
    // A line per op and no legend shown: QCustomPlot would still add each line to
    // its legend, and clearing n lines relays the legend out n times (O(n²)):
    // redrawing a 3,000-op matrix took 13 s of the UI thread.
    m_drift->setAutoAddPlottableToLegend(false);
    m_drift->xAxis->setLabel(tr("step (execution)"));
    enablePlotExport(m_heat, QStringLiteral("steps-heatmap.png"));
    enablePlotExport(m_drift, QStringLiteral("steps-drift.png"));

    auto* top = new QHBoxLayout;
    top->addWidget(m_summary, 1);
    top->addWidget(m_showBox);
    top->addWidget(m_marginBox);
    top->addWidget(new QLabel(tr("Metric:"), this));
    top->addWidget(m_metricBox);
    m_showBox->hide(); // until B is a decode loop too
    m_marginBox->hide();
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->setObjectName(QStringLiteral("stepsSplitter"));
    split->addWidget(m_heat);
    split->addWidget(m_drift);
    split->setChildrenCollapsible(false);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(split, 1);

    connect(m_metricBox, &QComboBox::currentIndexChanged, this,
            [this] { setMetric(selectedMetric(m_metricBox)); });
    connect(m_showBox, &QComboBox::currentIndexChanged, this,
            [this] { setShow(static_cast<Show>(m_showBox->currentData().toInt())); });
    connect(m_marginBox, &QDoubleSpinBox::valueChanged, this, [this](double v) { setMargin(v); });
    connect(m_heat, &QCustomPlot::mousePress, this, [this](QMouseEvent* e) {
        // B's rows are not the window's session's: a click on B's matrix selects nothing.
        if (m_matrix.ops.empty() || e->button() != Qt::LeftButton || m_show == ShowB)
            return;
        const long step = std::lround(m_heat->xAxis->pixelToCoord(e->position().x()));
        const long op = std::lround(m_heat->yAxis->pixelToCoord(e->position().y()));
        if (step >= 0 && op >= 0 && static_cast<std::size_t>(step) < m_matrix.steps &&
            static_cast<std::size_t>(op) < m_matrix.ops.size())
            emit cellClicked(static_cast<std::size_t>(op), static_cast<std::size_t>(step));
    });
    setMessage(tr("A decode loop's steps show here: a session whose ETDump holds several executions of the "
                  "method, each with its step capture (docs/llm.md)."));
}

void StepMatrixView::setSteps(std::shared_ptr<const SessionSteps> steps, const MetricThreshold& threshold) {
    if (steps != m_steps)
        m_stepMatches.reset();
    m_steps = std::move(steps);
    m_threshold = threshold;
    rebuild();
}

void StepMatrixView::setMessage(const QString& text) {
    m_steps.reset();
    m_stepMatches.reset();
    m_matrix = {};
    m_summary->setText(text);
    draw();
}

void StepMatrixView::setStepsB(std::shared_ptr<const SessionSteps> steps) {
    m_stepsB = std::move(steps);
    m_stepMatches.reset();
    m_showBox->setVisible(m_stepsB != nullptr);
    if (!m_stepsB && m_show != ShowA)
        setShow(ShowA);
    else
        rebuild();
}

void StepMatrixView::setShow(Show show) {
    m_show = m_stepsB ? show : ShowA;
    const int i = m_showBox->findData(static_cast<int>(m_show));
    if (i >= 0 && i != m_showBox->currentIndex())
        m_showBox->setCurrentIndex(i);
    m_marginBox->setVisible(m_show == ShowDifference);
    rebuild();
}

void StepMatrixView::setMargin(double margin) {
    m_margin = margin;
    if (m_marginBox->value() != margin)
        m_marginBox->setValue(margin);
    rebuild();
}

void StepMatrixView::setMetric(Metric metric) {
    m_metric = metric;
    selectMetric(m_metricBox, metric); // no signal when it is the one shown
    rebuild();
}

void StepMatrixView::setSelected(std::optional<std::size_t> op, std::optional<std::size_t> step) {
    m_op = op;
    m_step = step;
    draw();
}

std::optional<std::size_t> StepMatrixView::opOfRow(std::size_t step, std::size_t row) const {
    if (step >= m_matrix.steps)
        return std::nullopt;
    for (std::size_t op = 0; op < m_matrix.ops.size(); ++op)
        if (m_matrix.rowAt(op, step) == static_cast<std::int64_t>(row))
            return op;
    return std::nullopt;
}

void StepMatrixView::rebuild() {
    if (!m_steps)
        return;
    if (m_show == ShowDifference && m_stepsB) {
        if (!m_stepMatches) // once per pair of loops: a metric or margin changes nothing of it
            m_stepMatches = matchSteps(m_steps->steps, m_stepsB->steps);
        m_matrix = buildStepDifference(m_steps->steps, m_stepsB->steps, *m_stepMatches, m_metric, m_margin);
    } else
        m_matrix = buildStepMatrix(m_show == ShowB && m_stepsB ? m_stepsB->steps : m_steps->steps, m_metric,
                                   m_threshold);
    m_summary->setText(summaryText());
    draw();
}

QString StepMatrixView::summaryText() const {
    const auto cell = [this](const StepMatrix::Cell& c) {
        return tr("step %1 (%2, %3)")
            .arg(c.step)
            .arg(QString::fromStdString(m_matrix.ops[c.op]))
            .arg((c.bound ? QString::fromUtf8(boundSign(m_metric)) : QString()) +
                 QString::fromStdString(shortNumber(c.value)));
    };
    const auto& loop = m_show == ShowB && m_stepsB ? *m_stepsB : *m_steps;
    QString text = tr("%1 steps × %2 ops. ").arg(m_matrix.steps).arg(m_matrix.ops.size());
    if (m_matrix.difference) {
        const QString label = QString::fromLatin1(metricInfo(m_metric).label);
        text = tr("B against A, step by step: %1 steps both have × %2 ops of A; B worse by, in %3. ")
                   .arg(m_matrix.steps)
                   .arg(m_matrix.ops.size())
                   .arg(label);
        text += m_matrix.first_crossing
                    ? tr("First step B is worse by more than %1: %2. ")
                          .arg(QString::fromStdString(shortNumber(m_margin)), cell(*m_matrix.first_crossing))
                    : tr("B is nowhere worse by more than %1. ")
                          .arg(QString::fromStdString(shortNumber(m_margin)));
        if (m_matrix.worst)
            text += tr("Worst: %1.").arg(cell(*m_matrix.worst));
        const auto endless = std::count_if(m_matrix.values.begin(), m_matrix.values.end(),
                                           [](double v) { return std::isinf(v) && v > 0; });
        if (endless > 0)
            text += QStringLiteral(" ") + tr("%n cell(s) worse by ∞ (A exact there, or B without a number).",
                                             "", static_cast<int>(endless));
        if (m_steps->steps.size() != m_stepsB->steps.size())
            text += QStringLiteral(" ") +
                    tr("(A has %1 steps, B %2.)").arg(m_steps->steps.size()).arg(m_stepsB->steps.size());
        return text;
    }
    if (m_show == ShowB)
        text = tr("B: ") + text;
    const auto limit = thresholdOn(m_threshold, m_metric);
    text += m_matrix.first_crossing ? tr("First crossing of %1: %2. ")
                                          .arg(QString::fromStdString(describeThreshold(m_threshold)),
                                               cell(*m_matrix.first_crossing))
            : limit ? tr("No step crosses %1. ").arg(QString::fromStdString(describeThreshold(m_threshold)))
                    : QString();
    if (m_matrix.worst)
        text += tr("Worst: %1.").arg(cell(*m_matrix.worst));
    for (const auto& w : loop.warnings)
        text += QStringLiteral(" ⚠ ") + QString::fromStdString(w);
    if (!loop.error.empty())
        text += QStringLiteral(" ") + tr("(Stopped: %1.)").arg(QString::fromStdString(loop.error));
    return text;
}

void StepMatrixView::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    if (m_steps && !m_matrix.ops.empty() && m_matrix.ops.size() <= 40)
        draw();
}

void StepMatrixView::draw() {
    const MetricInfo& info = metricInfo(m_metric);
    const int steps = static_cast<int>(m_matrix.steps), ops = static_cast<int>(m_matrix.ops.size());
    m_map->data()->setSize(std::max(steps, 1), std::max(ops, 1));
    m_map->data()->setRange(QCPRange(0, std::max(steps - 1, 0)), QCPRange(0, std::max(ops - 1, 0)));
    double lo = INFINITY, hi = -INFINITY;
    for (const double v : m_matrix.values)
        if (std::isfinite(v))
            lo = std::min(lo, v), hi = std::max(hi, v);
    if (!(lo <= hi))
        lo = 0, hi = 1;
    if (m_matrix.difference) { // symmetric about 0: red worse in B, blue better
        const double m = std::max({std::fabs(lo), std::fabs(hi), 1e-12});
        lo = -m, hi = m;
    }
    for (int s = 0; s < steps; ++s)
        for (int op = 0; op < ops; ++op) {
            double v = m_matrix.at(std::size_t(op), std::size_t(s));
            if (std::isinf(v)) // an exact op: the scale's good end
                v = v > 0 ? hi : lo;
            m_map->data()->setCell(s, op, v);
        }
    // Yellow is worse whichever way the metric points.
    QCPColorGradient gradient = m_matrix.difference ? divergingGradient() : viridisGradient();
    gradient.setNanHandling(QCPColorGradient::nhTransparent);
    m_map->setGradient(info.higher_is_worse || m_matrix.difference ? gradient : gradient.inverted());
    m_map->setDataRange(QCPRange(lo, hi == lo ? lo + 1 : hi));
    const QString valueLabel = m_matrix.difference
                                   ? tr("B worse by (%1)").arg(QString::fromLatin1(info.label))
                                   : QString::fromLatin1(info.label);
    m_map->colorScale()->axis()->setLabel(valueLabel);
    m_heat->xAxis->setRange(-0.5, std::max(steps, 1) - 0.5);
    m_heat->yAxis->setRange(-0.5, std::max(ops, 1) - 0.5);
    // Whole steps; the ops by name up to 40 (a decoder layer's), else by number.
    QSharedPointer<QCPAxisTickerFixed> whole(new QCPAxisTickerFixed);
    whole->setTickStep(1);
    whole->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    m_heat->xAxis->setTicker(whole);
    m_drift->xAxis->setTicker(whole);
    if (ops > 0 && ops <= 40) {
        // Every k-th name, so that names never overlap (issue 56: 12 ops in 110 px
        // overlapped); the tooltip and the click name every op.
        const int line = m_heat->fontMetrics().height();
        const int room = std::max(m_heat->axisRect()->height(), line);
        const int every = std::max(1, (ops * line + room - 1) / room);
        QSharedPointer<QCPAxisTickerText> names(new QCPAxisTickerText);
        for (int op = 0; op < ops; op += every) {
            // A STATS tap's values are bounds: its name says which side.
            bool bound = false;
            for (int s = 0; s < steps && !bound; ++s)
                bound = m_matrix.boundAt(std::size_t(op), std::size_t(s));
            names->addTick(op, QString::fromStdString(m_matrix.ops[std::size_t(op)]) +
                                   (bound ? QStringLiteral(" (") +
                                                QString::fromUtf8(boundSign(m_metric)).trimmed() +
                                                QStringLiteral(")")
                                          : QString()));
        }
        m_heat->yAxis->setTicker(names);
        m_heat->yAxis->setLabel(QString());
    } else {
        m_heat->yAxis->setTicker(whole);
        m_heat->yAxis->setLabel(tr("op, in graph order"));
    }
    m_heat->clearItems();
    if (m_op && m_step && *m_op < m_matrix.ops.size() && *m_step < m_matrix.steps) {
        auto* box = new QCPItemRect(m_heat);
        box->topLeft->setCoords(double(*m_step) - 0.5, double(*m_op) - 0.5);
        box->bottomRight->setCoords(double(*m_step) + 0.5, double(*m_op) + 0.5);
        box->setPen(QPen(QColor(230, 120, 0), 2));
    }
    m_heat->replot();

    m_drift->clearGraphs();
    m_drift->clearItems();
    QVector<double> x;
    for (int s = 0; s < steps; ++s)
        x << s;
    for (int op = 0; op < ops; ++op) {
        QVector<double> y;
        for (int s = 0; s < steps; ++s) {
            const double v = m_matrix.at(std::size_t(op), std::size_t(s));
            y << (std::isinf(v) ? (v > 0 ? hi : lo) : v);
        }
        QCPGraph* g = m_drift->addGraph();
        const bool chosen = m_op && *m_op == std::size_t(op);
        g->setData(x, y);
        g->setPen(chosen ? QPen(QColor(220, 110, 20), 2.5) : QPen(QColor(40, 90, 170, 70), 1));
        if (chosen)
            g->setName(QString::fromStdString(m_matrix.ops[std::size_t(op)]));
    }
    if (m_op && *m_op < std::size_t(ops)) // the chosen op on top
        m_drift->graph(int(*m_op))->setLayer(QStringLiteral("main"));
    const auto limit =
        m_matrix.difference ? std::optional<double>(m_margin) : thresholdOn(m_threshold, m_metric);
    if (limit) {
        auto* line = new QCPItemStraightLine(m_drift);
        line->point1->setCoords(0, *limit);
        line->point2->setCoords(1, *limit);
        line->setPen(QPen(QColor(200, 50, 50), 1, Qt::DashLine));
    }
    if (m_step) {
        auto* at = new QCPItemStraightLine(m_drift);
        at->point1->setCoords(double(*m_step), 0);
        at->point2->setCoords(double(*m_step), 1);
        at->setPen(QPen(QColor(230, 120, 0), 1, Qt::DotLine));
    }
    m_drift->yAxis->setLabel(valueLabel + tr(" per op"));
    m_drift->xAxis->setRange(-0.5, std::max(steps, 1) - 0.5);
    const double pad = std::max(1e-12, (hi - lo) * 0.08);
    m_drift->yAxis->setRange(lo - pad, hi + pad);
    m_drift->replot();
}

} // namespace gapscope
