#pragma once

#include <cmath>

namespace gapscope {

// Neumaier-compensated sum: keeps float64 reductions within a few ulps of the
// exact value, so results agree with torch's pairwise reductions to ~1e-15.
struct Sum {
    double s = 0, c = 0;
    void add(double x) {
        const double t = s + x;
        // Infinities and NaN propagate through s alone; compensating them gives NaN.
        if (std::isfinite(t)) {
            if (std::fabs(s) >= std::fabs(x))
                c += (s - t) + x;
            else
                c += (x - t) + s;
        }
        s = t;
    }
    double value() const { return std::isfinite(s) ? s + c : s; }
};

} // namespace gapscope
