#include "widgets/graph_legend.h"

#include "widgets/graph_box_summary.h"
#include "widgets/metric_colors.h"

#include <QColor>
#include <QCoreApplication>
#include <algorithm>
#include <cmath>

namespace gapscope {

namespace {

constexpr double kTimeDecades = 3; // the time colours span 1000× down from the slowest
const QColor kUncoloured(235, 235, 235);

QString swatch(const QColor& c) {
    return QStringLiteral("<span style=\"background:%1\">&nbsp;&nbsp;&nbsp;&nbsp;</span>").arg(c.name());
}

QString tr(const char* text) {
    return QCoreApplication::translate("GraphView", text);
}

} // namespace

double logTimeFraction(double ofSlowest) {
    if (!(ofSlowest > 0))
        return 0;
    return std::clamp(1.0 + std::log10(ofSlowest) / kTimeDecades, 0.04, 1.0);
}

QString graphLegend(GraphColouring colouring, double maxShare, const QString& differenceLabel) {
    switch (colouring) {
    case GraphColouring::Difference:
        return tr("%1 B worse by 20 or more (%2) %3 a little worse %4 better %5 no partner in B")
            .arg(swatch(differenceColour(20)), differenceLabel.toHtmlEscaped(), swatch(differenceColour(5)),
                 swatch(differenceColour(-10)), swatch(QColor(225, 225, 225)));
    case GraphColouring::Time:
        if (!(maxShare > 0))
            return tr("%1 no time: the ETDump has no timing for this run").arg(swatch(kUncoloured));
        return tr("Time, log scale: %1 the slowest (%2 % of the run) %3 1/10 of it %4 1/100 %5 1/1000 or "
                  "less "
                  "%6 untimed")
            .arg(swatch(timeColour(1.0)))
            .arg(100 * maxShare, 0, 'g', 3)
            .arg(swatch(timeColour(logTimeFraction(0.1))), swatch(timeColour(logTimeFraction(0.01))),
                 swatch(timeColour(logTimeFraction(0.001))), swatch(kUncoloured));
    case GraphColouring::Gap:
    case GraphColouring::GapAndTime: break;
    }
    return tr("Gap (worst rel. L2 in the node): %1 under 0.001 %2 0.01 %3 0.1 %4 0.5 or more %5 not "
              "compared%6")
        .arg(swatch(gapColor(0)), swatch(gapColor(0.01)), swatch(gapColor(0.1)), swatch(gapColor(0.5)),
             swatch(kUncoloured),
             colouring == GraphColouring::GapAndTime
                 ? tr("; the bar under a node: its time against the slowest's")
                 : QString());
}

} // namespace gapscope
