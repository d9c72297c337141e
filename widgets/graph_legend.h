#pragma once

#include <QString>

namespace gapscope {

// What the graph's node colours show (GraphView's colour menu, and the A/B difference).
enum class GraphColouring { Gap, Time, GapAndTime, Difference };

// A node's time against the slowest's on a log scale over three decades,
// 1 + log10(ofSlowest) / 3, at least a tint for anything timed: on a linear
// scale a Llama's graph was white but for the one op taking 89% of the run
// (issue 56). The argument of timeColour.
double logTimeFraction(double ofSlowest);

// The legend under the colour menu: a swatch for each colour and what it means
// (rich text). `maxShare`: the slowest op's share of the run (0: none timed);
// `differenceLabel`: the metric the A/B difference is in.
QString graphLegend(GraphColouring colouring, double maxShare, const QString& differenceLabel);

} // namespace gapscope
