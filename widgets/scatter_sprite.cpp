#include "widgets/scatter_sprite.h"

#include <QGuiApplication>
#include <cmath>

namespace gapscope {

QCPScatterStyle scatterSprite(const QCPScatterStyle& style) {
    const double dpr = qApp ? qApp->devicePixelRatio() : 1.0; // sharp on high-DPI screens
    // Room for the shape, its outline and a pixel of antialiasing on each side.
    const int side = static_cast<int>(std::ceil(style.size() + style.pen().widthF())) + 2;
    QPixmap pixmap(static_cast<int>(std::ceil(side * dpr)), static_cast<int>(std::ceil(side * dpr)));
    pixmap.setDevicePixelRatio(dpr);
    pixmap.fill(Qt::transparent);
    {
        QCPPainter painter(&pixmap);
        painter.setRenderHint(QPainter::Antialiasing);
        style.applyTo(&painter, style.pen());
        style.drawShape(&painter, side / 2.0, side / 2.0);
    }
    return QCPScatterStyle(pixmap);
}

} // namespace gapscope
