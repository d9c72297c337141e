#include "widgets/stacked_scatter_graph.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace gapscope {

StackedScatterGraph::StackedScatterGraph(QCPAxis* keyAxis, QCPAxis* valueAxis)
    : QCPGraph(keyAxis, valueAxis) {}

std::vector<StackedScatterGraph::Stack> StackedScatterGraph::stacks(const QVector<QPointF>& points,
                                                                    QSize spriteSize, const QRectF& clip) {
    const double halfW = spriteSize.width() * 0.5, halfH = spriteSize.height() * 0.5;
    // As drawShape decides: a point is drawn when its sprite can touch the clip.
    const QRectF drawn = clip.adjusted(-halfW, -halfH, halfW, halfH);
    // One cell per pixel the sprites' corners can fall on: counting is one pass,
    // with no hashing or sorting of 65,536 points.
    const QRect cells = drawn.toAlignedRect().adjusted(-spriteSize.width() - 1, -spriteSize.height() - 1,
                                                       spriteSize.width() + 1, spriteSize.height() + 1);
    std::vector<Stack> out;
    if (cells.isEmpty())
        return out;
    const auto width = static_cast<std::size_t>(cells.width());
    std::vector<std::uint32_t> slot(width * static_cast<std::size_t>(cells.height()), 0); // out index + 1
    for (const QPointF& p : points) {
        if (!drawn.contains(p))
            continue;
        const QPoint at(qRound(p.x() - halfW), qRound(p.y() - halfH));
        if (!cells.contains(at))
            continue; // cannot happen for a point in `drawn`; never an index out of the grid
        auto& s = slot[static_cast<std::size_t>(at.y() - cells.top()) * width +
                       static_cast<std::size_t>(at.x() - cells.left())];
        if (s == 0) {
            out.push_back({at, 0});
            s = static_cast<std::uint32_t>(out.size());
        }
        ++out[s - 1].count;
    }
    return out;
}

bool StackedScatterGraph::learn(const QPixmap& sprite) const {
    if (sprite.cacheKey() == m_sprite)
        return m_oneColour;
    m_sprite = sprite.cacheKey();
    m_stacked.assign(kMaxStack, QPixmap());
    m_base = sprite.toImage().convertToFormat(QImage::Format_ARGB32);
    // The sprite's colour, from its most opaque pixel: an edge pixel's colour,
    // unpremultiplied from a few levels of alpha, is off by tens of levels,
    // which a stack of it would make opaque.
    m_colour = 0;
    for (int y = 0; y < m_base.height(); ++y)
        for (int x = 0; x < m_base.width(); ++x)
            if (qAlpha(m_base.pixel(x, y)) > qAlpha(m_colour))
                m_colour = m_base.pixel(x, y);
    // Of one colour: every pixel opaque enough to say its colour has it. Blits
    // of two colours (a white disc in a blue ring) depend on their order.
    m_oneColour = qAlpha(m_colour) > 0;
    for (int y = 0; y < m_base.height(); ++y)
        for (int x = 0; x < m_base.width(); ++x) {
            const QRgb c = m_base.pixel(x, y);
            if (qAlpha(c) >= qAlpha(m_colour) / 2 &&
                std::max({std::abs(qRed(c) - qRed(m_colour)), std::abs(qGreen(c) - qGreen(m_colour)),
                          std::abs(qBlue(c) - qBlue(m_colour))}) > 8)
                m_oneColour = false;
        }
    return m_oneColour;
}

const QPixmap& StackedScatterGraph::stacked(const QPixmap& sprite, int n) const {
    n = std::clamp(n, 1, kMaxStack);
    QPixmap& made = m_stacked[static_cast<std::size_t>(n - 1)];
    if (!made.isNull())
        return made;
    if (n == 1)
        return made = sprite;
    QImage image = m_base;
    for (int y = 0; y < image.height(); ++y) {
        auto* line = reinterpret_cast<QRgb*>(image.scanLine(y));
        for (int x = 0; x < image.width(); ++x) {
            const double clear = 1.0 - qAlpha(line[x]) / 255.0;
            const int alpha = static_cast<int>(std::lround(255.0 * (1.0 - std::pow(clear, n))));
            line[x] = qRgba(qRed(m_colour), qGreen(m_colour), qBlue(m_colour), alpha);
        }
    }
    made = QPixmap::fromImage(image);
    made.setDevicePixelRatio(sprite.devicePixelRatio());
    return made;
}

void StackedScatterGraph::drawScatterPlot(QCPPainter* painter, const QVector<QPointF>& scatters,
                                          const QCPScatterStyle& style) const {
    if (style.shape() != QCPScatterStyle::ssPixmap || style.pixmap().isNull() || !learn(style.pixmap())) {
        QCPGraph::drawScatterPlot(painter, scatters, style);
        return;
    }
    applyScattersAntialiasingHint(painter);
    const QPixmap& sprite = style.pixmap();
    for (const Stack& s : stacks(scatters, sprite.size(), painter->clipBoundingRect()))
        painter->drawPixmap(s.topLeft, stacked(sprite, s.count));
}

} // namespace gapscope
