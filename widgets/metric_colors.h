#pragma once

#include <QColor>

namespace gapscope {

// The gap colour scale shared by the table and the chart: relative L2 error on a
// log scale from 1e-8 (green, numerically identical) to 1e-1 (red).
QColor gapColor(double relL2);

} // namespace gapscope
