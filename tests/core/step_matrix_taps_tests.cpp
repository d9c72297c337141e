// A tap in the steps matrix (issue 58): an op row of its own beside the
// delegate output row of the node it taps, its STATS values marked as bounds.
#include "core/runs/step_matrix.h"

#include <catch2/catch.hpp>

using namespace gapscope;

namespace {

RunRow row(std::size_t index, bool tap, double snr) {
    RunRow r;
    r.index = index;
    r.compared_node = "linear";
    r.compared_handle = 3;
    r.output_index = 0;
    r.tap = tap;
    r.bounds = tap;
    r.metrics.assign(metricCatalog().size(), std::nullopt);
    r.metrics[metricIndex(Metric::Snr)] = snr;
    return r;
}

} // namespace

TEST_CASE("steps matrix: a tap is not merged with the delegate row of its node, and its values are bounds") {
    std::vector<RunSummary> steps(2);
    for (auto& s : steps)
        s.rows = {row(0, false, 60), row(1, true, 15)};
    const auto m = buildStepMatrix(steps, Metric::Snr, MetricThreshold{Metric::Snr, 20});
    REQUIRE(m.ops.size() == 2);
    CHECK(m.ops[0] == "linear");
    CHECK(m.ops[1] == "↳ linear");
    CHECK(m.at(0, 1) == 60);
    CHECK(m.at(1, 1) == 15);
    CHECK_FALSE(m.boundAt(0, 0));
    CHECK(m.boundAt(1, 0));
    REQUIRE(m.first_crossing);
    CHECK(m.first_crossing->op == 1);
    CHECK(m.first_crossing->bound); // SNR ≤ 15 proves the crossing
    CHECK(std::string(boundSign(Metric::Snr)) == "≤ ");
    CHECK(std::string(boundSign(Metric::MaxAbs)) == "≥ ");
}
