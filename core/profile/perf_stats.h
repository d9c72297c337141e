#pragma once

#include <vector>

namespace gapscope {

// ExecuTorch's PerfData over one event's durations (one per run of its block):
// p10, p50 and p90 as numpy.percentile computes them (linear interpolation
// between the two nearest ranks), avg as numpy.mean, min and max.
struct PerfStats {
    double p10 = 0, p50 = 0, p90 = 0, avg = 0, min = 0, max = 0;
};

// `raw` must not be empty.
PerfStats perfStats(const std::vector<double>& raw);

// numpy.percentile(values, q) with its default ("linear") method; `sorted` ascending, not empty.
double linearPercentile(const std::vector<double>& sorted, double q);

} // namespace gapscope
