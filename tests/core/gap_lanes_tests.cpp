// computeGaps measures float32 pairs four at a time in the lanes of one
// vector; every number must be computeGap's, bit for bit, whatever the mix of
// pairs, lengths, shapes and non-finite values (reports stay byte-identical).
#include "core/metrics/gap_accumulator.h"
#include "core/metrics/gap_lanes.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

using namespace gapscope;

namespace {

struct Tensor {
    std::vector<float> values;
    std::vector<std::int64_t> shape;
    ScalarType type = ScalarType::Float;
    Operand operand() const {
        return Operand::tensor(
            type, shape,
            {reinterpret_cast<const std::uint8_t*>(values.data()), values.size() * sizeof(float)},
            type == ScalarType::Float ? values.size() : values.size() * 2);
    }
};

// The same double, bit for bit (NaN equal to the same NaN).
bool same(double a, double b) {
    return std::memcmp(&a, &b, sizeof a) == 0;
}
bool same(const std::optional<double>& a, const std::optional<double>& b) {
    return a.has_value() == b.has_value() && (!a || same(*a, *b));
}

void checkSame(const GapResult& lanes, const GapResult& alone) {
    REQUIRE(lanes.problem == alone.problem);
    REQUIRE(lanes.metrics.has_value() == alone.metrics.has_value());
    if (!alone.metrics)
        return;
    const GapMetrics &x = *lanes.metrics, &y = *alone.metrics;
    for (auto [p, q] : {std::pair<double, double>{x.mse, y.mse},
                        {x.l1, y.l1},
                        {x.snr, y.snr},
                        {x.mean_abs, y.mean_abs},
                        {x.max_abs, y.max_abs},
                        {x.rel_l2, y.rel_l2},
                        {x.cosine, y.cosine},
                        {x.sqnr, y.sqnr},
                        {x.runtime_sqnr, y.runtime_sqnr}})
        CHECK(same(p, q));
    CHECK(x.max_abs_index == y.max_abs_index);
    CHECK(x.compared_shape == y.compared_shape);
    CHECK(x.elements == y.elements);
    CHECK(x.nan_aot == y.nan_aot);
    CHECK(x.inf_runtime == y.inf_runtime);
    CHECK(same(x.top1_agreement, y.top1_agreement));
    CHECK(same(x.top5_agreement, y.top5_agreement));
    CHECK(same(x.rmse_steps, y.rmse_steps));
    CHECK(x.broadcast == y.broadcast);
}

} // namespace

TEST_CASE("computeGaps gives computeGap's numbers bit for bit, four float32 pairs at a time", "[metrics]") {
    std::mt19937 rng(17);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::uniform_int_distribution<int> pickLength(0, 7);
    const std::int64_t widths[] = {1, 3, 5, 16, 31, 132, 1000, 5000};
    for (int round = 0; round < 12; ++round) {
        INFO("round " << round);
        std::vector<Tensor> refs, runs;
        std::vector<GapOptions> options(11);
        for (std::size_t i = 0; i < options.size(); ++i) {
            // Shapes of every length the lanes meet: a row or two, some
            // longer than a block of 4096, one lane shorter than the others.
            const std::int64_t width = widths[pickLength(rng)], rows = 1 + static_cast<std::int64_t>(i % 3);
            Tensor a, b;
            a.shape = b.shape = {rows, width};
            a.values.resize(static_cast<std::size_t>(rows * width));
            b.values.resize(a.values.size());
            const float drift = std::pow(10.0f, -static_cast<float>(i % 6));
            for (std::size_t k = 0; k < a.values.size(); ++k) {
                a.values[k] = normal(rng);
                b.values[k] = a.values[k] + drift * normal(rng);
            }
            // Now and then: an outlier term (speculation missed), a NaN or
            // an infinity (the general path), a pair that does not fit.
            if (round % 3 == 1 && i == 2)
                b.values[b.values.size() / 2] += 1e6f;
            if (round % 4 == 2 && i == 5)
                b.values.back() = NAN;
            if (round % 4 == 3 && i == 1)
                a.values.front() = INFINITY;
            if (i == 7)
                b.shape = {rows * width}; // a reshape: computeGap alone
            if (i == 9)
                options[i].step = 0.01;
            refs.push_back(std::move(a));
            runs.push_back(std::move(b));
        }
        if (round % 5 == 4)
            options[3].breakdown_axis = 0;
        std::vector<Operand> as, bs;
        for (std::size_t i = 0; i < refs.size(); ++i) {
            as.push_back(refs[i].operand());
            bs.push_back(runs[i].operand());
        }
        std::vector<GapPair> pairs;
        std::size_t fitting = 0;
        for (std::size_t i = 0; i < refs.size(); ++i) {
            pairs.push_back({&as[i], &bs[i], &options[i]});
            fitting += fitsGapLanes(as[i], bs[i], options[i]) ? 1 : 0;
        }
        CHECK(fitting >= 8); // two groups of four went through the lanes
        CHECK_FALSE(fitsGapLanes(as[7], bs[7], options[7]));
        const auto together = computeGaps(pairs);
        REQUIRE(together.size() == pairs.size());
        for (std::size_t i = 0; i < pairs.size(); ++i) {
            INFO("pair " << i);
            checkSame(together[i], computeGap(as[i], bs[i], options[i]));
        }
    }
}

TEST_CASE("computeGaps measures alone what the lanes cannot take", "[metrics]") {
    Tensor a{{1, 2, 3, 4}, {2, 2}}, b{{1, 2, 3, 5}, {2, 2}};
    Tensor half{{0, 0}, {2, 2}, ScalarType::Half};
    const Operand x = a.operand(), y = b.operand(), h = half.operand();
    GapOptions plain, dequantized, cancelledOptions;
    dequantized.runtime_transform.scale = {0.5};
    dequantized.runtime_transform.zero_point = {0};
    CHECK(fitsGapLanes(x, y, plain));
    CHECK_FALSE(fitsGapLanes(x, h, plain));       // not float32 on both sides
    CHECK_FALSE(fitsGapLanes(x, y, dequantized)); // a transform
    std::atomic<bool> stop{true};
    cancelledOptions.cancelled = &stop;
    // Fitting: 0 (cancelled), 3, 4, 5 (a group of four), and 6 (alone).
    const std::vector<GapPair> pairs = {{&x, &y, &cancelledOptions},
                                        {&x, &h, &plain},
                                        {&x, &y, &dequantized},
                                        {&x, &y, &plain},
                                        {&x, &y, &plain},
                                        {&x, &y, &plain},
                                        {&x, &y, &plain}};
    const auto together = computeGaps(pairs);
    for (const std::size_t i : {1u, 2u, 6u}) {
        INFO("pair " << i);
        checkSame(together[i], computeGap(*pairs[i].aot, *pairs[i].runtime, *pairs[i].options));
    }
    CHECK(together[6].metrics);
    // A group with a cancelled lane is dropped whole, as a cancelled
    // computeGap is (a batch's pairs share their caller's flag).
    for (const std::size_t i : {0u, 3u, 4u, 5u})
        CHECK(together[i].problem == "cancelled");
}
