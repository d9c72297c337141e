// The CI gates in core (issue 24): what fails `--fail-above` and
// `--fail-on-invalid`, by the first divergence's rule, on comparisons built from
// real ETDump and capture structures (SessionBuilder).
#include "core/compare/gates.h"
#include "session_builder.h"

#include <catch2/catch.hpp>
#include <memory>

using namespace gapscope;
using gapscope::test::linearWithOneElementOff;

TEST_CASE("a gate fails on the rows past it, with the metric's value", "[gates]") {
    const auto b = linearWithOneElementOff({24}, {24});
    const Comparison& c = b->compare();
    CHECK(gateFailures(c, {{Metric::MaxAbs, 0.5}}, true).empty());
    const auto failures = gateFailures(c, {{Metric::MaxAbs, 0.1}, {Metric::MaxAbs, 0.5}}, false);
    REQUIRE(failures.size() == 1);
    CHECK(failures[0].kind == GateFailure::Kind::Row);
    CHECK(failures[0].index == 0);
    CHECK(failures[0].gate.value == 0.1);
    CHECK(failures[0].value == 0.25);
}

TEST_CASE("nothing compared fails every gate, and an invalid row fails --fail-on-invalid", "[gates]") {
    const auto b = linearWithOneElementOff({4, 6}, {6, 4}); // may be a transpose: refused
    const Comparison& c = b->compare();
    REQUIRE(c.rows.at(0).status == RowStatus::Invalid);
    CHECK(gateFailures(c, {}, false).empty()); // no gate asked for: nothing fails
    const auto gated = gateFailures(c, {{Metric::Snr, 20.0}}, false);
    REQUIRE(gated.size() == 1);
    CHECK(gated[0].kind == GateFailure::Kind::NothingCompared);
    const auto strict = gateFailures(c, {}, true);
    REQUIRE(strict.size() == 2);
    CHECK(strict[0].kind == GateFailure::Kind::NothingCompared);
    CHECK(strict[1].kind == GateFailure::Kind::InvalidRow);
    CHECK(strict[1].index == 0);
}
