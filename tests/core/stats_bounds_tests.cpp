// The gap a STATS tap's statistics prove (issue 58, docs/metrics.md "Statistics
// taps"): each bound holds against the full tensors' truth, on random tensors
// and perturbations of every kind, and is exact where the statistics see the
// whole error (an offset).
#include "core/metrics/stats_bounds.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <random>

using namespace gapscope;

namespace {

struct Truth {
    double e = 0, mse = 0, max_abs = 0, snr = 0, cosine = 0, rel_l2 = 0, l1 = 0;
};

Truth truthOf(const std::vector<double>& a, const std::vector<double>& b) {
    Truth t;
    double aa = 0, bb = 0, ab = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const double d = a[i] - b[i];
        t.e += d * d;
        t.l1 += std::fabs(d);
        t.max_abs = std::max(t.max_abs, std::fabs(d));
        aa += a[i] * a[i];
        bb += b[i] * b[i];
        ab += a[i] * b[i];
    }
    t.mse = t.e / static_cast<double>(a.size());
    t.e = std::sqrt(t.e);
    t.snr = 20 * std::log10(std::sqrt(aa) / t.e);
    t.cosine = ab / std::sqrt(aa * bb);
    t.rel_l2 = t.e / std::sqrt(aa);
    return t;
}

} // namespace

TEST_CASE("every statistics bound holds against the full tensors", "[stats-bounds]") {
    std::mt19937 rng(58);
    std::normal_distribution<double> normal;
    std::uniform_int_distribution<int> kind(0, 5), size(1, 3000);
    int proved = 0;
    for (int trial = 0; trial < 2000; ++trial) {
        CAPTURE(trial);
        std::vector<double> a(static_cast<std::size_t>(size(rng)));
        for (auto& v : a)
            v = normal(rng) * 3 + 0.5;
        std::vector<double> b = a;
        const double scale = std::pow(10.0, -std::uniform_real_distribution<double>(0, 6)(rng));
        switch (kind(rng)) {
        case 0:
            for (auto& v : b)
                v += normal(rng) * scale;
            break; // noise
        case 1:
            for (auto& v : b)
                v += scale;
            break; // an offset
        case 2:
            for (auto& v : b)
                v *= 1 + scale;
            break; // a gain
        case 3:
            for (auto& v : b)
                v = std::round(v / scale) * scale;
            break; // quantised
        case 4:
            for (auto& v : b)
                v = std::clamp(v, -1.0, 1.0);
            break;                                      // saturated
        case 5: b[b.size() / 2] += 1000 * scale; break; // one outlier
        }
        const auto bounds = statsBounds(statsOf(a), statsOf(b));
        REQUIRE(bounds);
        const Truth t = truthOf(a, b);
        const GapMetrics& g = bounds->metrics;
        const double slack = 1e-9;
        CHECK(g.elements == a.size());
        CHECK(bounds->error_floor <= t.e * (1 + slack) + 1e-12);
        CHECK(g.mse <= t.mse * (1 + slack) + 1e-24);
        CHECK(g.l1 <= t.l1 * (1 + slack) + 1e-12);
        CHECK(g.max_abs <= t.max_abs * (1 + slack) + 1e-12);
        CHECK(g.rel_l2 <= t.rel_l2 * (1 + slack) + 1e-12);
        CHECK(g.snr >= t.snr - 1e-6);
        CHECK(g.cosine >= t.cosine - 1e-9);
        proved += g.snr < 40;
    }
    CHECK(proved > 200); // the bounds are not vacuous: many prove a gap
}

TEST_CASE("an offset is seen whole by the statistics: the bound is the truth", "[stats-bounds]") {
    std::vector<double> a{1, -2, 3, 0.5, 4}, b = a;
    for (auto& v : b)
        v += 0.25;
    const auto bounds = statsBounds(statsOf(a), statsOf(b));
    REQUIRE(bounds);
    const Truth t = truthOf(a, b);
    CHECK(bounds->error_floor == Approx(t.e));
    CHECK(bounds->metrics.snr == Approx(t.snr));
    CHECK(bounds->metrics.max_abs == Approx(t.max_abs));
}

TEST_CASE("statistics of equal tensors prove nothing, and statistics that cannot tell the size give none",
          "[stats-bounds]") {
    const std::vector<double> a{1, 2, 3};
    const auto same = statsBounds(statsOf(a), statsOf(a));
    REQUIRE(same);
    CHECK(same->error_floor == 0);
    CHECK(std::isinf(same->metrics.snr));
    // A permutation has the same statistics: no bound can see it.
    const auto permuted = statsBounds(statsOf(a), statsOf({3, 1, 2}));
    REQUIRE(permuted);
    CHECK(std::isinf(permuted->metrics.snr));
    // All zero: the element count is unknown.
    CHECK_FALSE(statsBounds(statsOf({0, 0}), statsOf({1, 1})));
    // Another size on the device: another tensor.
    CHECK_FALSE(statsBounds(statsOf({1, 2, 3}), statsOf({1, 2, 3, 4, 5, 6})));
}

TEST_CASE("a tap's fields are read by name, and fields the bounds need are required", "[stats-bounds]") {
    const std::vector<std::string> fields{"min",       "max",        "mean",    "abs_max", "abs_mean",
                                          "std",       "rms",        "l1_norm", "l2_norm", "nan_count",
                                          "inf_count", "zero_count", "p99_abs"};
    std::vector<double> values{-1, 2, 0.5, 2, 1.5, 1.5, 1.58, 3, 2.23, 0, 0, 0, 2};
    const auto s = tensorStats(fields, values);
    REQUIRE(s);
    CHECK(s->l2_norm == 2.23);
    CHECK(s->p99_abs == 2);
    CHECK_FALSE(tensorStats({"min", "max"}, {0, 1}));
    CHECK_FALSE(tensorStats(fields, {1, 2}));
}
