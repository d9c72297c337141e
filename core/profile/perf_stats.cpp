#include "core/profile/perf_stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace gapscope {

double linearPercentile(const std::vector<double>& sorted, double q) {
    // numpy's _compute_virtual_index for the linear method (alpha = beta = 1),
    // written as numpy computes it: n·q + (1 + q·(1 − α − β)) − 1, which is
    // (n − 1)·q up to rounding; then a + (b − a)·g as its _lerp (exact at g = 1).
    const double qf = q / 100.0;
    const double n = static_cast<double>(sorted.size());
    const double index = std::clamp(n * qf + (1.0 + qf * (1.0 - 1.0 - 1.0)) - 1.0, 0.0, n - 1);
    const auto below = static_cast<std::size_t>(std::floor(index));
    const std::size_t above = std::min(below + 1, sorted.size() - 1);
    const double g = index - static_cast<double>(below);
    const double a = sorted[below], b = sorted[above];
    const double diff = b - a;
    return g >= 0.5 ? b - diff * (1 - g) : a + diff * g;
}

PerfStats perfStats(const std::vector<double>& raw) {
    std::vector<double> sorted(raw);
    std::sort(sorted.begin(), sorted.end());
    PerfStats s;
    s.p10 = linearPercentile(sorted, 10);
    s.p50 = linearPercentile(sorted, 50);
    s.p90 = linearPercentile(sorted, 90);
    // numpy.mean sums pairwise; over a handful of runs that is the plain sum in order.
    s.avg = std::accumulate(raw.begin(), raw.end(), 0.0) / static_cast<double>(raw.size());
    s.min = sorted.front();
    s.max = sorted.back();
    return s;
}

} // namespace gapscope
