#include "widgets/gap_chart.h"

#include "core/compare/findings.h"
#include "core/compare/metric_catalog.h"
#include "core/compare/row_name.h"
#include "widgets/metric_box.h"
#include "widgets/new_plot.h"
#include "widgets/plot_export.h"
#include "widgets/scatter_sprite.h"

#include <QApplication>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QTimer>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>
#include <qcustomplot.h>

namespace gapscope {

GapChart::GapChart(QWidget* parent)
    : QWidget(parent), m_plot(newPlot(this)), m_metricBox(new QComboBox(this)), m_resized(new QTimer(this)) {
    m_resized->setSingleShot(true);
    m_resized->setInterval(120);
    connect(m_resized, &QTimer::timeout, this, [this] { rebuild(); }); // the selection too
    addMetrics(m_metricBox, charted);
    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Gap per op, in execution order:"), this));
    top->addWidget(m_metricBox);
    top->addStretch();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(top);
    layout->addWidget(m_plot, 1);

    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_plot->axisRect()->setRangeDrag(Qt::Horizontal | Qt::Vertical);
    // Only the broadcast points need a key; the line and markers are self-evident.
    m_plot->setAutoAddPlottableToLegend(false);
    m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
    m_plot->axisRect()->setRangeZoom(Qt::Horizontal | Qt::Vertical);
    m_plot->setMouseTracking(true);
    m_plot->setMinimumHeight(90);
    // The selected op's marker lives here, in a buffer of its own (showSelection).
    m_plot->layer(QStringLiteral("overlay"))->setMode(QCPLayer::lmBuffered);
    m_plot->xAxis->setLabel(tr("op (execution order)"));

    connect(m_metricBox, qOverload<int>(&QComboBox::currentIndexChanged), this, [this] {
        rebuild(); // the selection too
        emit metricChanged(metric());
    });
    connect(m_plot, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) {
        if (auto row = rowNear(e); row && m_session && m_session->comparison) {
            const auto& r = m_session->comparison->rows[*row];
            QStringList ops;
            for (const auto& o : r.id().aot_ops)
                ops << QString::fromStdString(o);
            const auto v = rowMetric(r, metric());
            QToolTip::showText(e->globalPosition().toPoint(),
                               tr("row %1: %2\n%3 = %4")
                                   .arg(r.index)
                                   .arg(ops.join(QStringLiteral(", ")))
                                   .arg(m_metricBox->currentText()) // the axis's words, not the key
                                   .arg(v ? QString::number(*v, 'g', 4) : tr("n/a")),
                               m_plot);
        }
    });
    enablePlotExport(m_plot, QStringLiteral("gap-chart"));
    // A click selects on release, unless it dragged (a pan) or was a double
    // click's (the reset of the zoom selects nothing).
    connect(m_plot, &QCustomPlot::mousePress, this, [this](QMouseEvent* e) {
        m_pressAt = e->button() == Qt::LeftButton ? std::optional<QPointF>(e->position()) : std::nullopt;
    });
    connect(m_plot, &QCustomPlot::mouseRelease, this, [this](QMouseEvent* e) {
        const auto at = std::exchange(m_pressAt, std::nullopt);
        if (e->button() != Qt::LeftButton || !at || (e->position() - *at).manhattanLength() > 4)
            return; // the right button opens the export menu
        // The second click of a double click (Qt delivers its press and release
        // too) selects nothing: the double click gives the selection back.
        if (m_clickedAt.isValid() && m_clickedAt.elapsed() <= QApplication::doubleClickInterval())
            return;
        if (auto row = rowNear(e)) {
            m_beforeClick = m_selected;
            m_clickedAt.start();
            emit rowClicked(*row);
        }
    });
    connect(m_plot, &QCustomPlot::mouseDoubleClick, this, [this](QMouseEvent*) {
        m_pressAt.reset(); // its second press is no click
        // The first click of this double click selected an op: the reset of the
        // zoom gives the selection back as it was.
        if (m_clickedAt.isValid() && m_clickedAt.elapsed() <= QApplication::doubleClickInterval() &&
            m_beforeClick)
            emit rowClicked(*m_beforeClick);
        m_clickedAt.invalidate();
        rebuild(); // the whole chart, as first drawn
    });
}

void GapChart::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    if (m_session)
        m_resized->start();
}

void GapChart::setSession(std::shared_ptr<const Session> session) {
    m_session = std::move(session);
    m_ladder.reset(); // of the session before
    m_selected.reset();
    rebuild();
}

void GapChart::setLadder(std::shared_ptr<const StageLadder> ladder) {
    m_ladder = std::move(ladder);
    rebuild();
}

void GapChart::addLadderCurves(bool logAxis) {
    const auto* c = m_session && m_session->comparison ? &*m_session->comparison : nullptr;
    if (!m_ladder || !c || m_ladder->method != c->method || m_ladder->run != c->run ||
        metric() != Metric::Snr ||
        m_ladder->stages.size() < 3) // one reference: the curve would be the device's own line again
        return;
    // One hue per stage, lighter than the device's line, which stays on top.
    static const QColor kColors[] = {QColor(120, 170, 90), QColor(200, 140, 40), QColor(150, 100, 190),
                                     QColor(60, 160, 170), QColor(190, 90, 120), QColor(120, 120, 120),
                                     QColor(90, 120, 60)};
    const QString first = QString::fromStdString(ladderStageLabel(m_ladder->stages.front()));
    for (std::size_t s = 1; s < m_ladder->stages.size(); ++s) {
        QVector<double> xs, ys;
        for (std::size_t i = 0; i < m_order.size(); ++i) {
            const std::size_t row = m_order[i];
            if (row >= m_ladder->rows.size() || m_ladder->rows[row].output || m_ladder->rows[row].row != row)
                continue;
            const auto& v = m_ladder->rows[row].against_first[s].snr;
            if (!v || !std::isfinite(*v) || (logAxis && *v <= 0))
                continue;
            xs << static_cast<double>(i);
            ys << *v;
        }
        if (xs.isEmpty())
            continue;
        auto* g = m_plot->addGraph();
        g->setData(xs, ys, true);
        const QColor color = kColors[(s - 1) % (sizeof(kColors) / sizeof(kColors[0]))];
        g->setPen(QPen(color, 1.2, Qt::DashLine));
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssNone));
        g->setName(tr("%1 against the %2")
                       .arg(QString::fromStdString(ladderStageLabel(m_ladder->stages[s])), first));
        g->addToLegend();
        g->setSelectable(QCP::stNone);
        g->setProperty("ladder", true);
    }
}

void GapChart::updateSession(std::shared_ptr<const Session> snapshot) {
    m_session = std::move(snapshot);
    rebuild(); // the selection too: one replot, not two (11 ms each at 2,000 ops)
}

void GapChart::setMetric(Metric metric) {
    selectMetric(m_metricBox, metric);
}
Metric GapChart::metric() const {
    return selectedMetric(m_metricBox);
}

void GapChart::setSelectedRow(std::optional<std::size_t> row) {
    m_selected = row;
    showSelection(true);
}

std::optional<std::size_t> GapChart::rowNear(QMouseEvent* event) const {
    if (m_order.empty())
        return std::nullopt;
    const double x = m_plot->xAxis->pixelToCoord(event->position().x());
    const auto pos = static_cast<long>(std::lround(x));
    if (pos < 0 || pos >= static_cast<long>(m_order.size()) || std::fabs(x - static_cast<double>(pos)) > 0.4)
        return std::nullopt;
    return m_order[static_cast<std::size_t>(pos)];
}

void GapChart::rebuild() {
    m_plot->clearGraphs();
    m_plot->clearItems();
    m_graph = m_marker = nullptr;
    m_order.clear();
    if (!m_session || !m_session->comparison) {
        m_plot->replot();
        return;
    }
    const auto& rows = m_session->comparison->rows;
    m_order = executionOrder(*m_session->comparison);

    const Metric name = metric();
    // Broadcast rows stand apart, unjoined: their numbers mix unrelated elements.
    // A STATS tap's value is a bound (an error at least, an SNR at most): a mark
    // of its own pointing the way the true value may lie, never on the line.
    QVector<double> xs, ys, broadcastXs, broadcastYs, infXs, pastXs, pastYs, boundXs, boundYs;
    bool nonNegative = true;
    double minPositive = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < m_order.size(); ++i) {
        const auto v = rowMetric(rows[m_order[i]], name);
        if (!v || std::isnan(*v))
            continue;
        if (*v > 0 && std::isfinite(*v))
            minPositive = std::min(minPositive, *v);
        if (std::isinf(*v)) {
            // Not a value on the axis (SNR of identical outputs): a mark along the top.
            infXs << static_cast<double>(i);
            continue;
        }
        const bool broadcast = rows[m_order[i]].status == RowStatus::Broadcast;
        const bool bound = rows[m_order[i]].bounds;
        (bound ? boundXs : broadcast ? broadcastXs : xs) << static_cast<double>(i);
        (bound ? boundYs : broadcast ? broadcastYs : ys) << *v;
        nonNegative = nonNegative && *v >= 0;
        if (crossesThreshold(rows[m_order[i]], m_session->threshold)) {
            pastXs << static_cast<double>(i);
            pastYs << *v;
        }
    }
    // Exact zeros (identical outputs) sit at the floor of a log axis.
    const bool logAxis = nonNegative && std::isfinite(minPositive);
    for (auto* values : {&ys, &broadcastYs, &pastYs, &boundYs})
        for (auto& y : *values)
            if (logAxis && y == 0)
                y = minPositive / 10;

    m_graph = m_plot->addGraph();
    m_graph->setData(xs, ys, true);
    m_graph->setPen(QPen(QColor(40, 90, 170), 1.5));
    m_graph->setScatterStyle(
        scatterSprite(QCPScatterStyle(QCPScatterStyle::ssCircle, QColor(40, 90, 170), Qt::white, 7)));
    m_graph->setName(QString::fromLatin1(metricInfo(metric()).name));
    const QString threshold = QString::fromStdString(describeThreshold(m_session->threshold));
    const auto points = [this](const QVector<double>& x, const QVector<double>& y, QCPScatterStyle style,
                               const QString& legend) {
        auto* g = m_plot->addGraph();
        g->setData(x, y, true);
        g->setLineStyle(QCPGraph::lsNone);
        g->setScatterStyle(scatterSprite(style));
        g->setName(legend);
        g->addToLegend();
        return g;
    };
    // Marked on every metric, whether or not the threshold has a value on it.
    if (!pastXs.isEmpty())
        points(pastXs, pastYs,
               QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(QColor(200, 60, 60), 1.5),
                               QColor(240, 130, 120), 8),
               tr("past the threshold (%1)").arg(threshold));
    if (!broadcastXs.isEmpty())
        points(broadcastXs, broadcastYs,
               QCPScatterStyle(QCPScatterStyle::ssDiamond, QPen(QColor(150, 120, 20), 1.5),
                               QColor(255, 235, 156), 9),
               tr("broadcast (not element for element; never the first divergence)"));
    if (!boundXs.isEmpty()) {
        const bool atLeast = metricInfo(name).higher_is_worse; // an error at least: ▲; an SNR at most: ▼
        points(boundXs, boundYs,
               QCPScatterStyle(atLeast ? QCPScatterStyle::ssTriangle : QCPScatterStyle::ssTriangleInverted,
                               QPen(QColor(190, 110, 20), 1.5), QColor(255, 214, 153), 9),
               atLeast ? tr("bound from a STATS tap: the error is at least this")
                       : tr("bound from a STATS tap: the value is at most this"));
    }
    QCPGraph* infinite = infXs.isEmpty()
                             ? nullptr
                             : points(infXs, QVector<double>(infXs.size(), 0),
                                      QCPScatterStyle(QCPScatterStyle::ssTriangle,
                                                      QPen(QColor(90, 90, 90), 1.5), Qt::white, 9),
                                      tr("infinite (drawn along the top)"));
    addLadderCurves(logAxis);
    m_plot->legend->setBrush(QColor(255, 255, 255, 200)); // points behind it stay visible
    m_plot->legend->setVisible(m_plot->legend->itemCount() > 0);

    m_plot->yAxis->setScaleType(logAxis ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    if (logAxis)
        m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    else
        m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    m_plot->yAxis->setLabel(m_metricBox->currentText());

    setOpTicks(rows);

    // The threshold line on its own metric and on those where one value is
    // equivalent (SNR, SQNR, rel. L2); elsewhere the points past it say it.
    const auto limit = thresholdOn(m_session->threshold, name);
    if (limit && (!logAxis || *limit > 0))
        addThresholdLine(*limit, threshold);
    if (m_session->first_divergence)
        addRowMarker(m_session->first_divergence->row, tr("first divergence"), QColor(200, 60, 60),
                     QColor(200, 60, 60), Qt::SolidLine, 0.97);
    // Where the error grows the most: where drift is introduced, not where it first
    // crosses the threshold.
    if (const auto strongest = strongestGain(m_session->introducers))
        addRowMarker(strongest->row, tr("error grows %1 dB").arg(strongest->gain_db, 0, 'f', 0),
                     QColor(215, 120, 0), QColor(170, 90, 0), Qt::DashLine, 0.80);
    m_marker = m_plot->addGraph();
    // On the buffered overlay layer: a new selection redraws it alone, not the
    // thousands of points under it.
    m_marker->setLayer(QStringLiteral("overlay"));
    m_marker->setLineStyle(QCPGraph::lsNone);
    m_marker->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(QColor(230, 120, 0), 2), QColor(255, 200, 80), 13));
    if (infinite)
        infinite->setVisible(false); // not part of the value range
    m_plot->rescaleAxes(true);
    if (limit && (!logAxis || *limit > 0)) {
        // Keep the threshold line in view.
        auto range = m_plot->yAxis->range();
        range.expand(*limit);
        m_plot->yAxis->setRange(range);
    }
    m_plot->xAxis->setRange(-0.5, static_cast<double>(std::max<std::size_t>(m_order.size(), 1)) - 0.5);
    if (logAxis)
        m_plot->yAxis->setRange(m_plot->yAxis->range().lower / 3, m_plot->yAxis->range().upper * 3);
    else
        m_plot->yAxis->scaleRange(1.15);
    if (infinite) {
        const auto range = m_plot->yAxis->range();
        const double top = logAxis ? range.upper / 1.6 : range.upper - 0.04 * range.size();
        for (auto it = infinite->data()->begin(); it != infinite->data()->end(); ++it)
            it->value = top;
        infinite->setVisible(true);
    }
    if (xs.isEmpty()) {
        // An empty frame would look like a chart of zeros: say why it is empty.
        auto* note = new QCPItemText(m_plot);
        note->position->setType(QCPItemPosition::ptAxisRectRatio);
        note->position->setCoords(0.5, 0.45);
        note->setText(!m_session->complete ? tr("no metric computed yet")
                                           : tr("no op has a value of %1").arg(m_metricBox->currentText()));
        note->setColor(QColor(110, 110, 110));
    }
    showSelection();
}

void GapChart::setOpTicks(const SharedBlocks<ComparisonRow>& rows) {
    auto ticker = QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText);
    // As many labels as fit the width (at most 30): with hundreds of ops every
    // k-th one is named. A short chart gets short, level labels, so the axis
    // keeps its height for the values.
    const bool shortChart = m_plot->height() < 200;
    const std::size_t fit =
        std::clamp<std::size_t>(static_cast<std::size_t>(m_plot->width() / (shortChart ? 110 : 60)), 2, 30);
    const std::size_t every = std::max<std::size_t>(1, (m_order.size() + fit - 1) / fit);
    for (std::size_t i = 0; i < m_order.size(); i += every) {
        QString label = QString::fromStdString(displayOpName(rows[m_order[i]]));
        if (label.isEmpty())
            label = QString::number(m_order[i]);
        const int longest = shortChart ? 14 : 18;
        if (label.size() > longest)
            label = label.left(longest - 1) + QStringLiteral("…");
        ticker->addTick(static_cast<double>(i), label);
    }
    m_plot->xAxis->setTicker(ticker);
    // Slanted labels end at their tick (counter-clockwise): one starting there
    // would run under the next ops' points.
    m_plot->xAxis->setTickLabelRotation(m_order.size() > 6 && !shortChart ? -30 : 0);
}

void GapChart::addThresholdLine(double limit, const QString& threshold) {
    auto* line = new QCPItemStraightLine(m_plot);
    line->point1->setCoords(0, limit);
    line->point2->setCoords(1, limit);
    line->setPen(QPen(QColor(200, 60, 60), 1, Qt::DashLine));
    auto* text = new QCPItemText(m_plot);
    text->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
    text->position->setCoords(0.995, limit);
    text->setPositionAlignment(Qt::AlignRight | Qt::AlignTop); // below the line: never clipped at the top
    text->setText(tr("threshold: %1").arg(threshold));
    text->setColor(QColor(200, 60, 60));
}

void GapChart::addRowMarker(std::size_t row, const QString& label, const QColor& lineColor,
                            const QColor& textColor, Qt::PenStyle style, double labelY) {
    const auto it = std::find(m_order.begin(), m_order.end(), row);
    if (it == m_order.end())
        return;
    const double x = static_cast<double>(it - m_order.begin());
    auto* line = new QCPItemStraightLine(m_plot);
    line->point1->setCoords(x, 0);
    line->point2->setCoords(x, 1);
    line->setPen(QPen(lineColor, 1.5, style));
    auto* text = new QCPItemText(m_plot);
    text->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    text->position->setCoords(x, labelY);
    // Keep the label inside the plot: right of the line, or left of it near the edge.
    const bool rightHalf = x > static_cast<double>(m_order.size()) / 2;
    // Along the foot of the plot: the legend of the points sits at the top left.
    text->setPositionAlignment((rightHalf ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignBottom);
    text->setText(rightHalf ? QString(label + QLatin1Char(' ')) : QString(QLatin1Char(' ') + label));
    text->setColor(textColor);
    // Readable where the curve runs through it.
    text->setBrush(QBrush(QColor(255, 255, 255, 225)));
    text->setPadding(QMargins(3, 1, 3, 1));
}

void GapChart::showSelection(bool markerOnly) {
    if (!m_marker || !m_graph)
        return;
    m_marker->data()->clear();
    if (m_selected) {
        const auto it = std::find(m_order.begin(), m_order.end(), *m_selected);
        if (it != m_order.end()) {
            const double x = static_cast<double>(it - m_order.begin());
            // On the line, or on a point of its own (a broadcast row, a STATS tap's bound).
            for (int g = 0; g < m_plot->graphCount() && m_marker->data()->isEmpty(); ++g) {
                const QCPGraph* graph = m_plot->graph(g);
                if (graph == m_marker || graph->property("ladder").toBool())
                    continue; // the selected op's own value, never another stage's
                for (auto p = graph->data()->constBegin(); p != graph->data()->constEnd(); ++p)
                    if (p->key == x) {
                        m_marker->addData(x, p->value);
                        break;
                    }
            }
        }
    }
    if (markerOnly)
        m_marker->layer()->replot(); // the whole plot when its buffers are stale
    else
        m_plot->replot();
}

} // namespace gapscope
