#pragma once

#include <QPoint>
#include <QRect>
#include <qcustomplot.h>
#include <vector>

namespace gapscope {

// A scatter of many overlapping points of one colour (the tensor panel's
// runtime against reference: up to 65,536 points, most of them on a few
// hundred pixels of the diagonal). Points that would be blitted at the same
// pixel are blitted once, with the sprite made as opaque as that many blits
// of it make it: 1 − (1 − α)^n per pixel. Blits of one colour compose in any
// order, so the picture is the same to a level or two of 8-bit rounding, and
// a dense cloud is a few thousand blits instead of tens of thousands (14 ms
// of the UI thread at 65,536 points). Only a sprite of one colour (scatterSprite
// of a plain disc) is stacked; any other style is drawn point by point.
class StackedScatterGraph : public QCPGraph {
public:
    StackedScatterGraph(QCPAxis* keyAxis, QCPAxis* valueAxis);

    // Where a sprite of `spriteSize` is blitted for each point, as
    // QCPScatterStyle::drawShape blits it, within `clip`, and how many points
    // land there; in the order of first appearance.
    struct Stack {
        QPoint topLeft;
        int count = 0;
    };
    static std::vector<Stack> stacks(const QVector<QPointF>& points, QSize spriteSize, const QRectF& clip);

protected:
    void drawScatterPlot(QCPPainter* painter, const QVector<QPointF>& scatters,
                         const QCPScatterStyle& style) const override;

private:
    // Reads a new sprite (its colour, whether it has one); whether it stacks.
    bool learn(const QPixmap& sprite) const;
    // The sprite blitted n times over, for n = 1, 2, …, kMaxStack (more is as
    // opaque as 8 bits tell apart); made when first needed, for this sprite.
    const QPixmap& stacked(const QPixmap& sprite, int n) const;
    static constexpr int kMaxStack = 64;
    mutable qint64 m_sprite = 0;
    mutable QImage m_base; // the sprite, unpremultiplied
    mutable QRgb m_colour = 0;
    mutable bool m_oneColour = false;
    mutable std::vector<QPixmap> m_stacked;
};

} // namespace gapscope
