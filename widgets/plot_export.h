#pragma once

#include <QSize>
#include <QString>

class QCustomPlot;
class QImage;

namespace gapscope {

// Writes a plot as PNG, PDF or SVG, chosen by the path's extension (PNG when it
// names none of them), atomically: a reader never sees half a file. Returns an
// error message naming the path, or an empty string.
// The size a plot is saved at: its on-screen size, scaled up to at least 1200
// pixels wide (in proportion), and at least 400 tall.
QSize plotExportSize(const QCustomPlot* plot);
QString savePlot(QCustomPlot* plot, const QString& path);

// Writes an image as PNG, atomically and under writeFileAtomically's rules (it
// never replaces an input or anything but a regular file): the one way the app
// writes pictures (plots, report figures, window screenshots).
QString savePng(const QImage& image, const QString& path);
// The PNG encoding of an image (empty when it cannot be encoded).
QByteArray pngBytes(const QImage& image);
QString saveBytes(const QByteArray& bytes, const QString& path);

// Gives a plot a context menu that saves it (PNG, PDF or SVG) through a file
// dialog; `suggestedName` is the file name offered, without extension.
void enablePlotExport(QCustomPlot* plot, const QString& suggestedName);

} // namespace gapscope
