#pragma once

#include "core/metrics/gap_metrics.h"

#include <optional>
#include <string>
#include <vector>

namespace gapscope {

// What ExecuTorch's STATS reducer (intermediate_output_tap, 1.5.1) writes for a
// tensor, in fp32: the fields a tap's statistics hold, by name.
struct TensorStats {
    double min = 0, max = 0, mean = 0, abs_max = 0, abs_mean = 0, std = 0, rms = 0, l1_norm = 0, l2_norm = 0;
    double nan_count = 0, inf_count = 0, zero_count = 0, p99_abs = 0;
};
// The statistics named by `fields` (a tap's) from `values`; none when a field
// the bounds need (l2_norm, rms or l1_norm and abs_mean for the element count,
// mean, min, max) is missing or the counts are not the same length.
std::optional<TensorStats> tensorStats(const std::vector<std::string>& fields,
                                       const std::vector<double>& values);
// The statistics of a tensor, as the STATS reducer computes them (a test's truth).
TensorStats statsOf(const std::vector<double>& values);

// The gap between a reference a and a device tensor b that the statistics of
// each prove, with no element of either (docs/metrics.md, "Statistics taps"):
// every number is a bound in the direction that makes the gap look smaller, so
// a bound past a threshold proves the gap is past it, and a bound within it
// proves nothing. With E = ‖a − b‖₂ and n elements,
//   E ≥ max(|‖a‖ − ‖b‖|, √n·|mean_a − mean_b|, |‖a‖₁ − ‖b‖₁| / √n, M),
//   M = max(|max_a − max_b|, |min_a − min_b|, |abs_max_a − abs_max_b|) ≤ max|a − b|,
// and from it mse ≥ E²/n, l1 = Σ|d| ≥ E, mean_abs ≥ E/n, max_abs ≥ max(M, E/√n),
// rel_l2 ≥ E/‖a‖, snr = sqnr ≤ 20·log10(‖a‖/E), runtime_sqnr ≤ 20·log10(‖b‖/E),
// cosine ≤ (‖a‖² + ‖b‖² − E²)/(2‖a‖‖b‖).
// n is (‖a‖/rms_a)² rounded (or ‖a‖₁/abs_mean_a); none when it cannot be told
// (an all-zero reference) or the two sides disagree on it. The statistics are
// float32 sums: a difference of a sum within 2⁻²³·(1 + log2 n)·(|x| + |y|) is
// taken as rounding, not as a gap (extremes are exact and kept whole).
struct StatsBounds {
    GapMetrics metrics;     // every field a bound as above; `elements` is n
    double error_floor = 0; // the lower bound on E
};
std::optional<StatsBounds> statsBounds(const TensorStats& reference, const TensorStats& runtime);

} // namespace gapscope
