#include "widgets/speed_accuracy_chart.h"

#include "core/compare/findings.h"
#include "core/compare/row_name.h"
#include "widgets/metric_box.h"
#include "widgets/new_plot.h"
#include "widgets/plot_export.h"
#include "widgets/scatter_sprite.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>
#include <qcustomplot.h>

namespace gapscope {

namespace {

constexpr double kPickRadiusPx = 8;

QString valueText(const std::optional<double>& v) {
    if (!v)
        return QStringLiteral("—");
    if (std::isinf(*v))
        return *v > 0 ? QStringLiteral("∞") : QStringLiteral("−∞");
    return QString::number(*v, 'g', 4);
}

QCPGraph* pointsGraph(QCustomPlot* plot, const QColor& color, double size) {
    auto* g = plot->addGraph();
    g->setLineStyle(QCPGraph::lsNone);
    g->setScatterStyle(scatterSprite(QCPScatterStyle(QCPScatterStyle::ssCircle, color, Qt::white, size)));
    return g;
}

} // namespace

SpeedAccuracyChart::SpeedAccuracyChart(QWidget* parent)
    : QWidget(parent), m_plot(newPlot(this)), m_metricBox(new QComboBox(this)), m_note(new QLabel(this)) {
    addMetrics(m_metricBox, charted);
    setMetric(Metric::Snr);
    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Time share against the gap:"), this));
    top->addWidget(m_metricBox);
    top->addWidget(m_note, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(top);
    layout->addWidget(m_plot, 1);
    m_plot->setMinimumHeight(90);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_plot->setMouseTracking(true);
    m_plot->xAxis->setLabel(tr("share of the run's time (%, median over the runs)"));
    m_ok = pointsGraph(m_plot, QColor(40, 90, 170), 7);
    m_past = pointsGraph(m_plot, QColor(200, 40, 40), 8);
    m_edge = m_plot->addGraph();
    m_edge->setLineStyle(QCPGraph::lsNone);
    m_edge->setScatterStyle(scatterSprite(
        QCPScatterStyle(QCPScatterStyle::ssTriangle, QPen(QColor(46, 125, 50), 1.5), Qt::white, 8)));
    m_marker = m_plot->addGraph();
    m_marker->setLineStyle(QCPGraph::lsNone);
    m_marker->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(QColor(255, 150, 0), 3),
                                              QBrush(QColor(255, 200, 80)), 13));
    connect(m_metricBox, qOverload<int>(&QComboBox::currentIndexChanged), this, [this] {
        rebuild();
        showSelection();
    });
    connect(m_plot, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) {
        const auto i = rowNear(e);
        if (!i || !m_session || !m_session->comparison)
            return;
        const auto& r = m_session->comparison->rows[m_rows[*i]];
        QToolTip::showText(e->globalPosition().toPoint(),
                           tr("row %1: %2\n%3 % of the run's time, %4 = %5")
                               .arg(r.index)
                               .arg(QString::fromStdString(summarisedOpNames(r)))
                               .arg(QString::number(m_x[*i], 'g', 3))
                               .arg(QString::fromUtf8(metricInfo(metric()).label))
                               .arg(valueText(rowMetric(r, metric()))),
                           m_plot);
    });
    connect(m_plot, &QCustomPlot::mousePress, this, [this](QMouseEvent* e) {
        if (e->button() != Qt::LeftButton)
            return; // the right button opens the export menu
        if (const auto i = rowNear(e))
            emit rowClicked(m_rows[*i]);
    });
    connect(m_plot, &QCustomPlot::mouseDoubleClick, this, [this](QMouseEvent*) {
        m_plot->rescaleAxes();
        m_plot->replot();
    });
    enablePlotExport(m_plot, QStringLiteral("speed-accuracy"));
}

void SpeedAccuracyChart::setSession(std::shared_ptr<const Session> session) {
    m_session = std::move(session);
    m_selected.reset();
    rebuild();
}

void SpeedAccuracyChart::updateSession(std::shared_ptr<const Session> snapshot) {
    m_session = std::move(snapshot);
    rebuild();
    showSelection();
}

void SpeedAccuracyChart::setMetric(Metric metric) {
    selectMetric(m_metricBox, metric);
}

Metric SpeedAccuracyChart::metric() const {
    return selectedMetric(m_metricBox);
}

void SpeedAccuracyChart::setSelectedRow(std::optional<std::size_t> row) {
    m_selected = row;
    showSelection();
}

void SpeedAccuracyChart::rebuild() {
    m_rows.clear();
    m_x.clear();
    m_y.clear();
    QVector<double> okX, okY, pastX, pastY, edgeX, edgeY;
    std::vector<std::pair<std::size_t, double>> infinite; // rows whose value is ±∞ (an exact op's SNR)
    const Metric m = metric();
    const auto* latency = m_session ? m_session->latency.get() : nullptr;
    std::size_t untimed = 0, unmeasured = 0;
    if (latency && m_session->comparison) {
        const auto& rows = m_session->comparison->rows;
        for (std::size_t i = 0; i < rows.size() && i < latency->rows.size(); ++i) {
            const auto& share = latency->rows[i].share;
            const auto value = rowMetric(rows[i], m);
            if (!share) {
                ++untimed;
                continue;
            }
            if (!value || std::isnan(*value)) {
                ++unmeasured;
                continue;
            }
            if (std::isinf(*value)) {
                infinite.emplace_back(i, *value);
                continue;
            }
            m_rows.push_back(i);
            m_x.push_back(100 * *share);
            m_y.push_back(*value);
            const bool past = crossesThreshold(rows[i], m_session->threshold);
            (past ? pastX : okX).push_back(m_x.back());
            (past ? pastY : okY).push_back(m_y.back());
        }
    }
    // ±∞ (an exact op: SNR ∞) drawn as triangles just past the finite values'
    // edge, so a slow op that is exact still shows.
    double lo = 0, hi = 1;
    if (!m_y.empty()) {
        lo = *std::min_element(m_y.begin(), m_y.end());
        hi = *std::max_element(m_y.begin(), m_y.end());
    }
    const double margin = std::max((hi - lo) * 0.1, 1.0);
    for (const auto& [i, v] : infinite) {
        m_rows.push_back(i);
        m_x.push_back(100 * *latency->rows[i].share);
        m_y.push_back(v > 0 ? hi + margin : lo - margin);
        edgeX.push_back(m_x.back());
        edgeY.push_back(m_y.back());
    }
    m_ok->setData(okX, okY);
    m_past->setData(pastX, pastY);
    m_edge->setData(edgeX, edgeY);
    const auto& info = metricInfo(m);
    m_plot->yAxis->setLabel(QString::fromUtf8(info.label) +
                            (info.higher_is_worse ? tr(" (worse up)") : tr(" (worse down)")));
    if (!m_session || !m_session->complete)
        m_note->setText(QString());
    else if (!latency)
        m_note->setText(tr("the ETDump holds no timing for this run"));
    else
        m_note->setText(
            tr("%1 ops timed · %2 without a time · %3 without a %4 · ▲ %5 at ±∞ (exact), drawn at the edge · "
               "red: past the threshold")
                .arg(m_rows.size())
                .arg(untimed)
                .arg(unmeasured)
                .arg(QString::fromLatin1(info.name))
                .arg(infinite.size()));
    // The threshold, when it is on this metric: the points past it are the red ones.
    m_plot->clearItems();
    if (m_session && m_session->threshold.metric == m) {
        auto* line = new QCPItemStraightLine(m_plot);
        line->point1->setCoords(0, m_session->threshold.value);
        line->point2->setCoords(1, m_session->threshold.value);
        line->setPen(QPen(QColor(200, 40, 40), 1, Qt::DashLine));
    }
    m_plot->rescaleAxes();
    if (m_session && m_session->threshold.metric == m) // the line in view
        m_plot->yAxis->setRange(m_plot->yAxis->range().expanded(m_session->threshold.value));
    // Some air around the points. Shares spanning more than two decades (one op
    // 89% of a Llama's run, the other 140 under 2%: issue 56, all in one corner
    // of a linear axis) go on a log axis; otherwise a linear one from 0.
    double smallest = 0, largest = 0;
    for (const double share : m_x)
        if (share > 0) {
            smallest = smallest > 0 ? std::min(smallest, share) : share;
            largest = std::max(largest, share);
        }
    const bool logTime = smallest > 0 && largest / smallest > 100;
    if (logTime) {
        m_plot->xAxis->setScaleType(QCPAxis::stLogarithmic);
        m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
        m_plot->xAxis->setLabel(tr("share of the run's time (%, median over the runs; log scale)"));
        m_plot->xAxis->setRange(smallest / 1.5, largest * 1.5);
    } else {
        m_plot->xAxis->setScaleType(QCPAxis::stLinear);
        m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
        m_plot->xAxis->setLabel(tr("share of the run's time (%, median over the runs)"));
        const auto x = m_plot->xAxis->range();
        m_plot->xAxis->setRange(0, std::max(x.upper * 1.08, 1e-9));
    }
    const auto y = m_plot->yAxis->range();
    const double pad = std::max(y.size() * 0.08, 1e-9);
    m_plot->yAxis->setRange(y.lower - pad, y.upper + pad);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void SpeedAccuracyChart::showSelection() {
    QVector<double> x, y;
    for (std::size_t i = 0; m_selected && i < m_rows.size(); ++i)
        if (m_rows[i] == *m_selected) {
            x.push_back(m_x[i]);
            y.push_back(m_y[i]);
        }
    m_marker->setData(x, y);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

std::optional<std::size_t> SpeedAccuracyChart::rowNear(QMouseEvent* event) const {
    std::optional<std::size_t> best;
    double bestDistance = kPickRadiusPx * kPickRadiusPx;
    const QPointF at = event->position();
    for (std::size_t i = 0; i < m_rows.size(); ++i) {
        const double dx = m_plot->xAxis->coordToPixel(m_x[i]) - at.x();
        const double dy = m_plot->yAxis->coordToPixel(m_y[i]) - at.y();
        if (dx * dx + dy * dy <= bestDistance) {
            bestDistance = dx * dx + dy * dy;
            best = i;
        }
    }
    return best;
}

} // namespace gapscope
