#pragma once

#include <QString>
#include <vector>

class QCPColorMap;
class QCPItemText;
class QCPRange;
class QCustomPlot;
class QWidget;

namespace gapscope {

// One heatmap of a tensor slice, as the tensor panels draw it: a title above, a
// colour scale beside, one cell per element (no interpolation, so quantisation
// steps stay visible), whole-number element indices on the axes, row 0 on top.
// The wheel zooms, a drag pans, a double-click shows the whole slice again.
struct HeatmapPlot {
    QCustomPlot* plot = nullptr;
    QCPColorMap* map = nullptr;
    QCPItemText* empty = nullptr; // why there is no map, in its place
};
// `diverging`: blue-white-red around zero (a difference); else viridis.
// `exportName`: the file name the plot's context menu suggests for a PNG.
HeatmapPlot makeHeatmapPlot(QWidget* parent, const QString& title, bool diverging, const QString& exportName);

// Shows `values` (height rows of width, row-major; NaN for none) of a slice
// that shows every stride-th element: the axes count elements of the tensor.
// The data range is `range` when given, else fitted to the values. No values:
// no map and no colour scale (they would look like data), and `whyEmpty` in
// their place.
void drawHeatmap(const HeatmapPlot& h, const std::vector<double>& values, int width, int height, int stride,
                 const QCPRange* range, const QString& whyEmpty = {});

// The largest |v| of the finite values; 0 when none.
double maxAbs(const std::vector<double>& values);

} // namespace gapscope
