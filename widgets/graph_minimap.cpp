#include "widgets/graph_minimap.h"

#include <QMouseEvent>
#include <QPainter>

namespace gapscope {

GraphMiniMap::GraphMiniMap(QGraphicsScene* scene, QGraphicsView* main)
    : QGraphicsView(scene, main), m_main(main) {
    setInteractive(false);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setFrameShape(QFrame::Box);
    setFixedSize(160, 160);
    setRenderHint(QPainter::Antialiasing, false);
    setToolTip(tr("Overview: click to go there"));
}

void GraphMiniMap::fit() {
    fitInView(scene()->sceneRect(), Qt::KeepAspectRatio);
}

void GraphMiniMap::drawForeground(QPainter* painter, const QRectF&) {
    const QRectF shown = m_main->mapToScene(m_main->viewport()->rect()).boundingRect();
    painter->setPen(QPen(QColor(200, 40, 40), 0));
    painter->setBrush(QColor(200, 40, 40, 30));
    painter->drawRect(shown);
}

void GraphMiniMap::mousePressEvent(QMouseEvent* e) {
    m_main->centerOn(mapToScene(e->position().toPoint()));
}

void GraphMiniMap::mouseMoveEvent(QMouseEvent* e) {
    if (e->buttons() & Qt::LeftButton)
        m_main->centerOn(mapToScene(e->position().toPoint()));
}

} // namespace gapscope
