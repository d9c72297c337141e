#include "widgets/plot_grid.h"

#include <QPainter>
#include <qcustomplot.h>

namespace gapscope {

QImage renderPlotGrid(const QString& title, const std::vector<QCustomPlot*>& plots, int columns,
                      const QString& footer, const QFont& font, QSize cell) {
    const int titleHeight = 28, footerHeight = 24;
    const int rows = (static_cast<int>(plots.size()) + columns - 1) / columns;
    QImage image(columns * cell.width(), titleHeight + rows * cell.height() + footerHeight,
                 QImage::Format_ARGB32);
    image.fill(Qt::white);
    QPainter painter(&image);
    painter.setPen(Qt::black);
    QFont bold = font;
    bold.setBold(true);
    painter.setFont(bold);
    painter.drawText(QRect(8, 0, image.width() - 16, titleHeight), Qt::AlignVCenter | Qt::AlignLeft, title);
    for (std::size_t i = 0; i < plots.size(); ++i) {
        const int r = static_cast<int>(i) / columns, c = static_cast<int>(i) % columns;
        painter.drawPixmap(c * cell.width(), titleHeight + r * cell.height(),
                           plots[i]->toPixmap(cell.width(), cell.height()));
    }
    painter.setFont(font);
    painter.drawText(QRect(8, titleHeight + rows * cell.height(), image.width() - 16, footerHeight),
                     Qt::AlignVCenter | Qt::AlignLeft | Qt::TextSingleLine, footer);
    return image;
}

} // namespace gapscope
