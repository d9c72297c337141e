// The views read a row's values through ElementReader; the metrics stream them
// through computeGap. Both apply the same transform (permutation back to the
// reference layout, per-tensor or per-channel dequantisation), so a metric
// recomputed from the reader's values must equal computeGap's. Checked on the
// real QNN demo's channels-last rows (uint8, real quantisation error) as they
// are, and with per-channel scales put on the same rows.
#include "core/compare/element_reader.h"
#include "core/session/session.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

using namespace gapscope;

namespace {

struct Sums {
    double sse = 0, ssa = 0, maxAbs = 0;
    std::uint64_t n = 0;
};

Sums fromReader(const ElementReader& reader) {
    Sums s;
    for (std::uint64_t i = 0; i < reader.numel(); ++i) {
        const double a = reader.reference(i), d = a - reader.runtime(i);
        s.sse += d * d;
        s.ssa += a * a;
        s.maxAbs = std::max(s.maxAbs, std::fabs(d));
        ++s.n;
    }
    return s;
}

void checkAgree(const ElementPlan& plan) {
    const auto reader = ElementReader::of(plan);
    REQUIRE(reader);
    const auto gap = computeGap(plan.reference, plan.runtime, plan.options);
    REQUIRE(gap.metrics);
    const Sums s = fromReader(*reader);
    REQUIRE(s.n == gap.metrics->elements);
    CHECK(gap.metrics->mse > 0); // real error, not an agreement that any transform passes
    CHECK(s.sse / static_cast<double>(s.n) == Approx(gap.metrics->mse).epsilon(1e-12));
    CHECK(s.maxAbs == Approx(gap.metrics->max_abs).epsilon(1e-12));
    CHECK(std::sqrt(s.sse / s.ssa) == Approx(gap.metrics->rel_l2).epsilon(1e-12));
}

} // namespace

TEST_CASE("the views' values and the metrics agree on permuted QNN rows, per tensor and per channel",
          "[metrics][element_reader][qnn]") {
    std::vector<Error> errors;
    const auto session = loadSession(sessionInputsFromPaths({GAPSCOPE_QNN_DEMO_DIR}, errors));
    REQUIRE(session->comparison);
    std::size_t permuted = 0;
    for (const auto& row : session->comparison->rows)
        for (const auto& plan : row.elementPlans()) {
            const auto& tf = plan.options.runtime_transform;
            if (!plan.measurable() || !tf.axis_order || !tf.dequantizes())
                continue;
            INFO("row " << row.index << " " << row.id().aot_ops.front());
            ++permuted;
            checkAgree(plan); // as the device quantised it: per tensor

            // The same bytes read per channel along the reference's axis 1, each
            // channel its own scale and zero point: the channel of a position must
            // be told alike on both paths, through the permutation.
            ElementPlan perChannel = plan;
            auto& pc = perChannel.options.runtime_transform;
            const auto channels = static_cast<std::size_t>(plan.reference.shape().at(1));
            pc.axis = 1;
            pc.scale.assign(channels, tf.scale.front());
            pc.zero_point.assign(channels, tf.zero_point.front());
            for (std::size_t c = 0; c < channels; ++c) {
                pc.scale[c] *= 1.0 + 0.01 * static_cast<double>(c);
                pc.zero_point[c] += static_cast<std::int64_t>(c % 3);
            }
            checkAgree(perChannel);
        }
    CHECK(permuted >= 2); // the demo's convolutions and relus run channels-last
}

namespace {

// Reference NCHW 1x3x2x2 float32; the device holds it NHWC (1x2x2x3) as float32.
struct PermutedPair {
    std::vector<float> ref, dev;
    ElementPlan plan;
    explicit PermutedPair(const std::vector<float>& devValues) : ref(12), dev(devValues) {
        for (std::size_t i = 0; i < 12; ++i)
            ref[i] = 0.25f * static_cast<float>(i) - 1.0f;
        plan.reference = Operand::tensor(ScalarType::Float, {1, 3, 2, 2},
                                         {reinterpret_cast<const std::uint8_t*>(ref.data()), 48}, 12);
        plan.runtime = Operand::tensor(ScalarType::Float, {1, 2, 2, 3},
                                       {reinterpret_cast<const std::uint8_t*>(dev.data()), 48}, 12);
        plan.options.runtime_transform.axis_order = std::vector<std::int64_t>{0, 2, 3, 1};
    }
};

} // namespace

TEST_CASE("the views and the metrics convert NaN and infinities alike (nan_to_num when a side holds a NaN)",
          "[metrics][element_reader]") {
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    std::vector<float> dev(12);
    for (std::size_t i = 0; i < 12; ++i)
        dev[i] = 0.3f * static_cast<float>(i) - 1.5f;

    SECTION("a NaN on the device: compared as 0 on both paths, real error elsewhere") {
        dev[4] = nan;
        PermutedPair p(dev);
        const auto gap = computeGap(p.plan.reference, p.plan.runtime, p.plan.options);
        REQUIRE(gap.metrics);
        CHECK(gap.metrics->nan_runtime == 1);
        const auto reader = ElementReader::of(p.plan);
        REQUIRE(reader);
        CHECK(reader->rule().fixesRuntime());
        CHECK_FALSE(reader->rule().fixesReference());
        std::size_t zeros = 0;
        for (std::uint64_t i = 0; i < 12; ++i)
            if (std::isnan(reader->runtimeRaw(i))) {
                CHECK(reader->runtime(i) == 0.0); // what the metrics compared, not a NaN hole
                ++zeros;
            }
        CHECK(zeros == 1);
        checkAgree(p.plan);
        // The metrics' NaN counts tell the reader the same rule a scan finds.
        const auto fromMetrics = ElementReader::of(p.plan, &*gap.metrics);
        REQUIRE(fromMetrics);
        for (std::uint64_t i = 0; i < 12; ++i)
            CHECK(fromMetrics->runtime(i) == reader->runtime(i));
    }
    SECTION("a NaN beside an infinity: the infinity becomes the largest double on both paths") {
        dev[4] = nan;
        dev[7] = -inf;
        PermutedPair p(dev);
        const auto gap = computeGap(p.plan.reference, p.plan.runtime, p.plan.options);
        REQUIRE(gap.metrics);
        const auto reader = ElementReader::of(p.plan);
        REQUIRE(reader);
        double maxAbs = 0;
        std::uint64_t at = 0;
        for (std::uint64_t i = 0; i < 12; ++i)
            if (const double d = std::fabs(reader->reference(i) - reader->runtime(i)); d > maxAbs)
                maxAbs = d, at = i;
        CHECK(maxAbs == gap.metrics->max_abs);
        CHECK(reader->runtimeRaw(at) == -std::numeric_limits<double>::infinity());
        CHECK(reader->runtime(at) == std::numeric_limits<double>::lowest());
        CHECK(unravelIndex(at, reader->shape()) == gap.metrics->max_abs_index);
    }
    SECTION("an infinity and no NaN: kept as it is, on both paths") {
        dev[7] = inf;
        PermutedPair p(dev);
        const auto gap = computeGap(p.plan.reference, p.plan.runtime, p.plan.options);
        REQUIRE(gap.metrics);
        const auto reader = ElementReader::of(p.plan);
        REQUIRE(reader);
        CHECK_FALSE(reader->rule().replacesNonFinite());
        CHECK(std::isinf(gap.metrics->max_abs));
        bool shown = false;
        for (std::uint64_t i = 0; i < 12; ++i)
            shown = shown || std::isinf(reader->runtime(i));
        CHECK(shown);
    }
}

TEST_CASE("an axis_order that is not a permutation is a problem, not a read out of bounds",
          "[metrics][element_reader]") {
    std::vector<float> dev(12, 0.5f);
    for (const auto& order : {std::vector<std::int64_t>{0, 2, 2, 1}, std::vector<std::int64_t>{0, 2, 3, 4},
                              std::vector<std::int64_t>{0, -1, 3, 1}}) {
        PermutedPair p(dev);
        p.plan.options.runtime_transform.axis_order = order;
        const auto gap = computeGap(p.plan.reference, p.plan.runtime, p.plan.options);
        CHECK_FALSE(gap.metrics);
        CHECK(gap.problem == "axis_order is not a permutation of the runtime tensor's 4 axes");
        CHECK_FALSE(ElementReader::of(p.plan));
    }
}
