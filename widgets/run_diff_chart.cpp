#include "widgets/run_diff_chart.h"

#include "widgets/new_plot.h"
#include "widgets/plot_export.h"

#include <QMouseEvent>
#include <QVBoxLayout>
#include <cmath>
#include <qcustomplot.h>

namespace gapscope {

namespace {
constexpr int kCircledPairings = 300;
} // namespace

RunDiffChart::RunDiffChart(QWidget* parent) : QWidget(parent), m_plot(newPlot(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    m_plot->setMinimumHeight(80);
    m_plot->legend->setVisible(true);
    m_plot->legend->setBrush(QColor(255, 255, 255, 200));
    m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    m_plot->yAxis2->setVisible(true);
    m_plot->xAxis->setLabel(QStringLiteral("paired rows, in graph order"));
    enablePlotExport(m_plot, QStringLiteral("ab-chart.png"));
    connect(m_plot, &QCustomPlot::mousePress, this, [this](QMouseEvent* e) {
        if (m_plotted.empty() || e->button() != Qt::LeftButton)
            return;
        const double x = m_plot->xAxis->pixelToCoord(e->position().x());
        const auto k = static_cast<long>(std::lround(x));
        if (k >= 0 && static_cast<std::size_t>(k) < m_plotted.size())
            emit pairClicked(m_plotted[static_cast<std::size_t>(k)]);
    });
}

void RunDiffChart::setRuns(std::shared_ptr<const ComparedRuns> runs, Metric metric) {
    m_runs = std::move(runs);
    m_metric = metric;
    rebuild();
}

void RunDiffChart::setSelectedPair(std::optional<std::size_t> pair) {
    m_selected = pair;
    markSelected();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

// The selected pairing's mark alone: rebuilding the chart for it recomputed
// every pairing's values and drew the chart a second time each time the A/B
// table's first row was selected after its runs were set.
void RunDiffChart::markSelected() {
    if (!m_mark) // no runs: nothing plotted to mark
        return;
    m_mark->data()->clear();
    if (!m_selected)
        return;
    for (std::size_t i = 0; i < m_plotted.size(); ++i)
        if (m_plotted[i] == *m_selected) {
            const auto k = static_cast<int>(i);
            m_mark->setData({double(i), double(i)}, {m_a[k], m_b[k]});
        }
}

void RunDiffChart::rebuild() {
    m_plot->clearGraphs();
    m_plot->clearPlottables();
    m_plotted.clear();
    m_a.clear();
    m_b.clear();
    m_mark = nullptr;
    // Drawn once the event loop is back, however many changes came before:
    // the A/B tab's runs, then its first row selected.
    if (!m_runs) {
        m_plot->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    const MetricInfo& info = metricInfo(m_metric);
    QVector<double> x, dx, delta;
    QVector<double>& a = m_a;
    QVector<double>& b = m_b;
    // Infinite values (an exact row's SNR) have no place on an axis: drawn at its edge.
    double highest = -std::numeric_limits<double>::infinity(), lowest = -highest;
    for (std::size_t k = 0; k < m_runs->match.pairs.size(); ++k) {
        const auto& p = m_runs->match.pairs[k];
        if (!p.a || !p.b)
            continue;
        const auto d = metricDelta(m_runs->a, m_runs->b, p, m_metric);
        const double at = static_cast<double>(m_plotted.size());
        m_plotted.push_back(k);
        x << at;
        a << (d.a ? *d.a : std::nan(""));
        b << (d.b ? *d.b : std::nan(""));
        for (const auto v : {d.a, d.b})
            if (v && std::isfinite(*v))
                highest = std::max(highest, *v), lowest = std::min(lowest, *v);
        if (d.delta && std::isfinite(*d.delta))
            dx << at, delta << *d.delta;
    }
    if (!std::isfinite(highest))
        highest = 1, lowest = 0;
    const double pad = std::max(1e-12, (highest - lowest) * 0.08);
    for (auto* values : {&a, &b})
        for (auto& v : *values)
            if (std::isinf(v))
                v = v > 0 ? highest + pad : lowest - pad;

    auto* bars = new QCPBars(m_plot->xAxis, m_plot->yAxis2);
    bars->setName(QStringLiteral("Δ B − A (right axis)"));
    bars->setData(dx, delta);
    bars->setWidth(0.6);
    bars->setPen(Qt::NoPen);
    bars->setBrush(QColor(150, 150, 150, 120));
    const auto line = [&](const QVector<double>& y, const QString& name, QColor color) {
        QCPGraph* g = m_plot->addGraph();
        g->setName(name);
        g->setData(x, y);
        g->setPen(QPen(color, 1.6));
        // A circle a pairing while they have room: past kCircledPairings, at
        // the chart's usual 300-900 px, neighbours overlap into a band that
        // hides the line, and drawing them was most of the chart's time (10-15
        // ms of 13-17 for 3,000 pairings; 2.5 ms without).
        if (x.size() <= kCircledPairings)
            g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, color, Qt::white, 5));
    };
    line(a, QStringLiteral("A: ") + QString::fromStdString(m_runs->a.label), QColor(40, 90, 170));
    line(b, QStringLiteral("B: ") + QString::fromStdString(m_runs->b.label), QColor(220, 110, 20));
    m_mark = m_plot->addGraph();
    m_mark->removeFromLegend();
    m_mark->setPen(QPen(QColor(230, 120, 0), 2, Qt::DashLine));
    m_mark->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QColor(230, 120, 0), 11));
    markSelected();
    m_plot->yAxis->setLabel(QString::fromLatin1(info.label));
    m_plot->yAxis2->setLabel(QStringLiteral("Δ ") + QString::fromLatin1(info.label));
    m_plot->xAxis->setRange(-0.7, std::max<double>(1, double(m_plotted.size()) - 0.3));
    m_plot->yAxis->setRange(lowest - 2 * pad, highest + 2 * pad);
    m_plot->yAxis2->rescale();
    const auto range = m_plot->yAxis2->range();
    m_plot->yAxis2->setRange(std::min(0.0, range.lower) - 1, std::max(0.0, range.upper) + 1);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace gapscope
