// Each row's time beside its gap (issue 26, docs/profiling.md): the row's
// instructions read from the same ETDump's timing table. Sessions are real
// ExecuTorch output (tests/data); tests/e2e/check_latency.py checks zoo and QNN
// sessions against the Inspector's own events.
#include "core/profile/op_latency.h"
#include "test_support.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <set>

using namespace gapscope;

namespace {

ComparisonLatency latencyOf(const test::ComparedDir& d) {
    ProfileOptions options;
    options.etrecord = &d.session.etrecord;
    auto l = comparisonLatency(profileTable(d.session.dump, options), d.comparison);
    REQUIRE(l);
    return *l;
}

} // namespace

TEST_CASE("portable kernels: every row timed, every operator call read once or said untimed",
          "[latency][data]") {
    const auto d = test::compareSessionDir(GAPSCOPE_TEST_DATA_DIR "/portable_mha");
    const auto l = latencyOf(*d);
    const auto table = profileTable(d->session.dump);
    const auto& block = table.blocks.at(l.block);
    REQUIRE(l.rows.size() == d->comparison.rows.size());
    REQUIRE(l.execute_p50);
    CHECK(l.rowsWithoutTime() == 0);
    // The operator calls partition: each is a row's or listed without numbers.
    std::multiset<std::size_t> read;
    double sum = 0;
    for (const auto& r : l.rows) {
        CHECK(r.source == LatencySource::OperatorCall);
        REQUIRE(r.p50);
        CHECK(*r.share == Approx(*r.p50 / *l.execute_p50));
        CHECK(r.instructions.size() == r.events.size());
        for (const auto e : r.events) {
            CHECK(block.events[e].name == "OPERATOR_CALL");
            read.insert(e);
        }
        if (r.shared_by == 1)
            sum += *r.p50;
    }
    std::size_t calls = 0;
    for (const auto& e : block.events)
        calls += e.name == "OPERATOR_CALL";
    std::set<std::size_t> distinct(read.begin(), read.end());
    CHECK(distinct.size() + l.timed_without_numerics.size() == calls);
    for (const auto& u : l.timed_without_numerics) {
        CHECK(u.name == "OPERATOR_CALL");
        CHECK(u.reason.rfind("no compared row is this instruction's output (native_call_", 0) == 0);
    }
    // Kernels run one after another inside Method::execute.
    CHECK(sum < *l.execute_p50);
}

TEST_CASE("XNNPACK: a delegate call's rows read its DELEGATE_CALL, shared by its outputs",
          "[latency][data]") {
    const auto d = test::compareSessionDir(GAPSCOPE_TEST_DATA_DIR "/xnnpack_decoder_fp32");
    const auto l = latencyOf(*d);
    bool sharedCall = false;
    for (const auto& r : l.rows) {
        if (r.source != LatencySource::DelegateCall)
            continue;
        REQUIRE(r.p50);
        CHECK(r.event.rfind("DELEGATE_CALL", 0) == 0);
        sharedCall = sharedCall || r.shared_by > 1;
    }
    CHECK(sharedCall); // the call that returns (q, kᵀ)
    // XNNPACK's own per-op events are timed, named by XNNPACK, and tied to no node.
    std::size_t own = 0;
    for (const auto& u : l.timed_without_numerics)
        own += u.reason.find("named by the backend (XnnpackBackend)") != std::string::npos;
    CHECK(own > 0);
}

TEST_CASE("QNN without its profiling: a row inside the delegate has no time, and says why",
          "[latency][data]") {
    const auto d = test::compareSessionDir(GAPSCOPE_TEST_DATA_DIR "/qnn_multiout_8a8w");
    const auto l = latencyOf(*d);
    REQUIRE(l.rowsWithoutTime() > 0);
    for (const auto& r : l.rows)
        if (!r.p50)
            CHECK(r.reason.find("profile_level=2") != std::string::npos);
}

TEST_CASE("an event that ends before it starts claims no share of the run", "[latency][hostile]") {
    // Issue 55, class 4: an OPERATOR_CALL from tick 100 to tick 5, read as a
    // 32-bit wrap as the Inspector reads it, lasts 4,294.96 ms: "4.02e+06% of
    // the run". Its time stays the Inspector's; its share is not given.
    const auto d = test::compareSessionDir(GAPSCOPE_TEST_DATA_DIR "/portable_mha");
    ProfileOptions options;
    options.etrecord = &d->session.etrecord;
    auto table = profileTable(d->session.dump, options);
    const auto honest = comparisonLatency(table, d->comparison);
    REQUIRE(honest);
    const auto& row = honest->rows.front();
    REQUIRE(row.events.size() == 1);
    auto& event = table.blocks.at(honest->block).events.at(row.events.front());
    event.ends_before_start = true;
    for (auto& t : event.raw)
        t = 4294.967195;
    event.perf = perfStats(event.raw);
    const auto l = comparisonLatency(table, d->comparison);
    REQUIRE(l);
    const auto& bad = l->rows.front();
    REQUIRE(bad.p50);
    CHECK(*bad.p50 == Approx(4294.967195));
    CHECK_FALSE(bad.share);
    CHECK_THAT(bad.reason, Catch::Contains("ends before it starts"));
    CHECK(std::any_of(l->notes.begin(), l->notes.end(), [](const std::string& n) {
        return n.find("without a share of the run") != std::string::npos;
    }));
    // The other rows keep theirs.
    CHECK(l->rows.at(1).share);
}
