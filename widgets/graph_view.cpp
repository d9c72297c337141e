#include "widgets/graph_view.h"

#include "core/compare/findings.h"
#include "core/compare/metric_catalog.h"
#include "widgets/graph_box_summary.h"
#include "widgets/graph_legend.h"
#include "widgets/graph_minimap.h"
#include "widgets/graph_search.h"
#include "widgets/metric_colors.h"
#include "widgets/plot_export.h"
#include "widgets/post_if_current.h"

#include <QBuffer>
#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QGraphicsRectItem>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsView>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMouseEvent>
#include <QPainter>
#include <QPushButton>
#include <QScrollBar>
#include <QSvgGenerator>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

namespace gapscope {

namespace {

constexpr int kBoxRole = 0;                 // QGraphicsItem data: the layout box index
constexpr int kGroupRole = 1;               // the group a frame or collapsed box stands for
constexpr std::size_t kCollapseAbove = 300; // nodes: start with the groups collapsed

} // namespace

GraphView::GraphView(QWidget* parent)
    : QWidget(parent), m_scene(new QGraphicsScene(this)), m_view(new QGraphicsView(m_scene, this)),
      m_minimap(new GraphMiniMap(m_scene, m_view)), m_search(new QLineEdit(this)),
      m_collapseAll(new QPushButton(tr("Collapse groups"), this)),
      m_byDifference(new QCheckBox(tr("Colour by A/B difference"), this)), m_colourBy(new QComboBox(this)),
      m_status(new QLabel(this)), m_legend(new QLabel(this)) {
    m_legend->setObjectName(QStringLiteral("graphLegend"));
    addColourChoices(m_colourBy, {static_cast<int>(ColourBy::Gap), static_cast<int>(ColourBy::Time),
                                  static_cast<int>(ColourBy::GapAndTime)});
    connect(m_colourBy, qOverload<int>(&QComboBox::currentIndexChanged), this, [this] { recolour(); });
    m_byDifference->hide();
    m_byDifference->setToolTip(tr("Red: B is worse than this session at the node; green: better; grey: no "
                                  "partner in B (the A/B tab)"));
    connect(m_byDifference, &QCheckBox::toggled, this, [this] { recolour(); });
    m_search->setPlaceholderText(tr("Find a node (name or op), Enter for the next"));
    m_search->setClearButtonEnabled(true);
    auto* fit = new QPushButton(tr("Fit"), this);
    auto* save = new QPushButton(tr("Export…"), this);
    save->setToolTip(tr("Save the graph as SVG or PNG"));
    m_collapseAll->setToolTip(tr(
        "Collapse (or expand) every group of ops one runtime event covers; double-click one to toggle it"));
    auto* bar = new QHBoxLayout;
    bar->addWidget(m_search, 1);
    bar->addWidget(m_colourBy);
    bar->addWidget(m_byDifference);
    bar->addWidget(m_collapseAll);
    bar->addWidget(fit);
    bar->addWidget(save);
    bar->addWidget(m_status);
    m_view->setDragMode(QGraphicsView::ScrollHandDrag);
    m_view->setRenderHint(QPainter::Antialiasing);
    m_view->setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    m_view->viewport()->installEventFilter(this);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_legend);
    layout->addWidget(m_view, 1);

    connect(m_search, &QLineEdit::returnPressed, this, [this] { find(m_search->text()); });
    connect(m_search, &QLineEdit::textChanged, this, [this] {
        m_findFrom = 0;
        m_status->clear(); // the last match's label would name a node this text may not find
    });
    connect(fit, &QPushButton::clicked, this,
            [this] { m_view->fitInView(m_scene->sceneRect(), Qt::KeepAspectRatio); });
    connect(m_collapseAll, &QPushButton::clicked, this, [this] {
        const bool anyExpanded =
            std::find(m_collapsed.begin(), m_collapsed.end(), false) != m_collapsed.end();
        setCollapsed(-1, anyExpanded);
    });
    connect(save, &QPushButton::clicked, this, [this] {
        const QString path =
            QFileDialog::getSaveFileName(this, tr("Export graph"), QStringLiteral("graph.svg"),
                                         tr("SVG drawing (*.svg);;PNG image (*.png)"));
        if (path.isEmpty())
            return;
        const QString err = exportTo(path);
        m_status->setText(err.isEmpty() ? tr("written to %1").arg(path) : err);
    });
    connect(m_view->horizontalScrollBar(), &QScrollBar::valueChanged, m_minimap->viewport(),
            qOverload<>(&QWidget::update));
    connect(m_view->verticalScrollBar(), &QScrollBar::valueChanged, m_minimap->viewport(),
            qOverload<>(&QWidget::update));
}

GraphView::~GraphView() {
    m_jobs.cancel(); // a layout job posts to this view
    m_jobs.waitForIdle();
}

void GraphView::setSession(std::shared_ptr<const Session> session) {
    m_session = std::move(session);
    const ExportGraph* reference = m_session && m_session->etrecord && m_session->capture
                                       ? referenceGraphFor(*m_session->etrecord, *m_session->capture)
                                       : nullptr;
    setGraph(reference && m_session->comparison ? buildOpGraph(*m_session->comparison, *reference)
                                                : OpGraph{});
}

void GraphView::setGraph(OpGraph graph) {
    m_graph = std::move(graph);
    m_selected.reset();
    m_findFrom = 0;
    m_collapsed.assign(m_graph.groups.size(), m_graph.nodes.size() > kCollapseAbove);
    relayout();
}

void GraphView::updateSession(std::shared_ptr<const Session> snapshot) {
    m_session = std::move(snapshot);
    recolour();
}

void GraphView::setCollapsed(int group, bool collapsed) {
    if (group < 0)
        std::fill(m_collapsed.begin(), m_collapsed.end(), collapsed);
    else if (static_cast<std::size_t>(group) < m_collapsed.size())
        m_collapsed[static_cast<std::size_t>(group)] = collapsed;
    relayout();
}

void GraphView::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (m_stale)
        relayout();
}

void GraphView::relayout() {
    m_scene->clear();
    m_halo = nullptr; // the scene's, deleted with it
    m_boxes.clear();
    m_timeBars.clear();
    m_layout = {};
    // Laid out when first shown: a session whose graph nobody looks at costs
    // no Graphviz run and no scene of thousands of items on the UI thread.
    m_stale = !isVisible() && !m_graph.nodes.empty();
    if (m_stale) {
        m_jobs.cancel();
        m_pending = false;
        m_status->setText(tr("%1 nodes, laid out when shown").arg(m_graph.nodes.size()));
        return;
    }
    if (m_graph.nodes.empty()) {
        m_pending = false;
        m_status->setText(
            m_session && m_session->comparison
                ? tr("No reference graph: the ETRecord is missing or does not hold the capture's graph")
                : QString());
        emit laidOut();
        return;
    }
    m_pending = true;
    m_status->setText(tr("laying out %1 nodes…").arg(m_graph.nodes.size()));
    auto graph = std::make_shared<const OpGraph>(m_graph);
    m_jobs.start(
        [this, graph, collapsed = m_collapsed](std::uint64_t generation, const std::atomic<bool>& cancelled) {
            auto result = std::make_shared<Result<GraphLayout>>(layoutOpGraph(*graph, collapsed, &cancelled));
            postIfCurrent(this, m_jobs, generation, [this, result] {
                m_pending = false;
                if (!*result) {
                    m_status->setText(QString::fromStdString(result->error().describe()));
                    emit laidOut();
                    return;
                }
                m_layout = std::move(result->value());
                showLayout();
                emit laidOut();
            });
        });
}

void GraphView::showLayout() {
    m_scene->clear();
    m_halo = nullptr; // the scene's, deleted with it
    m_boxes.clear();
    QFont small = font();
    small.setPointSizeF(std::max(6.0, small.pointSizeF() - 1));
    for (const auto& frame : m_layout.frames) {
        auto* r =
            m_scene->addRect(QRectF(QPointF(frame.x0, frame.y0), QPointF(frame.x1, frame.y1)),
                             QPen(QColor(120, 120, 160), 1, Qt::DashLine), QBrush(QColor(235, 238, 250)));
        r->setZValue(-2);
        r->setData(kGroupRole, frame.group);
        r->setToolTip(
            tr("%1 — double-click to collapse")
                .arg(QString::fromStdString(m_graph.groups[static_cast<std::size_t>(frame.group)].label)));
        auto* t = m_scene->addSimpleText(
            QString::fromStdString(m_graph.groups[static_cast<std::size_t>(frame.group)].label), small);
        t->setPos(frame.x0 + 4, frame.y0 + 1);
        t->setBrush(QColor(80, 80, 120));
        t->setZValue(-1);
    }
    for (const auto& e : m_layout.edges) {
        if (e.xy.size() < 4)
            continue;
        QPainterPath path(QPointF(e.xy[0], e.xy[1]));
        for (std::size_t i = 2; i + 5 < e.xy.size(); i += 6)
            path.cubicTo(e.xy[i], e.xy[i + 1], e.xy[i + 2], e.xy[i + 3], e.xy[i + 4], e.xy[i + 5]);
        auto* item = m_scene->addPath(path, QPen(QColor(140, 140, 140), 1));
        item->setZValue(-1);
    }
    for (std::size_t b = 0; b < m_layout.boxes.size(); ++b) {
        const auto& box = m_layout.boxes[b];
        auto* r = m_scene->addRect(QRectF(box.x - box.w / 2, box.y - box.h / 2, box.w, box.h));
        r->setData(kBoxRole, static_cast<qulonglong>(b));
        r->setData(kGroupRole, box.group);
        auto* t = new QGraphicsSimpleTextItem(boxLabel(box, m_graph), r);
        t->setFont(small);
        const QRectF tb = t->boundingRect();
        t->setPos(box.x - tb.width() / 2, box.y - tb.height() / 2);
        m_boxes.push_back(r);
        auto* bar = new QGraphicsRectItem(r);
        bar->setPen(Qt::NoPen);
        bar->setBrush(QColor(200, 90, 0));
        bar->hide();
        m_timeBars.push_back(bar);
    }
    // The selection is a frame around the box, not its border: a selected first
    // divergence keeps its red border.
    m_halo = m_scene->addRect(QRectF(), QPen(QColor(20, 90, 200), 3), Qt::NoBrush);
    m_halo->setZValue(1);
    m_halo->hide();
    const bool anyExpanded = std::find(m_collapsed.begin(), m_collapsed.end(), false) != m_collapsed.end();
    m_collapseAll->setText(anyExpanded || m_collapsed.empty() ? tr("Collapse groups") : tr("Expand groups"));
    m_scene->setSceneRect(QRectF(-20, -20, m_layout.width + 40, m_layout.height + 40));
    recolour();
    // Start whole if that stays readable, else at a readable zoom (Fit shows it all).
    m_view->fitInView(m_scene->sceneRect(), Qt::KeepAspectRatio);
    const double scale = std::clamp(m_view->transform().m11(), 0.8, 1.0);
    m_view->setTransform(QTransform::fromScale(scale, scale));
    m_minimap->fit();
    m_status->setText(tr("%1 nodes, %2 groups").arg(m_graph.nodes.size()).arg(m_graph.groups.size()));
    if (m_selected)
        setSelectedRow(m_selected);
}

void GraphView::recolour() {
    if (!m_session || !m_session->comparison)
        return;
    const auto divergence = m_session->first_divergence
                                ? std::optional<std::size_t>(m_session->first_divergence->row)
                                : std::nullopt;
    const auto strongest = strongestGain(m_session->introducers);
    // The marks go on the node whose output a row compares (its last), not on
    // every node of a delegate call.
    const auto compared = [this](std::optional<std::size_t> row) {
        return row ? m_graph.nodeOfRow(*row) : std::nullopt;
    };
    const BoxMarks marks{compared(divergence),
                         compared(strongest ? std::optional<std::size_t>(strongest->row) : std::nullopt),
                         compared(m_selected)};
    const double maxShare = largestShare(*m_session);
    if (m_halo)
        m_halo->hide(); // shown again on the selected box, if one shows it
    const ColourBy by = colourBy();
    for (std::size_t b = 0; b < m_boxes.size() && b < m_layout.boxes.size(); ++b) {
        const BoxSummary s = summarizeBox(m_layout.boxes[b], m_graph, *m_session, marks);
        QGraphicsRectItem* r = m_boxes[b];
        const double timeScale = s.share >= 0 && maxShare > 0 ? s.share / maxShare : -1;
        const QColor untimed(235, 235, 235);
        r->setBrush(by == ColourBy::Time ? (timeScale >= 0 ? timeColour(logTimeFraction(timeScale)) : untimed)
                    : s.worst_rel_l2 >= 0 ? gapColor(s.worst_rel_l2)
                                          : untimed);
        if (b < m_timeBars.size()) {
            const QRectF rect = r->rect();
            m_timeBars[b]->setRect(rect.left(), rect.bottom() - 4, rect.width() * std::max(timeScale, 0.0),
                                   4);
            m_timeBars[b]->setVisible(by == ColourBy::GapAndTime && timeScale > 0 && !colourByDifference());
        }
        QString difference;
        if (colourByDifference()) {
            const auto it = s.row ? m_worseBy.find(*s.row) : m_worseBy.end();
            r->setBrush(it == m_worseBy.end() ? QColor(225, 225, 225) : differenceColour(it->second));
            difference = it == m_worseBy.end()
                             ? tr("\nno partner in B, or no value to compare")
                             : tr("\nB worse by %1 (%2)").arg(it->second, 0, 'g', 3).arg(m_differenceLabel);
        }
        r->setPen(QPen(s.first ? QColor(200, 30, 30)
                       : s.top ? QColor(220, 120, 0)
                               : QColor(90, 90, 90),
                       s.first || s.top ? 3 : 1));
        if (s.selected && m_halo) {
            m_halo->setRect(r->rect().adjusted(-5, -5, 5, 5));
            m_halo->show();
        }
        const QString marked = (s.first ? QStringLiteral(" ⚑ first divergence") : QString()) +
                               (s.top ? QStringLiteral(" ▲ the error grows most") : QString());
        r->setToolTip(
            s.names.mid(0, 12).join(QLatin1Char('\n')) +
            (s.names.size() > 12 ? tr("\n… %1 more").arg(s.names.size() - 12) : QString()) +
            (s.row ? tr("\nrow %1, rel. L2 %2").arg(*s.row).arg(s.worst_rel_l2, 0, 'g', 3)
                   : tr("\nnot compared")) +
            (s.share >= 0 ? tr(", %1 % of the run's time").arg(100 * s.share, 0, 'g', 3) : QString()) +
            difference + marked);
    }
    static constexpr GraphColouring kOf[] = {GraphColouring::Gap, GraphColouring::Time,
                                             GraphColouring::GapAndTime};
    const auto colouring = colourByDifference() ? GraphColouring::Difference : kOf[static_cast<int>(by)];
    m_legend->setText(graphLegend(colouring, maxShare, m_differenceLabel));
}

void GraphView::setDifference(std::map<std::size_t, double> worseBy, const QString& label) {
    m_worseBy = std::move(worseBy);
    m_differenceLabel = label;
    m_byDifference->setVisible(!m_worseBy.empty());
    if (m_worseBy.empty())
        m_byDifference->setChecked(false);
    recolour();
}

void GraphView::setColourByDifference(bool on) {
    m_byDifference->setChecked(on);
}

void GraphView::setColourBy(ColourBy by) {
    m_colourBy->setCurrentIndex(m_colourBy->findData(static_cast<int>(by)));
}

GraphView::ColourBy GraphView::colourBy() const {
    return static_cast<ColourBy>(m_colourBy->currentData().toInt());
}

double GraphView::timeBar(std::size_t row) const {
    const int box = boxOfRow(row);
    if (box < 0 || static_cast<std::size_t>(box) >= m_timeBars.size() || !m_timeBars[box]->isVisible())
        return 0;
    return m_timeBars[box]->rect().width() / m_boxes[box]->rect().width();
}

bool GraphView::colourByDifference() const {
    return m_byDifference->isChecked() && !m_worseBy.empty();
}

QColor GraphView::boxBrush(std::size_t row) const {
    const int box = boxOfRow(row);
    return box >= 0 && static_cast<std::size_t>(box) < m_boxes.size() ? m_boxes[box]->brush().color()
                                                                      : QColor();
}

QPen GraphView::boxPen(std::size_t row) const {
    const int b = boxOfRow(row);
    return b >= 0 && std::size_t(b) < m_boxes.size() ? m_boxes[std::size_t(b)]->pen() : QPen();
}

QRectF GraphView::selectionFrame() const {
    return m_halo && m_halo->isVisible() ? m_halo->rect() : QRectF();
}

int GraphView::boxOfRow(std::size_t row) const {
    // The box of the node whose output the row compares (its last).
    const auto node = m_graph.nodeOfRow(row);
    for (std::size_t b = 0; node && b < m_layout.boxes.size(); ++b)
        for (auto n : m_layout.boxes[b].nodes)
            if (n == *node)
                return static_cast<int>(b);
    return -1;
}

void GraphView::setSelectedRow(std::optional<std::size_t> row) {
    m_selected = row;
    recolour();
    if (!row)
        return;
    const int b = boxOfRow(*row);
    if (b >= 0 && static_cast<std::size_t>(b) < m_boxes.size())
        m_view->centerOn(m_boxes[static_cast<std::size_t>(b)]);
}

bool GraphView::find(const QString& text) {
    const auto matches = matchingBoxes(m_graph, m_layout, text);
    if (matches.empty()) {
        m_status->setText(text.isEmpty() ? QString() : tr("no node matches \u201c%1\u201d").arg(text));
        return false;
    }
    // The next match from the last one found, round to the first.
    auto it = std::lower_bound(matches.begin(), matches.end(), m_findFrom);
    if (it == matches.end())
        it = matches.begin();
    const std::size_t b = *it;
    m_findFrom = b + 1;
    m_view->centerOn(m_boxes[b]);
    for (auto node : m_layout.boxes[b].nodes)
        if (const auto& g = m_graph.nodes[node]; nodeMatches(g, text)) {
            if (g.row)
                emit rowClicked(*g.row);
            m_status->setText(matchLabel(std::size_t(it - matches.begin()) + 1, matches.size(),
                                         QString::fromStdString(g.name), QString::fromStdString(g.op)));
            break;
        }
    return true;
}

void GraphView::clearSearch() {
    m_search->clear();
}

bool GraphView::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_view->viewport() && event->type() == QEvent::Resize) {
        // The minimap keeps to the viewport's bottom-right corner.
        const QRect area = m_view->viewport()->geometry();
        const int side = std::clamp(std::min(area.width(), area.height()) / 3, 80, 180);
        m_minimap->setFixedSize(side, side);
        m_minimap->move(area.right() - side - 6, area.bottom() - side - 6);
        m_minimap->fit();
        return false;
    }
    if (watched != m_view->viewport())
        return QWidget::eventFilter(watched, event);
    if (event->type() == QEvent::Wheel) {
        const auto* wheel = static_cast<QWheelEvent*>(event);
        const double factor = std::pow(1.0015, wheel->angleDelta().y());
        m_view->scale(factor, factor);
        m_minimap->viewport()->update();
        return true;
    }
    if (event->type() == QEvent::MouseButtonRelease || event->type() == QEvent::MouseButtonDblClick) {
        const auto* mouse = static_cast<QMouseEvent*>(event);
        QGraphicsItem* item = m_view->itemAt(mouse->position().toPoint());
        if (item && item->parentItem())
            item = item->parentItem(); // a label: its box
        if (!item)
            return false;
        const int group = item->data(kGroupRole).isValid() ? item->data(kGroupRole).toInt() : -1;
        if (event->type() == QEvent::MouseButtonDblClick && group >= 0) {
            setCollapsed(group, !m_collapsed[static_cast<std::size_t>(group)]);
            return true;
        }
        if (event->type() == QEvent::MouseButtonRelease && item->data(kBoxRole).isValid()) {
            const auto b = static_cast<std::size_t>(item->data(kBoxRole).toULongLong());
            for (auto n : m_layout.boxes[b].nodes)
                if (m_graph.nodes[n].row) {
                    emit rowClicked(*m_graph.nodes[n].row);
                    break;
                }
        }
    }
    return false;
}

QString GraphView::exportTo(const QString& path) const {
    const QRectF area = m_scene->sceneRect();
    if (area.isEmpty())
        return tr("%1: no graph to export").arg(path);
    if (path.endsWith(QStringLiteral(".svg"), Qt::CaseInsensitive)) {
        QByteArray bytes;
        QBuffer buffer(&bytes);
        buffer.open(QIODevice::WriteOnly);
        QSvgGenerator svg;
        svg.setOutputDevice(&buffer);
        svg.setSize(area.size().toSize());
        svg.setViewBox(QRectF(QPointF(0, 0), area.size()));
        svg.setTitle(QStringLiteral("Gapscope graph"));
        QPainter painter(&svg);
        m_scene->render(&painter, QRectF(QPointF(0, 0), area.size()), area);
        painter.end();
        return saveBytes(bytes, path);
    }
    // PNG: at most 8k pixels a side.
    const double scale = std::min(2.0, 8000.0 / std::max(area.width(), area.height()));
    QImage image((area.size() * scale).toSize(), QImage::Format_ARGB32);
    image.fill(Qt::white);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    m_scene->render(&painter, QRectF(image.rect()), area);
    painter.end();
    return savePng(image, path);
}

QWidget* GraphView::minimap() const {
    return m_minimap;
}

QString GraphView::status() const {
    return m_status->text();
}

} // namespace gapscope
