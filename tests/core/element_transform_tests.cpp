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
            INFO("row " << row.index << " " << row.aot_ops.front());
            ++permuted;
            checkAgree(plan); // as the device quantised it: per tensor

            // The same bytes read per channel along the reference's axis 1, each
            // channel its own scale and zero point: the channel of a position must
            // be told alike on both paths, through the permutation.
            ElementPlan perChannel = plan;
            auto& pc = perChannel.options.runtime_transform;
            const auto channels = static_cast<std::size_t>(plan.reference.shape.at(1));
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
