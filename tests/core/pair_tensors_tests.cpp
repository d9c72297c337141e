// The A/B tensor panel's core (issue 25): a tensor's 2-D slice, and one
// pairing's two runtime tensors read as each run's metrics compared them, with
// B − A over the whole tensor. On the committed demo session (real ExecuTorch
// output): against itself, against its float-reference capture, and on rows
// that are not one tensor.
#include "core/compare/pair_tensors.h"
#include "core/compare/tensor_slice.h"
#include "core/metrics/operand.h"
#include "core/runs/run_diff.h"
#include "core/runs/run_summary.h"
#include "core/session/session.h"

#include <catch2/catch.hpp>
#include <cmath>

using namespace gapscope;

namespace {

std::shared_ptr<const Session> demoWith(const std::string& capture) {
    const std::string dir = GAPSCOPE_DEMO_DIR;
    std::vector<Error> errors;
    auto inputs = sessionInputsFromPaths(
        {dir + "/run.etdp", dir + "/run.debug.bin", dir + "/etrecord.bin", dir + "/" + capture}, errors);
    REQUIRE(errors.empty());
    std::shared_ptr<const Session> s = loadSession(inputs, {});
    REQUIRE(s);
    REQUIRE(s->comparison);
    return s;
}

} // namespace

TEST_CASE("a tensor slice shows two axes and flattens the others into the slice index", "[tensors]") {
    const std::vector<std::int64_t> shape{2, 3, 4, 5};
    const auto s = sliceLastTwo(shape, 5, 256);
    CHECK(s.rows == 4);
    CHECK(s.cols == 5);
    CHECK(s.slices == 6);
    CHECK(s.base == 100); // slice 5 = [1, 2, :, :]
    CHECK(s.flat(3, 4) == 119);
    CHECK(s.coordinates(3, 4) == std::vector<std::int64_t>{1, 2, 3, 4});
    CHECK(sliceLastTwo(shape, 99, 256).base == 100); // clamped to the last slice

    // Other axes displayed: rows along dim 0, columns along dim 2; the slice runs over dims 1 and 3.
    const auto t = sliceTensor(shape, 0, 2, 7, 256);
    CHECK(t.rows == 2);
    CHECK(t.cols == 4);
    CHECK(t.slices == 15);
    CHECK(t.coordinates(1, 3) == std::vector<std::int64_t>{1, 1, 3, 2}); // slice 7 = dim1 1, dim3 2

    // A side longer than maxSide shows every stride-th element.
    const auto big = sliceLastTwo({1, 1000, 7}, 0, 256);
    CHECK(big.stride == 4);
    CHECK(big.height == 250);
    CHECK(big.width == 2);
    CHECK(big.flat(249, 1) == 996 * 7 + 4);

    // One axis chosen twice is one row; a scalar is one cell.
    CHECK(sliceTensor(shape, 3, 3, 0, 256).rows == 1);
    const auto scalar = sliceLastTwo({}, 0, 256);
    CHECK((scalar.width == 1 && scalar.height == 1 && scalar.slices == 1 && scalar.flat(0, 0) == 0));
}

TEST_CASE("a session against itself: every tensor pairs with an identical one", "[tensors][demo]") {
    const auto s = demoWith("capture.gscap.safetensors");
    std::size_t compared = 0;
    for (const auto& row : s->comparison->rows) {
        const auto pair = pairTensors(&row, &row);
        const auto e = rowElement(row, 0);
        if (!e.plan || !ElementReader::of(*e.plan, e.measured)) {
            CHECK_FALSE(pair.problem.empty());
            continue;
        }
        INFO("row " << row.index);
        REQUIRE(pair.problem.empty());
        const auto d = measurePairDifference(pair);
        REQUIRE(d);
        CHECK(d->elements == e.plan->reference.numel);
        CHECK(d->differing == 0);
        CHECK(d->max_abs == 0);
        CHECK(d->reference_max_abs == 0);
        ++compared;
    }
    CHECK(compared >= 4);
}

TEST_CASE("B − A of two different tensors: every element, the largest at its place, and the RMS",
          "[tensors][demo]") {
    const auto s = demoWith("capture.gscap.safetensors");
    // Two rows of one shape (conv and the relu after it): a real difference.
    const ComparisonRow *a = nullptr, *b = nullptr;
    for (const auto& r : s->comparison->rows)
        for (const auto& q : s->comparison->rows)
            if (!a && &r != &q && r.status == RowStatus::Ok && q.status == RowStatus::Ok &&
                !r.elementPlans().empty() && !q.elementPlans().empty() &&
                r.elementPlans()[0].reference.shape() == q.elementPlans()[0].reference.shape() &&
                r.elementPlans()[0].reference.numel > 1)
                a = &r, b = &q;
    REQUIRE(a);
    const auto pair = pairTensors(a, b);
    REQUIRE(pair.problem.empty());
    const auto d = measurePairDifference(pair);
    REQUIRE(d);
    // Expected, element by element through each side's own reader.
    double worst = 0, sum = 0, refWorst = 0;
    std::uint64_t differing = 0, at = 0;
    for (std::uint64_t i = 0; i < pair.a->numel(); ++i) {
        const double diff = pair.b->runtime(i) - pair.a->runtime(i);
        differing += diff != 0;
        if (std::fabs(diff) > worst)
            worst = std::fabs(diff), at = i;
        sum += diff * diff;
        refWorst = std::max(refWorst, std::fabs(pair.b->reference(i) - pair.a->reference(i)));
    }
    REQUIRE(differing > 0);
    CHECK(d->differing == differing);
    CHECK(d->max_abs == worst);
    CHECK(d->max_at == at);
    CHECK(d->rms == Approx(std::sqrt(sum / static_cast<double>(pair.a->numel()))).epsilon(1e-12));
    CHECK(d->reference_max_abs == refWorst);
}

TEST_CASE("one run's program against its float-reference capture: same runtime, another reference",
          "[tensors][demo]") {
    // The demo's etdump compared with its int8 capture (A) and with the float
    // model's capture under the same handles (B): the runtimes are one tensor, so
    // B − A is 0, and the panel says the references differ.
    const auto a = demoWith("capture.gscap.safetensors");
    const auto b = demoWith("capture_float.gscap.safetensors");
    // Paired as the A/B tab pairs them.
    const auto runs = compareRuns(summarizeRun(*a->comparison, "int8", runReference(a->capture.get())),
                                  summarizeRun(*b->comparison, "float", runReference(b->capture.get())));
    std::size_t referencesDiffer = 0, compared = 0;
    for (const auto& p : runs.match.pairs) {
        if (!p.a || !p.b)
            continue;
        const auto& ra = a->comparison->rows[runs.a.rows[*p.a].index];
        const auto& rb = b->comparison->rows[runs.b.rows[*p.b].index];
        const auto pair = pairTensors(&ra, &rb);
        INFO("A row " << ra.index << ", B row " << rb.index << ": " << pair.problem);
        if (!pair.problem.empty())
            continue;
        const auto d = measurePairDifference(pair);
        REQUIRE(d);
        CHECK(d->max_abs == 0);
        referencesDiffer += d->reference_max_abs > 0;
        ++compared;
    }
    CHECK(compared >= 4);
    CHECK(referencesDiffer >= 1);
}

TEST_CASE("rows that are not one tensor say why, and have no difference", "[tensors][demo]") {
    const auto s = demoWith("capture.gscap.safetensors");
    const auto& rows = s->comparison->rows;
    const ComparisonRow* measurable = nullptr;
    for (const auto& r : rows)
        if (r.status == RowStatus::Ok && !r.elementPlans().empty())
            measurable = measurable ? measurable : &r;
    REQUIRE(measurable);
    CHECK(pairTensors(measurable, nullptr).problem == "Only in A: B has no partner for this row");
    CHECK(pairTensors(nullptr, measurable).problem == "Only in B: A has no partner for this row");
    CHECK_FALSE(measurePairDifference(pairTensors(measurable, nullptr)));
    // Another shape.
    for (const auto& r : rows) {
        if (r.status != RowStatus::Ok || r.elementPlans().empty() ||
            r.elementPlans()[0].reference.shape() == measurable->elementPlans()[0].reference.shape())
            continue;
        const auto pair = pairTensors(measurable, &r);
        if (!pair.a || !pair.b)
            continue;
        CHECK_THAT(pair.problem, Catch::Contains("not one tensor"));
        CHECK(pair.shape.empty());
        CHECK_FALSE(measurePairDifference(pair));
        return;
    }
    FAIL("the demo has rows of two shapes");
}
