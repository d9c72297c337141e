#include "core/metrics/stats_bounds.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gapscope {

std::optional<TensorStats> tensorStats(const std::vector<std::string>& fields,
                                       const std::vector<double>& values) {
    if (fields.size() != values.size())
        return std::nullopt;
    TensorStats s;
    struct Slot {
        const char* name;
        double TensorStats::*at;
        bool required;
    };
    static const Slot kSlots[] = {
        {"min", &TensorStats::min, true},
        {"max", &TensorStats::max, true},
        {"mean", &TensorStats::mean, true},
        {"abs_max", &TensorStats::abs_max, false},
        {"abs_mean", &TensorStats::abs_mean, true},
        {"std", &TensorStats::std, false},
        {"rms", &TensorStats::rms, true},
        {"l1_norm", &TensorStats::l1_norm, true},
        {"l2_norm", &TensorStats::l2_norm, true},
        {"nan_count", &TensorStats::nan_count, false},
        {"inf_count", &TensorStats::inf_count, false},
        {"zero_count", &TensorStats::zero_count, false},
        {"p99_abs", &TensorStats::p99_abs, false},
    };
    for (const auto& slot : kSlots) {
        const auto it = std::find(fields.begin(), fields.end(), slot.name);
        if (it == fields.end()) {
            if (slot.required)
                return std::nullopt;
            s.*slot.at = std::numeric_limits<double>::quiet_NaN();
            continue;
        }
        s.*slot.at = values[static_cast<std::size_t>(it - fields.begin())];
    }
    return s;
}

TensorStats statsOf(const std::vector<double>& values) {
    TensorStats s;
    if (values.empty())
        return s;
    s.min = *std::min_element(values.begin(), values.end());
    s.max = *std::max_element(values.begin(), values.end());
    double sum = 0, abs = 0, squares = 0;
    std::vector<double> magnitudes;
    for (const double v : values) {
        sum += v;
        abs += std::fabs(v);
        squares += v * v;
        s.abs_max = std::max(s.abs_max, std::fabs(v));
        s.zero_count += v == 0;
        magnitudes.push_back(std::fabs(v));
    }
    const auto n = static_cast<double>(values.size());
    s.mean = sum / n;
    s.abs_mean = abs / n;
    s.l1_norm = abs;
    s.l2_norm = std::sqrt(squares);
    s.rms = std::sqrt(squares / n);
    double deviations = 0;
    for (const double v : values)
        deviations += (v - s.mean) * (v - s.mean);
    s.std = std::sqrt(deviations / n);
    // The k-th largest |x|, k = ceil(n / 100), as the reducer's p99_abs.
    const std::size_t k = (values.size() + 99) / 100;
    std::nth_element(magnitudes.begin(), magnitudes.begin() + static_cast<std::ptrdiff_t>(k - 1),
                     magnitudes.end(), std::greater<double>());
    s.p99_abs = magnitudes[k - 1];
    return s;
}

namespace {

std::optional<double> elementCount(const TensorStats& s) {
    double n = 0;
    if (s.rms > 0 && std::isfinite(s.rms) && std::isfinite(s.l2_norm))
        n = std::round((s.l2_norm / s.rms) * (s.l2_norm / s.rms));
    else if (s.abs_mean > 0 && std::isfinite(s.abs_mean) && std::isfinite(s.l1_norm))
        n = std::round(s.l1_norm / s.abs_mean);
    if (!(n >= 1))
        return std::nullopt;
    return n;
}

} // namespace

std::optional<StatsBounds> statsBounds(const TensorStats& a, const TensorStats& b) {
    const auto na = elementCount(a);
    if (!na)
        return std::nullopt;
    // The device's own count, where its statistics tell one, must agree: a tensor
    // of another size is another tensor, and no bound below holds for it.
    if (const auto nb = elementCount(b); nb && std::fabs(*nb - *na) > 0.5 + 1e-3 * *na)
        return std::nullopt;
    const double n = *na;
    const double rootN = std::sqrt(n);
    // A sum's statistics carry their own float32 rounding (a reduction's error
    // grows with log2 n): a difference within it is none. Extremes are exact.
    const double rounding = std::ldexp(1.0, -23) * (1 + std::log2(n));
    const auto beyond = [rounding](double x, double y) {
        return std::max(0.0, std::fabs(x - y) - rounding * (std::fabs(x) + std::fabs(y)));
    };
    double m = std::max(std::fabs(a.max - b.max), std::fabs(a.min - b.min));
    if (std::isfinite(a.abs_max) && std::isfinite(b.abs_max))
        m = std::max(m, std::fabs(a.abs_max - b.abs_max));
    const double e = std::max({beyond(a.l2_norm, b.l2_norm), rootN * beyond(a.mean, b.mean),
                               beyond(a.l1_norm, b.l1_norm) / rootN, m});
    if (!std::isfinite(e))
        return std::nullopt;
    StatsBounds out;
    out.error_floor = e;
    GapMetrics& g = out.metrics;
    g.elements = static_cast<std::uint64_t>(n);
    g.mse = e * e / n;
    g.l1 = e; // Σ|d| ≥ ‖d‖₂
    g.mean_abs = e / n;
    g.max_abs = std::max(m, e / rootN);
    const double inf = std::numeric_limits<double>::infinity();
    g.rel_l2 = a.l2_norm > 0 ? e / a.l2_norm : (e > 0 ? inf : 0.0);
    g.snr = e > 0 ? (a.l2_norm > 0 ? 20 * std::log10(a.l2_norm / e) : -inf) : inf;
    g.sqnr = g.snr;
    g.runtime_sqnr = e > 0 ? (b.l2_norm > 0 ? 20 * std::log10(b.l2_norm / e) : -inf) : inf;
    if (a.l2_norm > 0 && b.l2_norm > 0)
        g.cosine = std::clamp(
            (a.l2_norm * a.l2_norm + b.l2_norm * b.l2_norm - e * e) / (2 * a.l2_norm * b.l2_norm), -1.0, 1.0);
    else
        g.cosine = a.l2_norm == b.l2_norm ? 1.0 : 0.0;
    g.nan_aot = static_cast<std::uint64_t>(std::isfinite(a.nan_count) ? a.nan_count : 0);
    g.nan_runtime = static_cast<std::uint64_t>(std::isfinite(b.nan_count) ? b.nan_count : 0);
    g.inf_aot = static_cast<std::uint64_t>(std::isfinite(a.inf_count) ? a.inf_count : 0);
    g.inf_runtime = static_cast<std::uint64_t>(std::isfinite(b.inf_count) ? b.inf_count : 0);
    return out;
}

} // namespace gapscope
