#include "widgets/metric_colors.h"

#include <algorithm>
#include <cmath>

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

} // namespace gapscope
