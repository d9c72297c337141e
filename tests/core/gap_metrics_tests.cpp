// Gap metrics on hand-computed cases: ExecuTorch's MSE/L1/SNR, ours, NaN rules,
// broadcasting, dequantisation, layout permutation, top-k agreement.

#include "core/compare/element_reader.h"
#include "core/metrics/gap_metrics.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

using namespace gapscope;

namespace {

template <typename T> struct Buffer {
    std::vector<T> values;
    Operand operand(ScalarType type, std::vector<std::int64_t> shape) const {
        return Operand::tensor(
            type, std::move(shape),
            {reinterpret_cast<const std::uint8_t*>(values.data()), values.size() * sizeof(T)}, values.size());
    }
};

GapMetrics gap(const Operand& a, const Operand& b, const GapOptions& o = {}) {
    auto r = computeGap(a, b, o);
    if (!r.metrics)
        FAIL(r.problem);
    return *r.metrics;
}

} // namespace

TEST_CASE("ExecuTorch's metrics and ours on a hand-computed pair", "[metrics]") {
    Buffer<float> a{{1, 2, 3, 4}}, b{{1, 2, 3, 5}};
    const auto m = gap(a.operand(ScalarType::Float, {2, 2}), b.operand(ScalarType::Float, {2, 2}));
    CHECK(m.mse == 0.25);
    CHECK(m.l1 == 1.0);
    CHECK(m.snr == Approx(10 * std::log10(7.5 / 0.25)).epsilon(1e-15));
    CHECK(m.mean_abs == 0.25);
    CHECK(m.max_abs == 1.0);
    CHECK(m.max_abs_index == std::vector<std::int64_t>{1, 1});
    CHECK(m.rel_l2 == Approx(1.0 / std::sqrt(30.0)).epsilon(1e-15));
    CHECK(m.cosine == Approx(34.0 / (std::sqrt(30.0) * std::sqrt(39.0))).epsilon(1e-15));
    CHECK(m.sqnr == Approx(m.snr).epsilon(1e-12));
    CHECK(m.elements == 4);
    CHECK_FALSE(m.broadcast);
    CHECK(m.top1_agreement == std::optional<double>(1.0)); // argmax per row of 2: [1,1] both
}

TEST_CASE("identical tensors: SNR is +inf, zero signal gives NaN like torch", "[metrics]") {
    Buffer<float> a{{1, -2}}, zero{{0, 0}};
    CHECK(std::isinf(gap(a.operand(ScalarType::Float, {2}), a.operand(ScalarType::Float, {2})).snr));
    CHECK(std::isnan(gap(zero.operand(ScalarType::Float, {2}), zero.operand(ScalarType::Float, {2})).snr));
}

TEST_CASE("NaN handling follows ExecuTorch: a side with a NaN gets nan_to_num", "[metrics]") {
    const double nan = std::numeric_limits<double>::quiet_NaN(),
                 inf = std::numeric_limits<double>::infinity();
    Buffer<double> a{{nan, 1.0, inf}}, b{{0.0, 1.0, 0.0}};
    const auto m = gap(a.operand(ScalarType::Double, {3}), b.operand(ScalarType::Double, {3}));
    CHECK(m.nan_aot == 1);
    CHECK(m.inf_aot == 1);
    // NaN → 0, +inf → max double: the differences are 0, 0, DBL_MAX.
    CHECK(m.l1 == std::numeric_limits<double>::max());
    // Without a NaN on that side, an Inf stays Inf (torch does not touch it).
    Buffer<double> c{{inf, 1.0}}, d{{0.0, 1.0}};
    CHECK(std::isinf(gap(c.operand(ScalarType::Double, {2}), d.operand(ScalarType::Double, {2})).l1));
}

TEST_CASE("shapes broadcast as in torch and are flagged and incompatible shapes are a problem", "[metrics]") {
    Buffer<float> a{{1, 2, 3}}, b{{1, 2, 4}};
    const auto m = gap(a.operand(ScalarType::Float, {1, 3}), b.operand(ScalarType::Float, {3}));
    CHECK(m.broadcast);
    CHECK(m.mse == Approx(1.0 / 3.0));
    CHECK(m.compared_shape == std::vector<std::int64_t>{1, 3});
    Buffer<float> col{{1, 2}};
    const auto outer = gap(col.operand(ScalarType::Float, {2, 1}), a.operand(ScalarType::Float, {3}));
    CHECK(outer.elements == 6);
    CHECK(outer.l1 == Approx(0 + 1 + 2 + 1 + 0 + 1));
    Buffer<float> four{{1, 2, 3, 4}};
    auto bad = computeGap(a.operand(ScalarType::Float, {3}), four.operand(ScalarType::Float, {4}));
    CHECK_FALSE(bad.metrics);
    CHECK_THAT(bad.problem, Catch::Contains("do not broadcast"));
}

TEST_CASE("scalars compare as 0-dim tensors", "[metrics]") {
    const auto m = gap(Operand::number(3.0), Operand::number(2.5));
    CHECK(m.mse == 0.25);
    CHECK(m.elements == 1);
}

TEST_CASE("quantised runtime tensors are dequantised per tensor and per channel", "[metrics][quant]") {
    Buffer<float> ref{{-1.0f, 0.0f, 0.5f, 1.0f}};
    Buffer<std::int8_t> q{{-3, -1, 0, 1}}; // zero point -1, scale 0.5 → -1, 0, 0.5, 1
    GapOptions o;
    o.runtime_transform.scale = {0.5};
    o.runtime_transform.zero_point = {-1};
    o.qmin = -3;
    o.qmax = 1;
    const auto m = gap(ref.operand(ScalarType::Float, {4}), q.operand(ScalarType::Char, {4}), o);
    CHECK(m.mse == 0.0);
    CHECK(m.rmse_steps == std::optional<double>(0.0));
    // -3 and 1 sit at qmin/qmax, but the reference is inside the range: no clipping.
    CHECK(m.saturation == std::optional<double>(0.0));
    Buffer<float> beyond{{-1.3f, 0.0f, 0.5f, 1.2f}}; // -1.3 is 0.3 (> half a step) past qmin's -1
    const auto clipped = gap(beyond.operand(ScalarType::Float, {4}), q.operand(ScalarType::Char, {4}), o);
    CHECK(clipped.saturation == std::optional<double>(0.25)); // 1.2 is within half a step of 1

    Buffer<float> ref2{{1.0f, 2.0f, 10.0f, 20.0f}};
    Buffer<std::uint8_t> q2{{1, 2, 1, 2}}; // channel 0 scale 1, channel 1 scale 10 (axis 0 of 2x2)
    GapOptions pc;
    pc.runtime_transform.scale = {1.0, 10.0};
    pc.runtime_transform.zero_point = {0, 0};
    pc.runtime_transform.axis = 0;
    CHECK(gap(ref2.operand(ScalarType::Float, {2, 2}), q2.operand(ScalarType::Byte, {2, 2}), pc).mse == 0.0);
    pc.runtime_transform.scale = {1.0, 10.0, 3.0};
    pc.runtime_transform.zero_point = {0, 0, 0};
    CHECK_FALSE(computeGap(ref2.operand(ScalarType::Float, {2, 2}), q2.operand(ScalarType::Byte, {2, 2}), pc)
                    .metrics);
}

TEST_CASE("a channels-last runtime tensor is permuted back before comparing", "[metrics][layout]") {
    // Reference NCHW (1,2,1,2): c0 = [1,2], c1 = [3,4]. Runtime NHWC (1,1,2,2): [1,3,2,4].
    Buffer<float> nchw{{1, 2, 3, 4}}, nhwc{{1, 3, 2, 4}};
    GapOptions o;
    o.runtime_transform.axis_order = std::vector<std::int64_t>{0, 2, 3, 1};
    const auto m =
        gap(nchw.operand(ScalarType::Float, {1, 2, 1, 2}), nhwc.operand(ScalarType::Float, {1, 1, 2, 2}), o);
    CHECK(m.mse == 0.0);
    CHECK_FALSE(m.broadcast);
    // Without the permutation the same bytes differ.
    CHECK(gap(nchw.operand(ScalarType::Float, {1, 2, 1, 2}), nhwc.operand(ScalarType::Float, {1, 2, 1, 2}))
              .mse > 0);
}

TEST_CASE("top-1 and top-5 agreement on logits rows", "[metrics]") {
    Buffer<float> a{{0, 1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1}}, b{{0, 1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 7}};
    const auto m = gap(a.operand(ScalarType::Float, {2, 6}), b.operand(ScalarType::Float, {2, 6}));
    CHECK(m.top1_agreement == std::optional<double>(0.5));
    CHECK(m.top5_agreement == std::optional<double>(0.5));
}

TEST_CASE("per-channel breakdown along a chosen axis", "[metrics]") {
    // 2 channels x 3 values; channel 1 carries all the error.
    Buffer<float> a{{1, 2, 3, 4, 5, 6}}, b{{1, 2, 3, 4, 5, 9}};
    GapOptions o;
    o.breakdown_axis = 0;
    const auto m = gap(a.operand(ScalarType::Float, {2, 3}), b.operand(ScalarType::Float, {2, 3}), o);
    REQUIRE(m.per_channel.size() == 2);
    CHECK(m.per_channel[0].mse == 0.0);
    CHECK(std::isinf(m.per_channel[0].snr));
    CHECK(m.per_channel[1].mse == 3.0);
    CHECK(m.per_channel[1].max_abs == 3.0);
    CHECK(m.mse == 1.5); // the overall numbers are unchanged by the breakdown
    o.breakdown_axis = -1;
    CHECK(gap(a.operand(ScalarType::Float, {2, 3}), b.operand(ScalarType::Float, {2, 3}), o)
              .per_channel.size() == 3);
    o.breakdown_axis = 2;
    CHECK_FALSE(
        computeGap(a.operand(ScalarType::Float, {2, 3}), b.operand(ScalarType::Float, {2, 3}), o).metrics);
}

TEST_CASE("big tensors give the same numbers on one thread and on all", "[metrics]") {
    std::vector<float> av(3'000'001), bv(av.size());
    for (std::size_t i = 0; i < av.size(); ++i) {
        av[i] = static_cast<float>(std::sin(static_cast<double>(i)));
        bv[i] = av[i] + (i % 7 == 0 ? 1e-3f : 0.0f);
    }
    Buffer<float> a{av}, b{bv};
    GapOptions one;
    one.threads = 1;
    const auto n = static_cast<std::int64_t>(av.size());
    const auto single = gap(a.operand(ScalarType::Float, {n}), b.operand(ScalarType::Float, {n}), one);
    GapOptions many;
    many.threads = 4;
    const auto multi = gap(a.operand(ScalarType::Float, {n}), b.operand(ScalarType::Float, {n}), many);
    CHECK(single.mse == multi.mse);
    CHECK(single.l1 == multi.l1);
    CHECK(single.snr == multi.snr);
    CHECK(single.max_abs_index == multi.max_abs_index);
    CHECK(single.max_abs == multi.max_abs);
}

TEST_CASE("the largest differences come with their coordinates, largest first", "[metrics]") {
    Buffer<float> a{{0, 0, 0, 0, 0, 0}}, b{{0.1f, -3, 0, 2, 0, 0.5f}};
    ElementPlan plan;
    plan.reference = a.operand(ScalarType::Float, {2, 3});
    plan.runtime = b.operand(ScalarType::Float, {2, 3});
    const auto top = largestDifferences(*ElementReader::of(plan), 3);
    REQUIRE(top.size() == 3);
    CHECK(top[0].index == std::vector<std::int64_t>{0, 1});
    CHECK(top[0].difference == 3.0);
    CHECK(top[1].index == std::vector<std::int64_t>{1, 0});
    CHECK(top[2].runtime == 0.5);
    Buffer<float> c{{1, 2}};
    plan.runtime = c.operand(ScalarType::Float, {2});
    CHECK_FALSE(ElementReader::of(plan)); // not element for element: no reader, nothing to rank
}

TEST_CASE("the element reader reads the device through axis_order and per-channel dequantisation",
          "[metrics][quant]") {
    // Reference 1x2x2x3 (NCHW); the device holds it NHWC (1x2x3x2) as int8 with
    // channel c's scale 0.5·(c+1) and zero point c.
    std::vector<float> ref(12);
    std::vector<std::int8_t> dev(12);
    for (int h = 0; h < 2; ++h)
        for (int w = 0; w < 3; ++w)
            for (int c = 0; c < 2; ++c) {
                const int q = 10 * h + 3 * w + c;
                dev[static_cast<std::size_t>((h * 3 + w) * 2 + c)] = static_cast<std::int8_t>(q);
                ref[static_cast<std::size_t>((c * 2 + h) * 3 + w)] =
                    static_cast<float>((q - c) * 0.5 * (c + 1));
            }
    Buffer<float> a{ref};
    Buffer<std::int8_t> b{dev};
    ElementPlan plan;
    plan.reference = a.operand(ScalarType::Float, {1, 2, 2, 3});
    plan.runtime = b.operand(ScalarType::Char, {1, 2, 3, 2});
    plan.options.runtime_transform.scale = {0.5, 1.0};
    plan.options.runtime_transform.zero_point = {0, 1};
    plan.options.runtime_transform.axis = 1;
    plan.options.runtime_transform.axis_order = std::vector<std::int64_t>{0, 2, 3, 1};
    const auto reader = ElementReader::of(plan);
    REQUIRE(reader);
    CHECK(reader->channelAxis() == 1);
    for (std::uint64_t i = 0; i < 12; ++i) {
        CHECK(reader->runtime(i) == reader->reference(i));
        CHECK(reader->runtimeRaw(i) == static_cast<double>(dev[reader->runtimeIndex(i)]));
    }
    // And the metrics agree: the same transform, zero error.
    const auto m = gap(plan.reference, plan.runtime, plan.options);
    CHECK(m.mse == 0.0);
    CHECK(largestDifferences(*reader, 3).front().difference == 0.0);
}

TEST_CASE("the same infinity on both sides agrees and ExecuTorch's arithmetic makes it NaN", "[metrics]") {
    const double inf = std::numeric_limits<double>::infinity();
    Buffer<float> a{{-static_cast<float>(inf), 1.0f, 2.0f}}, b{{-static_cast<float>(inf), 1.0f, 2.5f}};
    const auto m = gap(a.operand(ScalarType::Float, {3}), b.operand(ScalarType::Float, {3}));
    CHECK(m.agreeing_infinities == 1);
    CHECK(m.mse == Approx(0.25 / 3));
    CHECK(m.max_abs == 0.5);
    CHECK(std::isfinite(m.snr));
    CHECK(m.cosine == Approx((1.0 + 5.0) / (std::sqrt(5.0) * std::sqrt(1.0 + 6.25))));
    GapOptions theirs;
    theirs.executorch_semantics = true;
    const auto e = gap(a.operand(ScalarType::Float, {3}), b.operand(ScalarType::Float, {3}), theirs);
    CHECK(std::isnan(e.mse));
    CHECK(e.agreeing_infinities == 0);
    // Opposite infinities still differ without bound; all-agreeing gives zeros.
    Buffer<float> c{{static_cast<float>(inf)}}, d{{-static_cast<float>(inf)}};
    CHECK(std::isinf(gap(c.operand(ScalarType::Float, {1}), d.operand(ScalarType::Float, {1})).max_abs));
    const auto same = gap(c.operand(ScalarType::Float, {1}), c.operand(ScalarType::Float, {1}));
    CHECK(same.mse == 0.0);
    CHECK(same.max_abs == 0.0);
}

#include "core/metrics/broadcast_gap.h"

#include <random>

// The closed-form broadcast sums against the element walk over the broadcast
// product (the path ExecuTorch's numbers took before), on shapes where the
// product is P×Q pairs per shared index, and where it degenerates.
TEST_CASE("ExecuTorch's broadcast numbers in closed form equal the element walk", "[metrics][broadcast]") {
    std::mt19937 rng(7);
    std::normal_distribution<double> normal(0.3, 1.7);
    const std::vector<std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>>> cases = {
        {{7, 1, 5}, {7, 5}},       // a ViT's 197x1xC against 197xC, small
        {{4, 1}, {1, 3}},          // an outer product of differences
        {{2, 3, 1, 4}, {3, 6, 1}}, // shared, reference-only and runtime-only dimensions mixed
        {{1, 5, 6}, {5, 6}},       // the same elements: no product at all
        {{6}, {6}},                // equal shapes
        {{3, 1}, {3, 8}},          // one reference value per shared index
    };
    for (const auto& [as, bs] : cases) {
        INFO("reference rank " << as.size() << " runtime rank " << bs.size());
        std::uint64_t na = 1, nb = 1;
        for (auto d : as)
            na *= static_cast<std::uint64_t>(d);
        for (auto d : bs)
            nb *= static_cast<std::uint64_t>(d);
        Buffer<float> a, b;
        for (std::uint64_t i = 0; i < na; ++i)
            a.values.push_back(static_cast<float>(normal(rng)));
        for (std::uint64_t i = 0; i < nb; ++i)
            b.values.push_back(static_cast<float>(normal(rng)));
        const auto ao = a.operand(ScalarType::Float, as), bo = b.operand(ScalarType::Float, bs);
        GapOptions executorch;
        executorch.executorch_semantics = true;
        const auto walk = gap(ao, bo, executorch);
        const auto closed = executorchBroadcastGap(ao, bo);
        REQUIRE(closed);
        CHECK(closed->mse == Approx(walk.mse).epsilon(1e-12));
        CHECK(closed->l1 == Approx(walk.l1).epsilon(1e-12));
        CHECK(closed->snr == Approx(walk.snr).epsilon(1e-12));
    }
    // Equal tensors: exactly zero error and an infinite SNR, as ExecuTorch gives.
    Buffer<float> same{{1.5f, -2.0f, 3.25f}};
    const auto eq =
        executorchBroadcastGap(same.operand(ScalarType::Float, {1, 3}), same.operand(ScalarType::Float, {3}));
    REQUIRE(eq);
    CHECK(eq->mse == 0.0);
    CHECK(std::isinf(eq->snr));
    // NaN and infinities keep ExecuTorch's special rules: the element walk decides.
    Buffer<float> withInf{{1.0f, -std::numeric_limits<float>::infinity()}};
    CHECK_FALSE(executorchBroadcastGap(withInf.operand(ScalarType::Float, {2, 1}),
                                       withInf.operand(ScalarType::Float, {2})));
    // Shapes that do not broadcast are not its business either.
    CHECK_FALSE(executorchBroadcastGap(same.operand(ScalarType::Float, {3}),
                                       withInf.operand(ScalarType::Float, {2})));
}

#include "core/compare/metric_catalog.h"

TEST_CASE("the metric catalog: one entry per metric, in enum order, names unique", "[metrics]") {
    const auto& catalog = metricCatalog();
#ifdef GAPSCOPE_PROBE_METRIC
    REQUIRE(catalog.size() == static_cast<std::size_t>(Metric::Probe) + 1);
#else
    REQUIRE(catalog.size() == static_cast<std::size_t>(Metric::Top5) + 1);
#endif
    for (std::size_t i = 0; i < catalog.size(); ++i) {
        CHECK(catalog[i].id == static_cast<Metric>(i));
        CHECK(findMetric(catalog[i].name)->id == catalog[i].id);
        CHECK(&metricInfo(catalog[i].id) == &catalog[i]);
    }
    // ExecuTorch's three come first and say so.
    CHECK(catalog[0].executorch);
    CHECK(catalog[1].executorch);
    CHECK(catalog[2].executorch);
    CHECK_FALSE(metricInfo(Metric::RelL2).executorch);
    std::string error;
    CHECK_FALSE(parseThreshold("bogus=1", error));
    CHECK(error.find(metricNames()) != std::string::npos);
}

#include "core/common/parallel.h"

#include <atomic>
#include <mutex>
#include <set>
#include <thread>

// One pool: a loop inside a loop runs serially on its thread, so nesting never
// uses more threads than the machine has cores, and every index runs once.
TEST_CASE("parallel loops share one pool and do not nest threads", "[parallel]") {
    std::mutex m;
    std::set<std::thread::id> seen;
    std::atomic<int> running{0}, peak{0};
    std::vector<std::atomic<int>> hits(64 * 64);
    parallelFor(64, [&](std::size_t i) {
        parallelFor(64, [&](std::size_t j) {
            const int now = ++running;
            int before = peak.load();
            while (now > before && !peak.compare_exchange_weak(before, now)) {
            }
            {
                std::lock_guard<std::mutex> lock(m);
                seen.insert(std::this_thread::get_id());
            }
            ++hits[i * 64 + j];
            --running;
        });
    });
    for (const auto& h : hits)
        CHECK(h.load() == 1);
    CHECK(static_cast<unsigned>(peak.load()) <= defaultThreadCount());
    CHECK(seen.size() <= defaultThreadCount());
}

// Top-k agreement by a one-pass selection: the same answer as sorting each
// row's indices by (value descending, index ascending), ties included.
TEST_CASE("top-1 and top-5 agreement equal a sort of every row, ties included", "[metrics]") {
    std::mt19937 rng(7);
    for (const std::int64_t width : {2, 5, 7, 13, 64, 301}) {
        Buffer<float> a, b;
        const std::int64_t rows = 50;
        std::uniform_int_distribution<int> few(0, 3); // small values: many ties
        for (std::int64_t i = 0; i < rows * width; ++i) {
            a.values.push_back(static_cast<float>(few(rng)));
            b.values.push_back(static_cast<float>(few(rng)));
        }
        const auto m =
            gap(a.operand(ScalarType::Float, {rows, width}), b.operand(ScalarType::Float, {rows, width}));
        std::uint64_t top1 = 0, top5 = 0;
        for (std::int64_t r = 0; r < rows; ++r) {
            const auto order = [&](const std::vector<float>& v) {
                std::vector<std::int64_t> idx(static_cast<std::size_t>(width));
                std::iota(idx.begin(), idx.end(), 0);
                std::stable_sort(idx.begin(), idx.end(), [&](std::int64_t x, std::int64_t y) {
                    return v[static_cast<std::size_t>(r * width + x)] >
                           v[static_cast<std::size_t>(r * width + y)];
                });
                const auto k = std::min<std::int64_t>(5, width);
                std::vector<std::int64_t> best(idx.begin(), idx.begin() + k);
                std::vector<std::int64_t> set = best;
                std::sort(set.begin(), set.end());
                return std::make_pair(best.front(), set);
            };
            const auto [a1, a5] = order(a.values);
            const auto [b1, b5] = order(b.values);
            top1 += a1 == b1;
            top5 += a5 == b5;
        }
        INFO("width " << width);
        CHECK(m.top1_agreement == std::optional<double>(static_cast<double>(top1) / rows));
        if (width >= 5)
            CHECK(m.top5_agreement == std::optional<double>(static_cast<double>(top5) / rows));
    }
}

// float32 rows are ranked in place (blocks of 8 skipped against the k-th value,
// NaN tested by vector); the same values as float64 take the decoding path.
// Both must agree row for row: long and short rows, ties, rising runs (every
// block enters), NaN anywhere in a row (ranked by the decoding path's sort).
TEST_CASE("top-k of float32 rows in place equals the decoded float64 path", "[metrics]") {
    std::mt19937 rng(11);
    for (const std::int64_t width : {3, 8, 9, 16, 29, 200}) {
        const std::int64_t rows = 40;
        Buffer<float> a, b;
        std::uniform_int_distribution<int> pick(0, 9);
        std::normal_distribution<float> normal;
        for (std::int64_t i = 0; i < rows * width; ++i) {
            const auto r = i / width, c = i % width;
            const auto value = [&] {
                switch (r % 4) {
                case 0: return static_cast<float>(pick(rng)); // ties
                case 1: return static_cast<float>(c);         // rising: every block beats the floor
                default: return normal(rng);
                }
            };
            a.values.push_back(value());
            b.values.push_back(r % 4 == 1 ? static_cast<float>(width - c) : value());
        }
        for (std::int64_t r = 2; r < rows; r += 5) // a NaN at the start, middle or tail of a row
            (r % 2 ? a : b).values[static_cast<std::size_t>(r * width + (r * 7) % width)] = std::nanf("");
        Buffer<double> a64, b64;
        a64.values.assign(a.values.begin(), a.values.end());
        b64.values.assign(b.values.begin(), b.values.end());
        const auto f32 =
            gap(a.operand(ScalarType::Float, {rows, width}), b.operand(ScalarType::Float, {rows, width}));
        const auto f64 = gap(a64.operand(ScalarType::Double, {rows, width}),
                             b64.operand(ScalarType::Double, {rows, width}));
        INFO("width " << width);
        REQUIRE(f32.top1_agreement.has_value());
        CHECK(f32.top1_agreement == f64.top1_agreement);
        CHECK(f32.top5_agreement == f64.top5_agreement);
    }
}

TEST_CASE("parallelForRanges covers every index once, in ranges of at most the block", "[parallel]") {
    for (std::size_t n : {0u, 1u, 255u, 256u, 257u, 1000u}) {
        std::vector<std::atomic<int>> seen(n);
        std::atomic<bool> tooLong{false};
        parallelForRanges(n, 256, [&](std::size_t begin, std::size_t end) {
            if (end <= begin || end - begin > 256 || (begin % 256) != 0)
                tooLong = true;
            for (std::size_t i = begin; i < end; ++i)
                ++seen[i];
        });
        CHECK_FALSE(tooLong);
        for (std::size_t i = 0; i < n; ++i)
            CHECK(seen[i] == 1);
    }
}

TEST_CASE("shapeText: dimensions joined by x, scalar for none", "[metrics][shape]") {
    CHECK(shapeText({}) == "scalar");
    CHECK(shapeText({0}) == "0");
    CHECK(shapeText({1, 4, 16}) == "1x4x16");
    CHECK(shapeText({-1, 9223372036854775807LL}) == "-1x9223372036854775807");
    // More dimensions than the text buffer holds at 20 digits each.
    std::vector<std::int64_t> many(40, -9223372036854775807LL - 1);
    std::string expected;
    for (std::size_t i = 0; i < many.size(); ++i)
        expected += (i ? "x" : "") + std::to_string(many[i]);
    CHECK(shapeText(many) == expected);
    std::vector<std::int64_t> mixed;
    expected.clear();
    for (std::int64_t i = 0; i < 300; ++i) {
        mixed.push_back(i * i * i * 1000003);
        expected += (i ? "x" : "") + std::to_string(mixed.back());
    }
    CHECK(shapeText(mixed) == expected);
}
