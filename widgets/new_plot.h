#pragma once

class QCustomPlot;
class QWidget;

namespace gapscope {

// A QCustomPlot as every view of the app makes one. QCustomPlot repaints at
// once (repaint(), QCP::phImmediateRefresh) after each replot by default, and a
// repaint paints every dirty widget of the window there and then: loading a
// session replotted the gap chart and the tensor panel's plots inside one
// handler and painted the whole window three times in it (6, 3 and 11 ms); a
// pairing's four heatmaps did the same in the A/B tab. Here a replot asks for
// an update(), and the window is painted once when the event loop gets to it.
QCustomPlot* newPlot(QWidget* parent);

} // namespace gapscope
