#pragma once

#include <QFont>
#include <QImage>
#include <QSize>
#include <QString>
#include <vector>

class QCustomPlot;

namespace gapscope {

// Plots rendered off-screen into one picture: a bold title line, the plots in
// rows of `columns`, each `cell` large, and a footer line. QCustomPlot lays each
// plot out at that size without showing it, so no control of the window
// appears (the report's figures).
QImage renderPlotGrid(const QString& title, const std::vector<QCustomPlot*>& plots, int columns,
                      const QString& footer, const QFont& font, QSize cell);

} // namespace gapscope
