#pragma once

#include <qcustomplot.h>

namespace gapscope {

// The same scatter style drawn once into a pixmap, which QCustomPlot then
// blits at each point: a QPainter ellipse per point, antialiased, took
// 100 ms and more of the UI thread for the tens of thousands of points of a
// tensor's scatter or a long model's gap chart.
QCPScatterStyle scatterSprite(const QCPScatterStyle& style);

} // namespace gapscope
