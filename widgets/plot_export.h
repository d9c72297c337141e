#pragma once

#include <QString>

class QCustomPlot;

namespace gapscope {

// Writes a plot as PNG, PDF or SVG, chosen by the path's extension (PNG when it
// names none of them), atomically: a reader never sees half a file. Returns an
// error message naming the path, or an empty string.
QString savePlot(QCustomPlot* plot, const QString& path);

// Gives a plot a context menu that saves it (PNG, PDF or SVG) through a file
// dialog; `suggestedName` is the file name offered, without extension.
void enablePlotExport(QCustomPlot* plot, const QString& suggestedName);

} // namespace gapscope
