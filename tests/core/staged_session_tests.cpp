// A staged load (the app's): the table's rows first, from metadata alone, then
// the metrics row by row in any order, then outputs, coverage and findings. It
// must end exactly where a one-shot load ends.

#include "core/compare/element_reader.h"
#include "core/session/session.h"
#include "core/session/stage_runner.h"
#include "session_builder.h"
#include "test_support.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <mutex>
#include <random>

using namespace gapscope;
using namespace gapscope::test;

namespace {

void checkSameRows(const Comparison& staged, const Comparison& oneShot) {
    REQUIRE(staged.rows.size() == oneShot.rows.size());
    for (std::size_t i = 0; i < staged.rows.size(); ++i) {
        INFO("row " << i);
        const auto& a = staged.rows[i];
        const auto& b = oneShot.rows[i];
        CHECK(a.measured);
        CHECK(a.status == b.status);
        CHECK(a.reason == b.reason);
        CHECK(a.id().shapes() == b.id().shapes());
        CHECK(a.id().dtypes() == b.id().dtypes());
        REQUIRE(a.gaps.size() == b.gaps.size());
        for (std::size_t e = 0; e < a.gaps.size(); ++e) {
            CHECK(a.gaps[e].mse == b.gaps[e].mse);
            CHECK(a.gaps[e].l1 == b.gaps[e].l1);
            CHECK(a.gaps[e].snr == b.gaps[e].snr);
            CHECK(a.gaps[e].max_abs_index == b.gaps[e].max_abs_index);
            CHECK(a.gaps[e].per_channel.size() == b.gaps[e].per_channel.size());
        }
    }
    REQUIRE(staged.coverage.size() == oneShot.coverage.size());
    for (std::size_t i = 0; i < staged.coverage.size(); ++i) {
        CHECK(staged.coverage[i].kind == oneShot.coverage[i].kind);
        CHECK(staged.coverage[i].reason == oneShot.coverage[i].reason);
    }
    REQUIRE(staged.outputs.size() == oneShot.outputs.size());
    for (std::size_t i = 0; i < staged.outputs.size(); ++i)
        CHECK(staged.outputs[i].metrics.has_value() == oneShot.outputs[i].metrics.has_value());
}

SessionFiles demoFiles(const std::string& capture) {
    const std::string dir = GAPSCOPE_DEMO_DIR;
    SessionFiles f;
    f.etdump = MappedFile::open(dir + "/run.etdp").value();
    f.debug_buffer = MappedFile::open(dir + "/run.debug.bin").value();
    f.etrecord = MappedFile::open(dir + "/etrecord.bin").value();
    f.capture = MappedFile::open(dir + "/" + capture).value();
    return f;
}

} // namespace

TEST_CASE("a staged demo load shows every row before any metric and ends equal to a one-shot load",
          "[session][staged]") {
    const auto capture =
        GENERATE(as<std::string>{}, "capture.gscap.safetensors", "capture_float.gscap.safetensors");
    INFO(capture);
    const auto files = demoFiles(capture);
    const auto oneShot = loadSessionFiles(files);
    REQUIRE(oneShot->complete);
    REQUIRE(oneShot->comparison);

    auto staged = openSessionFiles(files);
    Session& s = *staged.session;
    REQUIRE(s.comparison);
    CHECK_FALSE(s.complete);
    CHECK_FALSE(s.first_divergence);
    CHECK(s.introducers.empty());
    CHECK(s.comparison->outputs.empty());
    // The table's text columns are all there; no metric is.
    REQUIRE(s.comparison->rows.size() == oneShot->comparison->rows.size());
    REQUIRE_FALSE(staged.pending.empty());
    for (const auto& row : s.comparison->rows) {
        const auto& full = oneShot->comparison->rows[row.index];
        CHECK(row.id().aot_ops == full.id().aot_ops);
        CHECK(row.id().runtime_ops == full.id().runtime_ops);
        CHECK(row.id().shapes() == full.id().shapes());
        CHECK(row.id().dtypes() == full.id().dtypes());
        const bool pending = std::any_of(staged.pending.begin(), staged.pending.end(),
                                         [&](const RowPlan& p) { return p.row == row.index; });
        CHECK(row.measured == !pending);
        if (pending)
            CHECK(row.gaps.empty());
    }

    // A pending plan measures what its row shows: the row's own element plans,
    // held through its identity rather than copied.
    for (const auto& plan : staged.pending) {
        REQUIRE(plan.identity);
        CHECK(&plan.elements() == &s.comparison->rows.at(plan.row).elementPlans());
        CHECK_FALSE(plan.elements().empty());
    }

    // Rows arrive in any order; applying one twice changes nothing.
    std::vector<RowPlan> order = staged.pending;
    std::shuffle(order.begin(), order.end(), std::mt19937(11));
    for (const auto& plan : order) {
        const auto m = measureRow(plan, 1);
        applyMeasurement(*s.comparison, m);
        applyMeasurement(*s.comparison, m);
    }
    CHECK_FALSE(s.complete);
    completeSession(s, compareProgramOutputs(*s.dump, *s.capture, *s.comparison));
    CHECK(s.complete);
    checkSameRows(*s.comparison, *oneShot->comparison);
    CHECK(s.first_divergence.has_value() == oneShot->first_divergence.has_value());
    REQUIRE(s.introducers.size() == oneShot->introducers.size());
    for (std::size_t i = 0; i < s.introducers.size(); ++i) {
        CHECK(s.introducers[i].row == oneShot->introducers[i].row);
        CHECK(s.introducers[i].added == oneShot->introducers[i].added);
    }
}

TEST_CASE("a staged plan settles rows that need no arithmetic and measuring finds broadcasts and bad shapes",
          "[session][staged]") {
    SessionBuilder b;
    for (int i = 0; i < 4; ++i) {
        b.maps.debug_handle_map[i] = {{i + 1}, false};
        b.node("op" + std::to_string(i), {i + 1});
    }
    b.kernel(0, "add.out", {b.tensor({1, 2}, {2})});
    b.kernel(1, "mul.out", {b.tensor({3, 4}, {2})});        // broadcast against [2, 2]
    b.kernel(2, "view.out", {b.tensor({1, 2, 3}, {3})});    // 3 against 2: does not broadcast
    b.kernel(3, "relu.out", {b.tensor({5, 6, 7, 8}, {4})}); // its bytes are cut off
    b.record({1}, {"op0"}, {{{1, 2}, {2}}});
    b.record({2}, {"op1"}, {{{3, 4, 3, 4}, {2, 2}}});
    b.record({3}, {"op2"}, {{{1, 2}, {2}}});
    b.record({4}, {"op3"}, {{{5, 6, 7, 8}, {4}}});
    auto planned = b.plan(std::size_t{140});
    auto& c = planned.comparison;
    REQUIRE(c.rows.size() == 4);
    // Missing bytes are known from metadata: settled at once, no arithmetic pending.
    CHECK(c.rows[3].measured);
    CHECK(c.rows[3].status == RowStatus::MissingData);
    REQUIRE(planned.pending.size() == 3);
    for (std::size_t i = 0; i < 3; ++i) {
        CHECK_FALSE(c.rows[i].measured);
        CHECK(c.rows[i].status == RowStatus::Ok); // provisional
    }
    // Each row's plan is handed back once, by the thread that measured it.
    std::mutex handedMutex;
    std::vector<std::size_t> handed;
    const auto measured =
        measureRows(planned.pending.data(), planned.pending.size(), nullptr, [&](const RowPlan& plan) {
            std::lock_guard<std::mutex> lock(handedMutex);
            handed.push_back(plan.row);
        });
    std::sort(handed.begin(), handed.end());
    CHECK(handed ==
          std::vector<std::size_t>{planned.pending[0].row, planned.pending[1].row, planned.pending[2].row});
    for (const auto& m : measured)
        applyMeasurement(c, m);
    finishComparison(c, {}, &b.builtRecord());
    CHECK(c.rows[0].status == RowStatus::Ok);
    CHECK(c.rows[1].status == RowStatus::Broadcast);
    CHECK(c.rows[2].status == RowStatus::Invalid);
    CHECK(c.rows[2].gaps.empty());
    CHECK(std::count_if(c.coverage.begin(), c.coverage.end(), [](const CoverageItem& i) {
              return i.kind == CoverageKind::InvalidComparison;
          }) == 1);

    const auto oneShot = compareSession(b.builtDump(), &b.builtRecord(), b.builtCapture());
    REQUIRE(oneShot);
    checkSameRows(c, oneShot.value());
}

// One stage sequence for the CLI and the app: every pending row arrives in
// order-preserving batches, then one completion; a cancel stops before the next
// batch and nothing more is delivered.
TEST_CASE("the stage runner delivers every row once, then completes and a cancel stops it",
          "[session][staged]") {
    const auto files = demoFiles("capture_float.gscap.safetensors");
    auto staged = openSessionFiles(files);
    REQUIRE_FALSE(staged.pending.empty());
    std::vector<std::size_t> rows;
    std::size_t completions = 0, lastDone = 0;
    StageCallbacks all;
    all.measured = [&](std::vector<RowMeasurement> batch, std::size_t done, std::size_t total) {
        CHECK(total == staged.pending.size());
        CHECK(done == lastDone + batch.size());
        lastDone = done;
        for (const auto& m : batch)
            rows.push_back(m.row);
    };
    all.completed = [&](std::vector<OutputComparison> outputs, CaptureProvenance provenance) {
        ++completions;
        CHECK(outputs.size() == 2);        // topk's values and indices
        CHECK(provenance.etrecord_sha256); // the capture names its ETRecord
        CHECK_FALSE(provenance.warning);   // and it is this one
    };
    runStages(*staged.session, staged.pending, all);
    REQUIRE(rows.size() == staged.pending.size());
    for (std::size_t i = 0; i < rows.size(); ++i)
        CHECK(rows[i] == staged.pending[i].row);
    CHECK(completions == 1);

    // Cancelled mid-loop: after the first batch, with rows still to measure.
    std::size_t batches = 0, delivered = 0;
    std::atomic<bool> stop{false};
    StageCallbacks cancelled;
    cancelled.cancelled = &stop;
    cancelled.measured = [&](std::vector<RowMeasurement> batch, std::size_t, std::size_t) {
        ++batches;
        delivered += batch.size();
        stop = true;
    };
    cancelled.completed = [&](std::vector<OutputComparison>, CaptureProvenance) {
        FAIL("completed after a cancel");
    };
    runStages(*staged.session, staged.pending, cancelled);
    CHECK(batches == 1);
    CHECK(delivered > 0);
    CHECK(delivered < staged.pending.size()); // the cancel came with rows left
}

// The app's loader measures its own session and publishes copies. A copy must
// stay whole when the original is gone (its rows point into the shared
// alignment and inputs; under ASan a dangling pointer fails here) and must not
// change when the original goes on being measured.
TEST_CASE("a session snapshot stays whole and unchanged while the original is measured and dropped",
          "[session][staged][snapshot]") {
    auto staged = openSessionFiles(demoFiles("capture_float.gscap.safetensors"));
    REQUIRE_FALSE(staged.pending.empty());
    const Session table = *staged.session; // what `opened` publishes
    REQUIRE(table.comparison);
    CHECK(table.comparison->aligned == staged.session->comparison->aligned); // shared, not rebuilt
    // A snapshot copies the rows' results, not their identity (handles, ops,
    // element plans): one set, shared.
    std::size_t shared = 0;
    for (std::size_t i = 0; i < table.comparison->rows.size(); ++i) {
        CHECK(table.comparison->rows[i].identity == staged.session->comparison->rows[i].identity);
        shared += table.comparison->rows[i].identity ? 1 : 0;
    }
    CHECK(shared > 0);

    StageCallbacks stages;
    stages.measured = [&](std::vector<RowMeasurement> batch, std::size_t, std::size_t) {
        for (const auto& m : batch)
            applyMeasurement(*staged.session->comparison, m);
    };
    stages.completed = [&](std::vector<OutputComparison> outputs, CaptureProvenance provenance) {
        completeSession(*staged.session, std::move(outputs), {}, provenance);
    };
    runStages(*staged.session, staged.pending, stages);
    REQUIRE(staged.session->complete);
    auto final = std::make_unique<const Session>(*staged.session);
    staged.session.reset(); // the worker's copy is gone

    // The early snapshot did not move: no row measured, no findings.
    CHECK_FALSE(table.complete);
    for (const auto& row : table.comparison->rows)
        for (const auto& pending : staged.pending)
            if (pending.row == row.index)
                CHECK_FALSE(row.measured);
    CHECK_FALSE(table.first_divergence);

    // The final snapshot reads through every pointer it holds.
    const auto oneShot = loadSessionFiles(demoFiles("capture_float.gscap.safetensors"));
    checkSameRows(*final->comparison, *oneShot->comparison);
    for (const auto& row : final->comparison->rows) {
        REQUIRE(row.id().pair);
        CHECK_FALSE(row.id().pair->runtime->event->name.empty());
        for (const auto& plan : row.elementPlans())
            if (const auto reader = ElementReader::of(plan); reader && reader->numel() > 0)
                CHECK(std::isfinite(reader->reference(reader->numel() - 1) - reader->runtime(0)));
    }
    CHECK(final->comparison->events().size() == oneShot->comparison->events().size());
}

// Issue 30: a float reference that could not establish an op's float counterpart
// writes the record without a value and says why; the row is invalid with that
// reason, never a number, and its neighbours are measured as usual.
TEST_CASE("a capture record without a value makes its row invalid with the capture's reason", "[session]") {
    SessionBuilder b;
    for (int i = 0; i < 3; ++i) {
        b.maps.debug_handle_map[i] = {{i + 1}, false};
        b.node("op" + std::to_string(i), {i + 1});
    }
    b.kernel(0, "convolution.out", {b.tensor({1, 2}, {2})});
    b.kernel(1, "native_batch_norm.out", {b.tensor({3, 4}, {2})});
    b.kernel(2, "relu.out", {b.tensor({3, 4}, {2})});
    b.record({1}, {"op0"}, {{{1, 2}, {2}}});
    b.recordWithoutValue({2}, {"op1"}, "the re-export renumbered the others");
    b.record({3}, {"op2"}, {{{3, 4}, {2}}});
    const auto& c = b.compare();
    REQUIRE(c.rows.size() == 3);
    CHECK(c.rows[0].status == RowStatus::Ok);
    CHECK(c.rows[2].status == RowStatus::Ok);
    CHECK(c.rows[1].status == RowStatus::Invalid);
    CHECK(c.rows[1].reason == "the reference has no value for this op: the re-export renumbered the others");
    CHECK(c.rows[1].gaps.empty());
    CHECK(b.builtCapture().records[1].invalid_reason);
}

// A batch of rows holds one row per core, then grows only while the input
// bytes it reads stay within the bound: those pages stay resident until the
// batch is released, so the bound is the inputs' share of the peak.
TEST_CASE("a measurement batch: a row per core first, then rows while the bytes they read fit",
          "[staged][memory]") {
    using namespace gapscope::test;
    SessionBuilder b;
    for (int i = 0; i < 6; ++i) {
        b.maps.debug_handle_map[i] = {{i + 1}, false};
        b.node("op" + std::to_string(i), {i + 1});
        // Row i reads (i + 1) float32 values on each side: 8 (i + 1) bytes.
        std::vector<float> values(static_cast<std::size_t>(i + 1), 1.0f);
        b.kernel(i, "relu.out", {b.tensor(values, {i + 1})});
        b.record({i + 1}, {"op" + std::to_string(i)}, {{values, {i + 1}}});
    }
    const auto planned = b.plan();
    const auto& pending = planned.pending;
    REQUIRE(pending.size() == 6);
    // Rows 0.. read 8, 16, 24, 32, 40, 48 bytes.
    CHECK(measurementBatchEnd(pending, 0, 64, 1, 24) == 2);  // 8 + 16 fit, 24 more does not
    CHECK(measurementBatchEnd(pending, 0, 64, 1, 48) == 3);  // 48 exactly fits
    CHECK(measurementBatchEnd(pending, 0, 64, 3, 8) == 3);   // a row per core whatever the bytes
    CHECK(measurementBatchEnd(pending, 0, 64, 3, 100) == 4); // 80 fit, 120 do not
    CHECK(measurementBatchEnd(pending, 0, 2, 1, 1000) == 2); // the row count bounds it too
    CHECK(measurementBatchEnd(pending, 4, 64, 8, 0) == 6);   // the end of the rows
    CHECK(measurementBatchEnd(pending, 5, 64, 0, 0) == 6);   // at least one row
}
