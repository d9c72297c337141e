// Alignment rules on hand-made sessions: each case is one rule of ExecuTorch's
// Inspector (§5 of the spec) or of the QNN conventions, plus what Gapscope adds.

#include "core/align/alignment.h"
#include "core/align/handle_subset_index.h"
#include "core/align/runtime_entries.h"
#include "core/compare/comparison.h"
#include "session_builder.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <memory>
#include <type_traits>

using namespace gapscope;
using namespace gapscope::test;

namespace {

bool hasCoverage(const Comparison& c, const std::string& kind) {
    for (const auto& i : c.coverage)
        if (coverageKindName(i.kind) == kind)
            return true;
    return false;
}

} // namespace

TEST_CASE("operator chain: one row per kernel, ExecuTorch's columns and gaps", "[align]") {
    SessionBuilder b;
    b.maps.debug_handle_map[0] = {{1}, false};
    b.maps.debug_handle_map[1] = {{2}, false};
    b.node("add", {1});
    b.node("relu", {2}, {"add"});
    b.kernel(0, "add.out", {b.tensor({1, -2}, {2})});
    b.kernel(1, "relu.out", {b.tensor({1, 0.5f}, {2})});
    b.record({1}, {"add"}, {{{1, -2}, {2}}});
    b.record({2}, {"relu"}, {{{1, 0}, {2}}});
    const auto& c = b.compare();
    REQUIRE(c.rows.size() == 2);
    CHECK(c.rows[0].id().aot_ops == std::vector<std::string>{"add"});
    CHECK(c.rows[0].id().runtime_ops == std::vector<std::string>{"native_call_add.out"});
    CHECK(c.rows[0].gaps.at(0).mse == 0.0);
    CHECK(c.rows[1].id().runtimeDebugHandle() == HandleTuple{2});
    CHECK(c.rows[1].gaps.at(0).mse == 0.125);
    CHECK(c.rows[1].gaps.at(0).l1 == 0.5);
    CHECK(c.rows[1].status == RowStatus::Ok);
    CHECK(c.coverage.empty());
}

TEST_CASE("torch.cond branches repeat a handle: the largest instruction id wins", "[align]") {
    SessionBuilder b;
    b.maps.debug_handle_map[2] = {{7}, false};
    b.maps.debug_handle_map[5] = {{7}, false};
    b.node("cond_true_mul", {7});
    b.kernel(2, "mul.out", {b.tensor({9, 9}, {2})});
    b.kernel(5, "mul.out", {b.tensor({3, 4}, {2})});
    b.record({7}, {"cond_true_mul"}, {{{3, 4}, {2}}});
    const auto& c = b.compare();
    REQUIRE(c.rows.size() == 1);
    CHECK(c.rows[0].instruction_id == 5);
    CHECK(c.rows[0].gaps.at(0).mse == 0.0);
}

TEST_CASE("topk: two outputs under the producer's handle, compared element for element", "[align]") {
    SessionBuilder b;
    b.maps.debug_handle_map[0] = {{4}, false};
    b.node("topk", {4}, {"x"}, {"getitem", "getitem_1"});
    b.kernel(0, "topk.values", {b.tensor({0.9f, 0.5f}, {2}), b.tensor({3, 1}, {2})});
    b.record({4}, {"topk"}, {{{0.9f, 0.5f}, {2}}, {{3, 0}, {2}}}, true);
    const auto& c = b.compare();
    REQUIRE(c.rows.size() == 1);
    const auto& row = c.rows[0];
    CHECK_FALSE(row.in_executorch); // ExecuTorch skips AOT sequences longer than one
    REQUIRE(row.gaps.size() == 2);
    CHECK(row.gaps[0].mse == 0.0);
    CHECK(row.gaps[1].l1 == 1.0);
    CHECK_THAT(row.reason, Catch::Contains("2 outputs"));
}

TEST_CASE("layer_norm: one reference output against native_layer_norm's three", "[align]") {
    SECTION("the output with the reference's shape is chosen") {
        SessionBuilder b;
        b.maps.debug_handle_map[0] = {{5}, false};
        b.node("layer_norm", {5});
        b.kernel(0, "native_layer_norm.out",
                 {b.tensor({1, -1, 1, -1}, {1, 4}), b.tensor({0.5f}, {1, 1}), b.tensor({2}, {1, 1})});
        b.record({5}, {"layer_norm"}, {{{1, -1, 1, -1}, {1, 4}}});
        const auto& c = b.compare();
        REQUIRE(c.rows.size() == 1);
        CHECK(c.rows[0].status == RowStatus::Ok);
        CHECK(c.rows[0].gaps.at(0).mse == 0.0);
        CHECK_THAT(c.rows[0].selection, Catch::Contains("only runtime output of the reference's shape"));
    }
    SECTION("when mean and rstd share the output's shape the row is invalid, not a misleading number") {
        SessionBuilder b;
        b.maps.debug_handle_map[0] = {{5}, false};
        b.node("layer_norm", {5});
        b.kernel(0, "native_layer_norm.out",
                 {b.tensor({1}, {1}), b.tensor({0.5f}, {1}), b.tensor({19.7f}, {1})});
        b.record({5}, {"layer_norm"}, {{{1}, {1}}});
        const auto& c = b.compare();
        REQUIRE(c.rows.size() == 1);
        CHECK(c.rows[0].status == RowStatus::Invalid);
        CHECK(c.rows[0].gaps.empty());
        CHECK_THAT(c.rows[0].reason, Catch::Contains("3 runtime outputs match"));
        CHECK(hasCoverage(c, "invalid_comparison"));
    }
}

TEST_CASE("QNN: <node>@<idx> names through a string-keyed delegate map and DELEGATE_CALL gives way",
          "[align][qnn]") {
    SessionBuilder b;
    b.maps.debug_handle_map[0] = {{1, 2}, true};
    DelegateMapping d;
    d.backend = "QnnBackend";
    d.identifiers = {{"aten_convolution_default@0", {1}}, {"aten_relu_default@0", {2}}};
    b.maps.delegate_map[0] = d;
    b.node("aten_convolution_default", {1});
    b.node("aten_relu_default", {2}, {"aten_convolution_default"});
    b.debug(0, b.tensor({-1, 2}, {2}), -1, "aten_convolution_default@0");
    b.debug(0, b.tensor({0, 2}, {2}), -1, "aten_relu_default@0");
    b.delegateCall(0, {b.tensor({5, 5}, {2}), b.tensor({0, 2}, {2})});
    b.record({1}, {"aten_convolution_default"}, {{{-1, 2}, {2}}});
    b.record({2}, {"aten_relu_default"}, {{{0, 2}, {2}}});
    const auto& c = b.compare();
    REQUIRE(c.rows.size() == 2);
    CHECK(c.rows[0].id().runtime_ops == std::vector<std::string>{"aten_convolution_default@0"});
    CHECK(c.rows[1].id().runtime_ops == std::vector<std::string>{"aten_relu_default@0"});
    for (const auto& r : c.rows)
        CHECK(r.gaps.at(0).mse == 0.0);
}

TEST_CASE("QNN: __debugID_<N> names resolve without any ETRecord", "[align][qnn]") {
    SessionBuilder b;
    b.debug(0, b.tensor({1, 2}, {2}), -1, "aten_convolution_default__debugID_3");
    b.debug(0, b.tensor({0, 2}, {2}), -1, "relu__debugID_4");
    b.record({3}, {"conv2d"}, {{{1, 2}, {2}}});
    b.record({4}, {"relu"}, {{{0, 3}, {2}}});
    const auto& c = b.compare(std::nullopt, false);
    REQUIRE(c.rows.size() == 2);
    CHECK(c.rows[0].id().runtime_ops == std::vector<std::string>{"aten_convolution_default__debugID_3"});
    CHECK(c.rows[1].gaps.at(0).mse == 0.5);
}

TEST_CASE("integer delegate ids through an int-keyed delegate map", "[align]") {
    SessionBuilder b;
    b.maps.debug_handle_map[0] = {{1, 2}, true};
    DelegateMapping d;
    d.backend = "XnnpackBackend";
    d.identifiers = {{"0", {1}}, {"1", {2}}};
    b.maps.delegate_map[0] = d;
    b.node("linear", {1});
    b.node("gelu", {2}, {"linear"});
    b.debug(0, b.tensor({1}, {1}), 0);
    b.debug(0, b.tensor({2}, {1}), 1);
    b.record({1}, {"linear"}, {{{1}, {1}}});
    b.record({2}, {"gelu"}, {{{2.5f}, {1}}});
    const auto& c = b.compare();
    REQUIRE(c.rows.size() == 2);
    CHECK(c.rows[1].id().runtime_ops == std::vector<std::string>{"1"});
    CHECK(c.rows[1].gaps.at(0).mse == 0.25);
}

TEST_CASE("a delegate group is compared at its last handle and inner ops are listed as fused", "[align]") {
    SessionBuilder b;
    b.maps.debug_handle_map[0] = {{1, 2, 3}, true};
    b.maps.delegate_map[0] = DelegateMapping{"XnnpackBackend", {}};
    b.node("conv2d", {1});
    b.node("relu", {2});
    b.node("reshape", {3});
    b.profile(0, "", -1, "Convolution (NHWC, F32) IGEMM #1");
    b.delegateCall(0, {b.tensor({7, 7}, {2}), b.tensor({1, 2}, {2})});
    b.record({1}, {"conv2d"}, {{{3, 3}, {2}}});
    b.record({2}, {"relu"}, {{{3, 3}, {2}}});
    b.record({3}, {"reshape"}, {{{1, 2}, {2}}});
    const auto& c = b.compare();
    REQUIRE(c.rows.size() == 1);
    CHECK(c.rows[0].id().aot_ops == std::vector<std::string>{"conv2d", "relu", "reshape"});
    CHECK(c.rows[0].id().runtime_ops == std::vector<std::string>{"DELEGATE_CALL"});
    CHECK(c.rows[0].gaps.at(0).mse == 0.0); // the last logged argument is the output
    CHECK(hasCoverage(c, "fused"));
    CHECK(hasCoverage(c, "opaque_delegate_event"));
}

TEST_CASE("groups ExecuTorch cannot pair are reported, not dropped", "[align]") {
    SECTION("no reference output at the group's last handle") {
        SessionBuilder b;
        b.maps.debug_handle_map[0] = {{1, 2, 3}, true};
        b.node("a", {1});
        b.node("b", {2});
        b.node("c", {3});
        b.delegateCall(0, {b.tensor({1}, {1})});
        b.record({1}, {"a"}, {{{1}, {1}}});
        const auto& c = b.compare();
        CHECK(c.rows.empty());
        REQUIRE(hasCoverage(c, "unmatched_group"));
        CHECK_THAT(c.coverage.front().reason, Catch::Contains("handle 3"));
    }
    SECTION("reference handles that are not a subset of the runtime group") {
        SessionBuilder b;
        b.maps.debug_handle_map[0] = {{1, 2}, true};
        b.node("a", {1});
        b.node("b", {2});
        b.delegateCall(0, {b.tensor({1}, {1})});
        b.record({1}, {"a"}, {{{1}, {1}}});
        b.record({4, 2}, {"b"}, {{{1}, {1}}});
        const auto& c = b.compare();
        CHECK(c.rows.empty());
        REQUIRE(hasCoverage(c, "unmatched_group"));
        CHECK_THAT(c.coverage.front().reason, Catch::Contains("not a subset"));
    }
    SECTION("reference ops the runtime never ran") {
        SessionBuilder b;
        b.maps.debug_handle_map[0] = {{1}, false};
        b.node("a", {1});
        b.node("dead", {9});
        b.kernel(0, "a.out", {b.tensor({1}, {1})});
        b.record({1}, {"a"}, {{{1}, {1}}});
        b.record({9}, {"dead"}, {{{1}, {1}}});
        const auto& c = b.compare();
        CHECK(c.rows.size() == 1);
        CHECK(hasCoverage(c, "aot_without_runtime"));
    }
}

TEST_CASE("missing tensor data makes a missing_data row and a coverage entry", "[align]") {
    SessionBuilder b;
    b.maps.debug_handle_map[0] = {{1}, false};
    b.maps.debug_handle_map[1] = {{2}, false};
    b.node("add", {1});
    b.node("relu", {2});
    b.kernel(0, "add.out", {b.tensor({1, 2}, {2})});
    b.kernel(1, "relu.out", {b.tensor({3, 4}, {2})});
    b.record({1}, {"add"}, {{{1, 2}, {2}}});
    b.record({2}, {"relu"}, {{{3, 4}, {2}}});
    // A 40-byte buffer keeps the first tensor (offset 0) and cuts the second (offset 64).
    const auto& c = b.compare(std::size_t{40});
    REQUIRE(c.rows.size() == 2);
    CHECK(c.rows[0].status == RowStatus::Ok);
    CHECK(c.rows[1].status == RowStatus::MissingData);
    CHECK(c.rows[1].gaps.empty());
    CHECK(hasCoverage(c, "missing_data"));
}

TEST_CASE("two records of the same handles: the later one is the reference, as in ExecuTorch's dict",
          "[align]") {
    SessionBuilder b;
    b.maps.debug_handle_map[0] = {{1}, false};
    b.node("mul", {1});
    b.kernel(0, "mul.out", {b.tensor({1, 2}, {2})});
    b.record({1}, {"earlier"}, {{{9, 9}, {2}}});
    b.record({1}, {"later"}, {{{1, 2}, {2}}});
    const auto& c = b.compare();
    REQUIRE(c.rows.size() == 1);
    REQUIRE(c.rows[0].id().pair);
    CHECK(c.rows[0].id().pair->aot.record->ops == std::vector<std::string>{"later"});
    CHECK(c.rows[0].gaps.at(0).mse == 0.0);
}

TEST_CASE("runtime keys far apart, negative or colliding are told apart and merged", "[align]") {
    // The keys are found by open addressing (runtime_entries.cpp): handles of
    // 10^12, negative ones, and 2,000 keys 4,096 apart (the same low bits).
    std::vector<InspectorEvent> events;
    const auto event = [&](HandleTuple handles, std::int32_t instruction, std::string name) {
        InspectorEvent e;
        e.name = std::move(name);
        e.instruction_id = instruction;
        e.has_op_types = true;
        e.resolved.handles = std::move(handles);
        events.push_back(std::move(e));
    };
    const std::int64_t far = 1000000000000;
    event({far}, 3, "far");
    event({-5}, 1, "negative");
    event({far}, 2, "far again, earlier"); // the same key, a lower instruction: not kept
    event({-5, 7}, 4, "overlaps");         // merges into the entry of {-5}, and wins
    for (std::int64_t i = 1; i <= 2000; ++i)
        event({i * 4096}, 10, "spread");
    std::vector<RuntimeOpName> names;
    const auto entries = runtimeEntries(events, names);
    REQUIRE(entries.size() == 2 + 2000);
    CHECK(entries[0].handles == HandleTuple{far});
    CHECK(entries[0].event == &events[0]);
    CHECK(entries[1].handles == HandleTuple{-5, 7});
    CHECK(entries[1].event == &events[3]);
    CHECK(entries[1].instruction_id == 4);
    for (std::size_t i = 0; i < 2000; ++i)
        CHECK(entries[2 + i].handles == HandleTuple{static_cast<std::int64_t>(i + 1) * 4096});
    REQUIRE(names.size() == 3 + 2000);
    // Views into the events: the first event of each key, and the name of the
    // event kept for it.
    CHECK(names[0].handles == &events[0].resolved.handles);
    CHECK(*names[0].name == "far");
    CHECK(names[1].handles == &events[1].resolved.handles);
    CHECK(*names[1].name == "negative");
    CHECK(*names[2].handles == HandleTuple{-5, 7});
    CHECK(names[2].name == &events[3].name);
}

TEST_CASE("overlapping runtime keys merge and the higher instruction id wins", "[align]") {
    CHECK(mergeHandleTuples({1, 2, 3}, {3, 4, 4}) == HandleTuple{1, 2, 3, 4});
    CHECK(mergeHandleTuples({3, 4}, {1, 2, 3}) == HandleTuple{4, 1, 2, 3});
    SessionBuilder b;
    b.maps.debug_handle_map[0] = {{1, 2}, true};
    b.maps.debug_handle_map[1] = {{2, 3}, true};
    b.node("a", {1});
    b.node("b", {2});
    b.node("c", {3});
    b.delegateCall(0, {b.tensor({9}, {1})});
    b.delegateCall(1, {b.tensor({5}, {1})});
    b.record({3}, {"c"}, {{{5}, {1}}});
    const auto& c = b.compare();
    REQUIRE(c.alignment().runtime.size() == 1);
    CHECK(c.alignment().runtime[0].handles == HandleTuple{1, 2, 3});
    CHECK(c.alignment().runtime[0].instruction_id == 1);
    REQUIRE(c.rows.size() == 1);
    CHECK(c.rows[0].gaps.at(0).mse == 0.0);
}

#include "core/compare/findings.h"

TEST_CASE("QNN without an ETRecord: error introducers follow execution order", "[findings][qnn]") {
    SessionBuilder b;
    b.debug(0, b.tensor({1.01f, 1, 1, 1}, {4}), -1, "conv__debugID_1");
    b.debug(1, b.tensor({2, 1, 1, 1}, {4}), -1, "gelu__debugID_2");      // the jump
    b.debug(2, b.tensor({2, 1.1f, 1, 1}, {4}), -1, "linear__debugID_3"); // inherits it
    for (std::int64_t h = 1; h <= 3; ++h)
        b.record({h}, {"op" + std::to_string(h)}, {{{1, 1, 1, 1}, {4}}});
    const auto& c = b.compare(std::nullopt, false);
    REQUIRE(c.rows.size() == 3);
    const auto introducers = errorIntroducers(c, nullptr);
    REQUIRE(introducers.size() == 3);
    const auto& top = introducers.front();
    CHECK(c.rows[top.row].id().aot_ops == std::vector<std::string>{"op2"});
    CHECK_FALSE(top.producers_from_graph);
    REQUIRE(top.producers.size() == 1);
    CHECK(c.rows[top.producers[0]].id().aot_ops == std::vector<std::string>{"op1"});
    CHECK(top.own == Approx(0.5));
    CHECK(top.worst_producer == Approx(0.005));
    CHECK(top.added == Approx(0.495));
    // The first op in execution order has no producer: all its error is its own.
    const auto first = std::find_if(introducers.begin(), introducers.end(), [&](const Introducer& i) {
        return c.rows[i.row].id().aot_ops[0] == "op1";
    });
    CHECK(first->producers.empty());
    CHECK(first->added == Approx(0.005));
    CHECK(introducers.back().added == Approx(std::sqrt(1.01) / 2 - 0.5));
    // Gain: how much each op multiplies the error it receives, over a float32 noise floor.
    CHECK(top.gain_db == Approx(20 * std::log10((0.5 + 1e-6) / (0.005 + 1e-6))));
    // Issue 30: the first op receives no measured error, so it has no gain (it used to
    // read +74 dB against the floor alone and take the marker from the real jump).
    CHECK(std::isnan(first->gain_db));
    const auto strongest = strongestGain(introducers);
    REQUIRE(strongest);
    CHECK(strongest->row == top.row); // the jump, +40 dB
    CHECK(strongest->gain_db == Approx(20 * std::log10((0.5 + 1e-6) / (0.005 + 1e-6))));
    // Nothing is marked when no op at least doubles its error.
    std::vector<Introducer> mild = introducers;
    for (auto& in : mild)
        in.gain_db = 5.9;
    CHECK_FALSE(strongestGain(mild));
}

// A row's op names come through a handle index instead of a scan: the same
// names, in the list's order, empty keys included (ExecuTorch's subset test
// holds for them).
TEST_CASE("the handle subset index finds exactly the tuples within a target, in list order", "[align]") {
    const std::vector<HandleTuple> tuples{{3}, {1, 2}, {}, {2, 9}, {1}, {4, 1, 2}, {2}};
    std::vector<const HandleTuple*> borrowed;
    for (const auto& t : tuples)
        borrowed.push_back(&t);
    const HandleSubsetIndex index(borrowed);
    std::vector<std::size_t> reused{7, 7, 7}; // the list a caller fills again and again
    for (const HandleTuple& target : {HandleTuple{1, 2}, HandleTuple{2, 1, 4}, HandleTuple{9}, HandleTuple{},
                                      HandleTuple{2, 9, 3, 1, 4}}) {
        std::vector<std::size_t> expected; // the scan it replaces
        for (std::size_t i = 0; i < tuples.size(); ++i)
            if (std::all_of(tuples[i].begin(), tuples[i].end(), [&](std::int64_t h) {
                    return std::find(target.begin(), target.end(), h) != target.end();
                }))
                expected.push_back(i);
        CHECK(index.subsetsOf(target) == expected);
        index.subsetsOf(target, reused);
        CHECK(reused == expected); // what it held before is gone
    }
}

// Issue 23: XNNPACK's linear returns 64x384 where the reference is 1x8x8x384 (and
// GQA's repeat_kv, Swin's matmuls alike): the same elements in the same order.
TEST_CASE("a reshape that merges or splits adjacent dimensions is compared element for element",
          "[align][shapes]") {
    const auto compareShapes = linearWithOneElementOff;
    SECTION("merged leading dimensions: 6x4 against 1x2x3x4") {
        const auto b = compareShapes({6, 4}, {1, 2, 3, 4});
        const auto& row = b->compare().rows.at(0);
        CHECK(row.status == RowStatus::Ok);
        CHECK(row.gaps.at(0).max_abs == 0.25);
        CHECK(row.gaps.at(0).max_abs_index ==
              std::vector<std::int64_t>{0, 0, 1, 1}); // element 5, reference coords
        CHECK(row.id().shapes() == std::vector<std::string>{"1x2x3x4 (runtime 6x4)"});
        CHECK_THAT(row.reason, Catch::Contains("merges or splits adjacent dimensions"));
        CHECK(crossesThreshold(row, {Metric::MaxAbs, 0.1}));
    }
    SECTION("split trailing dimension: 2x12 against 2x3x4") {
        const auto b = compareShapes({2, 12}, {2, 3, 4});
        CHECK(b->compare().rows.at(0).status == RowStatus::Ok);
    }
    SECTION("a regrouping that may be a transpose stays refused: 4x6 against 6x4, 2x12 against 6x4") {
        for (const auto& [runtime, reference] :
             {std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>>{{4, 6}, {6, 4}},
              {{2, 12}, {6, 4}}}) {
            const auto b = compareShapes(runtime, reference);
            const auto& row = b->compare().rows.at(0);
            CHECK(row.status == RowStatus::Invalid);
            CHECK(row.gaps.empty());
            CHECK_THAT(row.id().shapes().at(0), Catch::Contains("(runtime "));
        }
    }
}

// Issue 23: a gate trips where the first divergence would, and never on a row or
// an output that agrees exactly (two zero tensors: SNR 0/0).
TEST_CASE("exact agreement never crosses a threshold, rows and program outputs alike", "[findings][gates]") {
    OutputComparison zeros;
    zeros.metrics = GapMetrics{};
    zeros.metrics->snr = std::numeric_limits<double>::quiet_NaN();
    CHECK_FALSE(crossesThreshold(zeros, {Metric::Snr, 20.0}));
    OutputComparison off = zeros;
    off.metrics->mse = 1.0;
    off.metrics->max_abs = 1.0;
    off.metrics->snr = 3.0;
    CHECK(crossesThreshold(off, {Metric::Snr, 20.0}));
    off.status = RowStatus::Broadcast;
    CHECK_FALSE(crossesThreshold(off, {Metric::Snr, 20.0}));
}

#include "core/compare/delegate_granularity.h"

// Issue 30: a delegate that logs only its outputs makes one row of many ops; a note
// says what cannot be localised and how to get one row per op. One op per row: no note.
TEST_CASE("a delegate-granular session gets a note on what it cannot localise", "[align][delegate]") {
    const auto build = [](bool delegated, const std::string& graph) {
        auto b = std::make_unique<SessionBuilder>();
        if (delegated) {
            b->maps.debug_handle_map[0] = {{1, 2, 3}, true};
            b->maps.delegate_map[0] = DelegateMapping{"XnnpackBackend", {}};
            b->delegateCall(0, {b->tensor({7, 7}, {2}), b->tensor({1, 2}, {2})});
        } else {
            for (int i = 0; i < 3; ++i) {
                b->maps.debug_handle_map[i] = {{i + 1}, false};
                b->kernel(i, "op.out", {b->tensor({1, 2}, {2})});
            }
        }
        for (int i = 0; i < 3; ++i) {
            b->node("op" + std::to_string(i), {i + 1});
            b->record({i + 1}, {"op" + std::to_string(i)}, {{{1, 2}, {2}}});
        }
        b->referenceGraph(graph);
        return b;
    };
    auto delegated = build(true, "exported_program");
    const auto note = delegateGranularityNote(delegated->compare(), delegated->builtCapture());
    REQUIRE(note);
    CHECK_THAT(*note, Catch::StartsWith(
                          "1 delegate logged only its outputs, so its rows stand for 3 reference ops"));
    CHECK_THAT(*note, Catch::Contains("gapscope-capture twin ETRECORD OUTDIR"));

    auto againstTwin = build(true, kHostTwinRuntimeGraph);
    const auto twinNote = delegateGranularityNote(againstTwin->compare(), againstTwin->builtCapture());
    REQUIRE(twinNote);
    CHECK_THAT(*twinNote, Catch::Contains("how far the delegate's kernels are from the host's"));

    auto perOp = build(false, "exported_program");
    CHECK_FALSE(delegateGranularityNote(perOp->compare(), perOp->builtCapture()));

    // The constant copies a program runs beside its delegate share the group's row
    // (a user's MobileNetV3 on XNNPACK): still one delegate row of many ops.
    SessionBuilder withCopies;
    withCopies.maps.debug_handle_map[0] = {{1}, false};
    withCopies.maps.debug_handle_map[1] = {{1, 2, 3}, true};
    withCopies.maps.delegate_map[1] = DelegateMapping{"XnnpackBackend", {}};
    withCopies.kernel(0, "_to_dim_order_copy.out", {withCopies.tensor({1, 2}, {2})});
    withCopies.delegateCall(1, {withCopies.tensor({7, 7}, {2}), withCopies.tensor({1, 2}, {2})});
    for (int i = 0; i < 3; ++i) {
        withCopies.node("op" + std::to_string(i), {i + 1});
        withCopies.record({i + 1}, {"op" + std::to_string(i)}, {{{1, 2}, {2}}});
    }
    const auto& c = withCopies.compare();
    REQUIRE(c.rows.size() == 1);
    INFO(c.rows[0].id().runtime_ops.size());
    CHECK(c.rows[0].id().runtime_ops.size() == 2);
    CHECK(delegateGranularityNote(c, withCopies.builtCapture()));
}

// Issue 30: a row that agrees with its reference to within one quantisation step's
// rounding shows no growth, however exact its producer was (a 5e-4 blip against
// PT2E's simulation read +54 dB); beyond the rounding the gain is measured as before.
TEST_CASE("the error gain is measured over the row's rounding noise", "[findings]") {
    ComparisonRow row;
    row.status = RowStatus::Ok;
    GapMetrics g;
    g.rel_l2 = 5e-4;
    g.rmse_steps = 0.05; // a few elements one step off
    row.gaps.push_back(g);
    const double floor = roundingFloor(row);
    CHECK(floor == Approx(5e-4 / (0.05 * std::sqrt(12.0))));
    CHECK(gainDb(5e-4, 0, floor) < 6.0);     // within rounding: not flagged
    CHECK(gainDb(5e-4, 0, 1e-6) > 50.0);     // the old floor: +54 dB
    CHECK(gainDb(0.5, 0.005, floor) > 30.0); // real growth still shows
    row.gaps.front().rmse_steps.reset();     // no step known: float32's floor
    CHECK(roundingFloor(row) == Introducer::kErrorFloor);
}

// The alignment points into the events beside it: a copied AlignedRun would point
// into the original and dangle once it goes, so it cannot be copied, only moved
// (a moved vector keeps its storage) or shared, as Comparison shares it.
static_assert(!std::is_copy_constructible_v<gapscope::AlignedRun>, "AlignedRun must not be copyable");
static_assert(!std::is_copy_assignable_v<gapscope::AlignedRun>, "AlignedRun must not be copyable");
static_assert(std::is_nothrow_move_constructible_v<gapscope::AlignedRun>, "a move keeps the pointers");

TEST_CASE("the op graph's handles are found whatever their order and repeats", "[align]") {
    constexpr auto kMin = std::numeric_limits<std::int64_t>::min();
    constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
    // Sparse (sorted and bisected), then dense (a bit per handle of the span).
    for (const bool sparse : {true, false}) {
        INFO((sparse ? "sparse" : "dense"));
        std::vector<std::int64_t> held{7, -3, 7, 0, 42, -3};
        if (sparse)
            held.push_back(9000000000);
        const OpHandles handles(held);
        for (std::int64_t h : held)
            CHECK(handles.contains(h));
        for (std::int64_t h : std::vector<std::int64_t>{1, -4, 8, 43, 8999999999, kMin, kMax})
            CHECK_FALSE(handles.contains(h));
    }
    CHECK(OpHandles({kMin, kMax}).contains(kMax));
    CHECK_FALSE(OpHandles({kMin, kMax}).contains(0));
    CHECK_FALSE(OpHandles().contains(0));
}
