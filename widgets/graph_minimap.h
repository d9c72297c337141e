#pragma once

#include <QGraphicsView>

namespace gapscope {

// An overview of the whole scene in a corner of the view, with the part the
// view shows framed; a click there centres the view on that point.
class GraphMiniMap : public QGraphicsView {
public:
    GraphMiniMap(QGraphicsScene* scene, QGraphicsView* main);
    void fit();

protected:
    void drawForeground(QPainter* painter, const QRectF& rect) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void wheelEvent(QWheelEvent*) override {}

private:
    QGraphicsView* m_main;
};

} // namespace gapscope
