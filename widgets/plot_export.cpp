#include "widgets/plot_export.h"

#include "core/common/atomic_file.h"

#include <QBuffer>
#include <QFileDialog>
#include <QMenu>
#include <QMessageBox>
#include <QPdfWriter>
#include <QSvgGenerator>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

namespace gapscope {

namespace {

// Vector output: no cached pixmaps, no screen-only antialiasing fixes.
void paintVector(QCustomPlot* plot, QPaintDevice* device, int width, int height) {
    QCPPainter painter(device);
    painter.setMode(QCPPainter::pmVectorized);
    painter.setMode(QCPPainter::pmNoCaching);
    plot->toPainter(&painter, width, height);
    painter.end();
}

} // namespace

QSize plotExportSize(const QCustomPlot* plot) {
    // A plot as laid out on a laptop (a 1308 × 143 strip, a 220 × 150 heatmap)
    // is too small for a slide: at least 1200 wide, in proportion, and a strip
    // at least 400 tall so that its values have room.
    const QSize shown = plot->size().expandedTo(QSize(1, 1));
    const double scale = std::max(1.0, 1200.0 / shown.width());
    return QSize(static_cast<int>(std::lround(shown.width() * scale)),
                 std::max(400, static_cast<int>(std::lround(shown.height() * scale))));
}

QString savePlot(QCustomPlot* plot, const QString& path) {
    const QSize size = plotExportSize(plot);
    const int width = size.width();
    const int height = size.height();
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    const QString lower = path.toLower();
    if (lower.endsWith(QStringLiteral(".svg"))) {
        QSvgGenerator svg;
        svg.setOutputDevice(&buffer);
        svg.setSize(QSize(width, height));
        svg.setViewBox(QRect(0, 0, width, height));
        svg.setTitle(QStringLiteral("Gapscope plot"));
        paintVector(plot, &svg, width, height);
    } else if (lower.endsWith(QStringLiteral(".pdf"))) {
        QPdfWriter pdf(&buffer);
        pdf.setCreator(QStringLiteral("Gapscope"));
        pdf.setResolution(72); // one point per screen pixel: the page is the plot's size
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        pdf.setPageSize(QPageSize(QSizeF(width, height), QPageSize::Point, QString(), QPageSize::ExactMatch));
        paintVector(plot, &pdf, width, height);
    } else {
        return savePng(plot->toPixmap(width, height).toImage(), path);
    }
    buffer.close();
    if (bytes.isEmpty())
        return QStringLiteral("%1: the plot rendered to nothing").arg(path);
    return saveBytes(bytes, path);
}

QByteArray pngBytes(const QImage& image) {
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (image.isNull() || !image.save(&buffer, "PNG"))
        return {};
    return bytes;
}

QString savePng(const QImage& image, const QString& path) {
    const QByteArray bytes = pngBytes(image);
    if (bytes.isEmpty())
        return QStringLiteral("%1: could not encode the image as PNG").arg(path);
    return saveBytes(bytes, path);
}

QString saveBytes(const QByteArray& bytes, const QString& path) {
    if (auto err = writeFileAtomically(
            path.toStdString(), std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size()))))
        return QString::fromStdString(err->describe());
    return {};
}

void enablePlotExport(QCustomPlot* plot, const QString& suggestedName) {
    plot->setContextMenuPolicy(Qt::CustomContextMenu);
    QObject::connect(
        plot, &QWidget::customContextMenuRequested, plot, [plot, suggestedName](const QPoint& at) {
            QMenu menu(plot);
            menu.addAction(QObject::tr("Save plot as PNG, PDF or SVG…"), plot, [plot, suggestedName] {
                QString filter;
                const QString path = QFileDialog::getSaveFileName(
                    plot, QObject::tr("Save plot"), suggestedName + QStringLiteral(".png"),
                    QObject::tr("PNG image (*.png);;PDF document (*.pdf);;SVG drawing (*.svg)"), &filter);
                if (path.isEmpty())
                    return;
                // A name typed without extension takes the chosen format's.
                QString target = path;
                const QString lower = path.toLower();
                if (!lower.endsWith(QStringLiteral(".png")) && !lower.endsWith(QStringLiteral(".pdf")) &&
                    !lower.endsWith(QStringLiteral(".svg")))
                    target += filter.contains(QStringLiteral("*.svg"))   ? QStringLiteral(".svg")
                              : filter.contains(QStringLiteral("*.pdf")) ? QStringLiteral(".pdf")
                                                                         : QStringLiteral(".png");
                const QString err = savePlot(plot, target);
                if (!err.isEmpty())
                    QMessageBox::warning(plot, QObject::tr("Save plot"), err);
            });
            menu.exec(plot->mapToGlobal(at));
        });
}

} // namespace gapscope
