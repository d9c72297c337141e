#pragma once

#include <QColor>

class QCPColorGradient;

namespace gapscope {

// The gap colour scale shared by the table and the chart: relative L2 error on a
// log scale from 1e-8 (green, numerically identical) to 1e-1 (red).
QColor gapColor(double relL2);

// The heatmaps' scales: perceptually uniform (viridis) for values; blue-white-
// red around zero for differences.
QCPColorGradient viridisGradient();
QCPColorGradient divergingGradient();

} // namespace gapscope
