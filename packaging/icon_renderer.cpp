// Renders the application's SVG icon to the PNG sizes of the hicolor theme at
// build time, with the Qt SVG renderer the app itself uses, so the package's
// bitmaps can never drift from the one committed SVG.
// usage: gapscope-icon-renderer ICON.svg OUTDIR SIZE...
//   writes OUTDIR/<SIZE>x<SIZE>/apps/<basename of ICON>.png
#include <QDir>
#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QSvgRenderer>
#include <cstdio>

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: %s ICON.svg OUTDIR SIZE...\n", argv[0]);
        return 2;
    }
    // No QGuiApplication: raster painting into a QImage needs no platform
    // plugin, display or runtime directory (builds run on servers), and the
    // icon has no text that would need the font database.
    const QString svg = QString::fromLocal8Bit(argv[1]);
    QSvgRenderer renderer(svg);
    if (!renderer.isValid()) {
        std::fprintf(stderr, "gapscope-icon-renderer: %s: not a valid SVG\n", argv[1]);
        return 1;
    }
    const QString name = QFileInfo(svg).completeBaseName() + QStringLiteral(".png");
    for (int i = 3; i < argc; ++i) {
        const int size = QString::fromLocal8Bit(argv[i]).toInt();
        if (size <= 0 || size > 4096) {
            std::fprintf(stderr, "gapscope-icon-renderer: bad size '%s'\n", argv[i]);
            return 2;
        }
        QImage image(size, size, QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::transparent);
        QPainter painter(&image);
        painter.setRenderHint(QPainter::Antialiasing);
        renderer.render(&painter, QRectF(0, 0, size, size));
        painter.end();
        const QString dir = QStringLiteral("%1/%2x%2/apps").arg(QString::fromLocal8Bit(argv[2])).arg(size);
        if (!QDir().mkpath(dir) || !image.save(dir + QLatin1Char('/') + name, "PNG")) {
            std::fprintf(stderr, "gapscope-icon-renderer: cannot write %s/%s\n", qPrintable(dir), qPrintable(name));
            return 1;
        }
    }
    return 0;
}
