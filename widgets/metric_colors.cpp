#include "widgets/metric_colors.h"

#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

namespace gapscope {

QColor gapColor(double relL2) {
    if (std::isnan(relL2))
        return QColor(200, 200, 200);
    const double t = relL2 <= 0 ? 0.0 : std::clamp((std::log10(relL2) + 8.0) / 7.0, 0.0, 1.0);
    // Green → amber → red, light enough for black text.
    const QColor good(198, 239, 206), mid(255, 235, 156), bad(255, 160, 150);
    const auto mix = [](const QColor& a, const QColor& b, double u) {
        return QColor::fromRgbF(static_cast<float>(a.redF() + (b.redF() - a.redF()) * u),
                                static_cast<float>(a.greenF() + (b.greenF() - a.greenF()) * u),
                                static_cast<float>(a.blueF() + (b.blueF() - a.blueF()) * u));
    };
    return t < 0.5 ? mix(good, mid, t * 2) : mix(mid, bad, (t - 0.5) * 2);
}

QCPColorGradient viridisGradient() {
    QCPColorGradient g;
    g.clearColorStops();
    g.setColorStopAt(0.0, QColor(0x44, 0x01, 0x54));
    g.setColorStopAt(0.25, QColor(0x3b, 0x52, 0x8b));
    g.setColorStopAt(0.5, QColor(0x21, 0x91, 0x8c));
    g.setColorStopAt(0.75, QColor(0x5e, 0xc9, 0x62));
    g.setColorStopAt(1.0, QColor(0xfd, 0xe7, 0x25));
    return g;
}

QCPColorGradient divergingGradient() {
    QCPColorGradient g;
    g.clearColorStops();
    g.setColorStopAt(0.0, QColor(33, 102, 172));
    g.setColorStopAt(0.5, QColor(247, 247, 247));
    g.setColorStopAt(1.0, QColor(178, 24, 43));
    return g;
}

} // namespace gapscope
