// Comparing runs (issue 25): rows paired across two runs by what they compare,
// never dropped; each side's numbers exactly as its own report gives them;
// saved reports read back, old versions read and newer ones refused.
#include "core/compare/op_kind.h"
#include "core/report/compare_report.h"
#include "core/report/diff_report.h"
#include "core/report/json_text.h"
#include "core/report/report_reader.h"
#include "core/runs/run_diff.h"
#include "core/runs/run_match.h"
#include "core/runs/run_summary.h"
#include "core/runs/step_matrix.h"
#include "test_support.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <set>

using namespace gapscope;

namespace {

std::shared_ptr<const MappedFile> textFile(const std::string& name, const std::string& text) {
    return MappedFile::fromBytes(name, reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
}

std::size_t position(Metric metric) {
    return metricIndex(metric);
}

// A row as a report would give it: one op, its handle, a shape, an SNR.
RunRow row(std::size_t index, std::int64_t handle, const std::string& op, const std::string& shape,
           double snr, const std::string& source = "") {
    RunRow r;
    r.index = index;
    r.aot_debug_handle = {handle};
    r.compared_handle = handle;
    r.aot_ops = {op};
    r.compared_node = op;
    r.name = op;
    r.shapes = shape;
    r.source = source;
    r.metrics.assign(metricCatalog().size(), std::nullopt);
    r.metrics[position(Metric::Snr)] = snr;
    return r;
}

// Every row of both runs appears exactly once.
void requireAccounted(const RunMatch& m, const RunSummary& a, const RunSummary& b) {
    std::multiset<std::size_t> seenA, seenB;
    for (const auto& p : m.pairs) {
        if (p.a)
            seenA.insert(*p.a);
        if (p.b)
            seenB.insert(*p.b);
        CHECK((p.a && p.b) == (p.basis != MatchBasis::Unmatched));
    }
    REQUIRE(seenA.size() == a.rows.size());
    REQUIRE(seenB.size() == b.rows.size());
    for (std::size_t i = 0; i < a.rows.size(); ++i)
        CHECK(seenA.count(i) == 1);
    for (std::size_t j = 0; j < b.rows.size(); ++j)
        CHECK(seenB.count(j) == 1);
    CHECK(m.matched + m.a_only == a.rows.size());
    CHECK(m.matched + m.b_only == b.rows.size());
}

} // namespace

TEST_CASE("op kinds: the exported program's and edge_after_transform's names of one op agree", "[runs]") {
    // Names as ExecuTorch 1.5.1 writes them (shared/design/matching-across-lowerings.md).
    CHECK(opKind("conv2d") == "conv");
    // In-place ops pair with their functional twins (issue 56).
    CHECK(opKind("relu_") == "relu");
    CHECK(opKind("relu__3") == "relu");
    CHECK(opKind("hardtanh_") == opKind("aten_hardtanh_default"));
    CHECK(opKind("relu_") == opKind("aten_relu_default_2"));
    CHECK(opKind("_softmax") == "softmax"); // a leading underscore is no in-place mark
    CHECK(opKind("aten_convolution_default") == "conv");
    CHECK(opKind("aten_convolution_default_3") == "conv");
    CHECK(opKind("batch_norm_1") == "batch_norm");
    CHECK(opKind("aten__native_batch_norm_legit_no_training_default") == "batch_norm");
    CHECK(opKind("layer_norm") == "layer_norm");
    CHECK(opKind("aten_native_layer_norm_default_1") == "layer_norm");
    CHECK(opKind("linear_2") == "linear");
    CHECK(opKind("aten_linear_default_2") == "linear");
    CHECK(opKind("softmax") == "softmax");
    CHECK(opKind("aten__softmax_default") == "softmax");
    CHECK(opKind("aten_view_copy_default_12") == "view");
    CHECK(opKind("aten_add_tensor_1") == "add");
    CHECK(opKind("add_1") == "add");
    CHECK(opKind("aten_mean_dim") == "mean");
    CHECK(opKind("transpose_2") == "permute");
    CHECK(opKind("aten_permute_copy_default") == "permute");
    // Not every word is an overload or a counter.
    CHECK(opKind("conv2d_1") == "conv");
    CHECK(opKind("dequantize_per_tensor_3") == "dequantize_per_tensor");
    CHECK(opKind("relu") != opKind("aten_sigmoid_default"));
}

TEST_CASE("two runs of one reference graph pair by debug handle", "[runs]") {
    RunSummary a, b;
    a.reference_program = b.reference_program = "same";
    a.rows = {row(0, 3, "conv2d", "1x8", 40), row(1, 4, "relu", "1x8", 39), row(2, 7, "linear", "1x4", 38)};
    // B dropped one row (its runtime logged no output for handle 4) and has one more.
    b.rows = {row(0, 7, "linear", "1x4", 30), row(1, 3, "conv2d", "1x8", 41),
              row(2, 9, "softmax", "1x4", 50)};
    const auto m = matchRuns(a, b);
    CHECK(m.by_handle);
    requireAccounted(m, a, b);
    CHECK(m.matched == 2);
    for (const auto& p : m.pairs)
        if (p.a && p.b)
            CHECK(a.rows[*p.a].compared_handle == b.rows[*p.b].compared_handle);

    // Another graph: the same handles name other nodes, so they are not evidence.
    b.reference_program = "other";
    const auto other = matchRuns(a, b);
    CHECK_FALSE(other.by_handle);
    requireAccounted(other, a, b);
}

TEST_CASE("across lowerings, rows pair by op, code and shape in order, and extra rows are listed", "[runs]") {
    RunSummary portable, qnn;
    portable.reference_program = "exported_program";
    qnn.reference_program = "edge_after_transform";
    portable.rows = {
        row(0, 1, "layer_norm", "1x16x32", 140, "m.py:10"), row(1, 2, "linear", "1x16x32", 139, "m.py:11"),
        row(2, 3, "softmax", "1x16x16", 138, "m.py:12"), row(3, 4, "linear_1", "1x16x32", 137, "m.py:13")};
    // QNN numbers its weights' q/dq nodes first and wraps a 3-D linear in views.
    qnn.rows = {row(0, 40, "aten_native_layer_norm_default", "1x16x32", 40, "m.py:10"),
                row(1, 41, "aten_view_copy_default", "16x32", 40, "m.py:11"),
                row(2, 42, "aten_linear_default", "16x32", 38, "m.py:11"),
                row(3, 43, "aten_view_copy_default_1", "1x16x32", 38, "m.py:11"),
                row(4, 44, "aten__softmax_default", "1x16x16", 35, "m.py:12"),
                row(5, 45, "aten_linear_default_1", "1x16x32", 30, "m.py:13")};
    const auto m = matchRuns(portable, qnn);
    requireAccounted(m, portable, qnn);
    REQUIRE(m.matched == 4);
    CHECK(m.b_only == 2);
    std::vector<std::pair<std::size_t, std::size_t>> pairs;
    for (const auto& p : m.pairs)
        if (p.a && p.b)
            pairs.emplace_back(*p.a, *p.b);
    CHECK(pairs == std::vector<std::pair<std::size_t, std::size_t>>{{0, 0}, {1, 2}, {2, 4}, {3, 5}});
    CHECK(m.pairs[0].basis == MatchBasis::OpSourceShape);
    // The linear pair rests on op and code: QNN's linear is 2-D.
    const auto linear =
        std::find_if(m.pairs.begin(), m.pairs.end(), [](const RowPairing& p) { return p.a == 1u; });
    CHECK(linear->basis == MatchBasis::OpSource);

    // The ranking puts the pairing that lost the most SNR first.
    const auto ranked = rankByWorsening(portable, qnn, m, Metric::Snr);
    const auto& worst = m.pairs[ranked.front()];
    CHECK(worst.a == 3u);
    CHECK(metricDelta(portable, qnn, worst, Metric::Snr).worse_by ==
          Approx(70)); // 137 counts as 100 (the floor)
    // A row of one run only has its value and nothing to subtract: it ranks last.
    for (const auto& p : m.pairs)
        if (!p.a) {
            const auto d = metricDelta(portable, qnn, p, Metric::Snr);
            CHECK(d.b == qnn.rows[*p.b].metrics[position(Metric::Snr)]);
            CHECK_FALSE(d.worse_by);
            CHECK_FALSE(d.delta);
        }
    CHECK(!m.pairs[ranked.back()].a);
}

TEST_CASE("a BatchNorm folded by quantisation pairs the folded conv with the other run's batch_norm",
          "[runs]") {
    // A conv-transpose's too, as PT2E's _fuse_conv_bn_ folds it (float_reference.py).
    const std::string conv = GENERATE(std::string("conv2d"), std::string("conv_transpose2d"));
    CAPTURE(conv);
    RunSummary portable, int8;
    portable.reference_program = "p";
    int8.reference_program = "q";
    portable.rows = {row(0, 1, conv, "1x8x8x8", 140, "m.py:5"),
                     row(1, 2, "batch_norm", "1x8x8x8", 139, "m.py:6"),
                     row(2, 3, "relu", "1x8x8x8", 139, "m.py:7")};
    int8.rows = {row(0, 5, conv, "1x8x8x8", 38, "m.py:5"), row(1, 9, "relu", "1x8x8x8", 37, "m.py:7")};
    const auto m = matchRuns(portable, int8);
    requireAccounted(m, portable, int8);
    const auto of = [&](std::size_t a) {
        return *std::find_if(m.pairs.begin(), m.pairs.end(), [&](const RowPairing& p) { return p.a == a; });
    };
    CHECK(of(1).b == 0u);
    CHECK(of(1).basis == MatchBasis::FoldedBatchNorm);
    CHECK_FALSE(of(0).b);
    CHECK(of(0).note.find("folds") != std::string::npos);
    CHECK(of(2).b == 1u);
}

// Issue 57: one fold rule, PT2E's (python/gapscope_capture/float_reference.py
// `_pt2e_folds`): a linear's BatchNorm folds too when the linear's input is at
// most 2-D; a 3-D linear's does not.
TEST_CASE("a BatchNorm after a 2-D linear folds as PT2E folds it, after a 3-D one it does not", "[runs]") {
    for (const bool twoD : {true, false}) {
        CAPTURE(twoD);
        const std::string shape = twoD ? "4x16" : "1x4x16";
        RunSummary fp, int8;
        fp.reference_program = "p";
        int8.reference_program = "q";
        fp.rows = {row(0, 1, "linear", shape, 140, "m.py:5"), row(1, 2, "batch_norm", shape, 139, "m.py:6"),
                   row(2, 3, "relu", shape, 139, "m.py:7")};
        int8.rows = {row(0, 5, "linear", shape, 38, "m.py:5"), row(1, 9, "relu", shape, 37, "m.py:7")};
        const auto m = matchRuns(fp, int8);
        requireAccounted(m, fp, int8);
        const auto norm =
            *std::find_if(m.pairs.begin(), m.pairs.end(), [&](const RowPairing& p) { return p.a == 1u; });
        CHECK((norm.basis == MatchBasis::FoldedBatchNorm) == twoD);
        if (twoD)
            CHECK(norm.note.find("this linear holds a folded batch_norm") != std::string::npos);
    }
}

TEST_CASE("worse-by follows each metric's direction, and a row that lost its number is worse by any margin",
          "[runs]") {
    const MetricInfo& snr = metricInfo(Metric::Snr);
    const MetricInfo& mse = metricInfo(Metric::Mse);
    CHECK(*metricDelta(snr, 40.0, 30.0).worse_by == 10.0);
    CHECK(*metricDelta(snr, 40.0, 30.0).delta == -10.0);
    CHECK(*metricDelta(mse, 1e-4, 3e-4).worse_by == Approx(2e-4));
    const double inf = std::numeric_limits<double>::infinity();
    CHECK(*metricDelta(snr, inf, inf).worse_by == 0.0); // exact on both sides: no change
    CHECK(*metricDelta(snr, inf, inf).delta == 0.0);
    CHECK(std::isinf(*metricDelta(snr, 40.0, std::nullopt).worse_by));
    CHECK(std::isinf(*metricDelta(snr, 40.0, std::numeric_limits<double>::quiet_NaN()).worse_by));
    CHECK_FALSE(metricDelta(snr, std::nullopt, 40.0).worse_by);

    RunSummary a, b;
    a.reference_program = b.reference_program = "g";
    a.rows = {row(0, 1, "conv2d", "1x8", 40), row(1, 2, "relu", "1x8", 40)};
    b.rows = {row(0, 1, "conv2d", "1x8", 38), row(1, 2, "relu", "1x8", 40)};
    b.rows[1].metrics.assign(metricCatalog().size(), std::nullopt);
    b.rows[1].status = RowStatus::Invalid;
    b.rows[1].reason = "shapes differ";
    const auto m = matchRuns(a, b);
    const auto found = regressions(a, b, m, {{Metric::Snr, 3.0}});
    REQUIRE(found.size() == 1);
    CHECK(m.pairs[found[0].pairing].a == 1u);
    CHECK(regressions(a, b, m, {{Metric::Snr, 1.0}}).size() == 2);
    const RunDiff d = diffRuns(a, b, Metric::Snr, {{Metric::Snr, 3.0}});
    CHECK(describeRegression(d, d.regressions[0]).find("no number (invalid: shapes differ)") !=
          std::string::npos);
}

TEST_CASE("no margin judges a pair at rounding level on both sides", "[runs]") {
    // Issue 56: portable against XNNPACK fp32, a ReLU at 131 against 127 dB.
    RunSummary a, b;
    a.reference_program = b.reference_program = "g";
    const double inf = std::numeric_limits<double>::infinity();
    a.rows = {row(0, 1, "relu", "1x8", 131), row(1, 2, "conv2d", "1x8", 105), row(2, 3, "add", "1x8", inf)};
    b.rows = {row(0, 1, "relu", "1x8", 127), row(1, 2, "conv2d", "1x8", 95), row(2, 3, "add", "1x8", 101)};
    const auto m = matchRuns(a, b);
    // relu: both above the floor; add: exact against 101 dB, both above too.
    const auto found = regressions(a, b, m, {{Metric::Snr, 3.0}, {Metric::Mse, 0.0}});
    REQUIRE(found.size() == 1);
    CHECK(m.pairs[found[0].pairing].a == 1u); // conv2d: B dropped below the floor, 10 dB
    CHECK(kRoundingFloorDb == 100.0);
}

TEST_CASE("levels in dB count up to the rounding floor: an exact row is not infinitely better", "[runs]") {
    // Issue 56: four tied pass-through rows (exact in A, 120-odd dB in B) led the
    // ranking by ∞ above a real 40 dB loss.
    const MetricInfo& snr = metricInfo(Metric::Snr);
    const double inf = std::numeric_limits<double>::infinity();
    CHECK(*metricDelta(snr, inf, 127.0).worse_by == 0.0);
    CHECK(*metricDelta(snr, inf, 127.0).delta == -inf); // the difference itself is kept
    CHECK(*metricDelta(snr, inf, 40.0).worse_by == 60.0);
    CHECK(*metricDelta(snr, 40.0, inf).worse_by == -60.0);
    CHECK(*metricDelta(metricInfo(Metric::Sqnr), 130.0, 20.0).worse_by == 80.0);
    CHECK(*metricDelta(metricInfo(Metric::MaxAbs), 0.0, 1e-7).worse_by == 1e-7); // no floor on errors
    RunSummary a, b;
    a.reference_program = b.reference_program = "g";
    a.rows = {row(0, 1, "view", "1x8", inf), row(1, 2, "linear", "1x8", 80), row(2, 3, "clone", "1x8", inf)};
    b.rows = {row(0, 1, "view", "1x8", 120), row(1, 2, "linear", "1x8", 40), row(2, 3, "clone", "1x8", 130)};
    const auto m = matchRuns(a, b);
    const auto order = rankByWorsening(a, b, m, Metric::Snr);
    CHECK(m.pairs[order.front()].a == 1u);
}

TEST_CASE("pairs whose references are not one tensor are not ranked, and trip no margin", "[runs]") {
    ReferenceProbe p;
    p.elements = 64;
    for (int i = 0; i < 16; ++i)
        p.values.push_back(std::sin(double(i)));
    ReferenceProbe noisy = p; // the same tensor under quantisation noise: about 30 dB
    for (auto& v : noisy.values)
        v += 0.02;
    ReferenceProbe other = p; // another tensor of the same size
    for (std::size_t i = 0; i < other.values.size(); ++i)
        other.values[i] = std::cos(3.0 * double(i));
    CHECK(std::isinf(*probeAgreementDb(p, p)));
    CHECK(*probeAgreementDb(p, noisy) > 25.0);
    CHECK(*probeAgreementDb(p, other) < kReferencesAgreeDb);
    ReferenceProbe bigger = p;
    bigger.elements = 128;
    CHECK(*probeAgreementDb(p, bigger) == -std::numeric_limits<double>::infinity());
    CHECK_FALSE(probeAgreementDb(p, ReferenceProbe{}));
    ReferenceProbe nan = p;
    nan.values[3] = std::numeric_limits<double>::quiet_NaN();
    CHECK(*probeAgreementDb(p, nan) == -std::numeric_limits<double>::infinity());
    CHECK(std::isinf(*probeAgreementDb(nan, nan))); // NaN where both hold one: the same

    // Issue 56: an XNNPACK group's output paired "op, in order" with another
    // linear of QNN's, ranked worst by ∞.
    RunSummary a, b;
    a.rows = {row(0, 1, "linear", "1x64", std::numeric_limits<double>::infinity()),
              row(1, 2, "softmax", "1x64", 60)};
    b.rows = {row(0, 5, "aten_linear_default", "1x64", 38), row(1, 6, "aten__softmax_default", "1x64", 36)};
    a.rows[0].reference_probe = p, b.rows[0].reference_probe = other;
    a.rows[1].reference_probe = p, b.rows[1].reference_probe = noisy;
    const auto m = matchRuns(a, b);
    REQUIRE(m.matched == 2);
    CHECK(m.pairs[0].referencesDisagree());
    CHECK(m.pairs[0].note.find("not one tensor") == 0);
    CHECK_FALSE(m.pairs[1].referencesDisagree());
    const auto d = metricDelta(a, b, m.pairs[0], Metric::Snr);
    CHECK(d.a);
    CHECK_FALSE(d.delta);
    CHECK_FALSE(d.worse_by);
    CHECK(rankByWorsening(a, b, m, Metric::Snr).front() == 1u);
    const auto found = regressions(a, b, m, {{Metric::Snr, 3.0}});
    REQUIRE(found.size() == 1);
    CHECK(found[0].pairing == 1u);
    const RunDiff diff = diffRuns(a, b, Metric::Snr);
    CHECK(diff.references_disagree == 1);
}

TEST_CASE("A and B measured against different kinds of reference are said to be, and not gated", "[runs]") {
    RunSummary a, b;
    a.label = "xnnpack.json", b.label = "qnn.json";
    a.rows = {row(0, 1, "linear", "1x8", 141)};
    b.rows = {row(0, 1, "aten_linear_default", "1x8", 38)};
    CHECK_FALSE(otherReference(a, b)); // unknown (older reports): not judged
    a.reference_kind = "quantised simulation (PT2E)";
    b.reference_kind = "QNN's lowered graph, activations in float";
    REQUIRE(otherReference(a, b));
    CHECK(otherReference(a, b)->find(
              "A is measured against: quantised simulation (PT2E); B against: QNN's") == 0);
    const RunDiff d = diffRuns(a, b, Metric::Snr, {{Metric::Snr, 3.0}});
    CHECK_FALSE(d.other_reference.empty());
    CHECK(d.regressions.empty());
    b.reference_kind = a.reference_kind;
    CHECK_FALSE(otherReference(a, b));
    CHECK(diffRuns(a, b, Metric::Snr, {{Metric::Snr, 3.0}}).regressions.size() == 1);
}

TEST_CASE("a saved report reads back into exactly the run it was written from", "[runs][report]") {
    for (const char* name : {"portable_mha", "xnnpack_elementwise_int8", "qnn_multiout_8a8w"}) {
        CAPTURE(name);
        const auto dir = test::compareSessionDir(std::string(GAPSCOPE_TEST_DATA_DIR "/") + name);
        ReportContext ctx;
        const RunReference reference = runReference(&dir->session.capture);
        ctx.reference_program = reference.program;
        ctx.reference_kind = reference.kind;
        ProfileOptions profile;
        profile.etrecord = &dir->session.etrecord;
        if (auto l = comparisonLatency(profileTable(dir->session.dump, profile), dir->comparison))
            ctx.latency = std::make_shared<const ComparisonLatency>(std::move(*l));
        REQUIRE(ctx.latency);
        const auto text = renderJson(comparisonToJson(dir->comparison, ctx)).text;
        const auto read = readSavedReport(*textFile("report.json", text));
        REQUIRE(read.ok());
        CHECK(read.value().schema_version == kReportSchemaVersion);
        REQUIRE(read.value().runs.size() == 1);
        const RunSummary& saved = read.value().runs.front();
        const RunSummary live = summarizeRun(dir->comparison, "report.json",
                                             {ctx.reference_program, ctx.reference_kind}, ctx.latency.get());
        CHECK(saved.reference_program == live.reference_program);
        CHECK(saved.reference_kind == live.reference_kind);
        CHECK_FALSE(live.reference_kind.empty());
        CHECK(saved.method == live.method);
        REQUIRE(saved.rows.size() == live.rows.size());
        for (std::size_t i = 0; i < live.rows.size(); ++i) {
            const auto &s = saved.rows[i], &l = live.rows[i];
            CHECK(s.index == l.index);
            CHECK(s.aot_debug_handle == l.aot_debug_handle);
            CHECK(s.compared_node == l.compared_node);
            CHECK(s.compared_handle == l.compared_handle);
            CHECK(s.shapes == l.shapes);
            CHECK(s.source == l.source);
            CHECK(s.status == l.status);
            // Each row's time (schema 3), bit for bit; a row inside an unprofiled QNN call has none.
            CHECK(s.time_ms == l.time_ms);
            CHECK(s.time_share == l.time_share);
            CHECK(s.reference_probe.elements == l.reference_probe.elements);
            CHECK(s.reference_probe.values == l.reference_probe.values);
            REQUIRE(s.metrics.size() == l.metrics.size());
            for (std::size_t k = 0; k < l.metrics.size(); ++k) {
                REQUIRE(s.metrics[k].has_value() == l.metrics[k].has_value());
                if (l.metrics[k] && !std::isnan(*l.metrics[k]))
                    CHECK(*s.metrics[k] == *l.metrics[k]); // bit for bit: the JSON round-trips doubles
            }
        }
        // A run against itself: every row pairs by handle, nothing is worse.
        const auto m = matchRuns(saved, live);
        CHECK(m.by_handle);
        CHECK(m.matched == live.rows.size());
        CHECK(regressions(saved, live, m, {{Metric::Snr, 0.0}, {Metric::Mse, 0.0}}).empty());
    }
}

TEST_CASE("reports of schema version 1 are read, and newer versions and other documents are refused",
          "[runs][report]") {
    const std::string v1 =
        R"({"rows": [{"index": 0, "aot_debug_handle": [4, 5], "aot_ops": ["conv2d", "relu"],
        "runtime_ops": ["DELEGATE_CALL"], "status": "ok", "reason": null, "shapes": ["1x8"],
        "metrics": {"mse": 1e-6, "snr": "Infinity", "rel_l2": null, "future_metric": [1, 2]}}],
        "provenance": {"settings": {"method": "forward", "run": 2}}})";
    const auto old = readSavedReport(*textFile("old.json", v1));
    REQUIRE(old.ok());
    CHECK(old.value().schema_version == 1);
    const RunRow& r = old.value().runs.at(0).rows.at(0);
    CHECK(r.compared_node == "relu");
    CHECK(r.compared_handle == 5);
    CHECK(std::isinf(*r.metrics[position(Metric::Snr)]));
    CHECK(old.value().runs[0].run == 2);
    CHECK(old.value().runs[0].reference_program.empty()); // rows then pair by op and order

    const auto refused = [](const std::string& text, ErrorCode code, const std::string& words) {
        const auto result = readSavedReport(*textFile("bad.json", text));
        REQUIRE_FALSE(result.ok());
        CHECK(result.error().code == code);
        CHECK_THAT(result.error().describe(), Catch::Contains(words) && Catch::Contains("bad.json"));
    };
    refused(R"({"schema_version": 99, "rows": []})", ErrorCode::Unsupported, "newer Gapscope");
    refused(R"({"schema_version": "2", "rows": []})", ErrorCode::Malformed, "schema_version");
    refused(R"([1, 2])", ErrorCode::Malformed, "not a JSON object");
    refused(R"({"pairs": []})", ErrorCode::Malformed, "neither 'rows' nor 'runs'");
    refused(R"({"format": "gapscope.diff", "pairs": []})", ErrorCode::Malformed, "a diff of two reports");
    refused(R"({"rows": [{"index": 0}]})", ErrorCode::Malformed, "rows[0]");
    refused(R"({"rows": [], "rows": []})", ErrorCode::Malformed, "appears twice");
    refused(R"({"rows": [{"index": 0, "aot_debug_handle": [1], "aot_ops": ["x"], "status": "fine",
                 "metrics": {}}]})",
            ErrorCode::Malformed, "not a row status");
    refused(R"({"rows": [{"index": 0, "aot_debug_handle": [1], "aot_ops": ["x"], "status": "ok",
                 "metrics": {"snr": "lots"}}]})",
            ErrorCode::Malformed, "rows[0].metrics.snr");
    // The reference probe (issue 56): located, bounded, its count its element count's.
    const auto probed = [](const std::string& probe) {
        return R"({"rows": [{"index": 0, "aot_debug_handle": [1], "aot_ops": ["x"], "status": "ok",
                 "metrics": {}, "reference_probe": )" +
               probe + "}]}";
    };
    refused(probed(R"({"elements": 0, "values": []})"), ErrorCode::Malformed,
            "rows[0].reference_probe.elements");
    refused(probed(R"({"elements": 40, "values": [1, 2]})"), ErrorCode::Malformed,
            "rows[0].reference_probe.values");
    refused(probed(R"({"elements": 99, "values": [0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16]})"),
            ErrorCode::Malformed, "more than 16 values");
    refused(probed(R"({"elements": 2, "values": [1, "two"]})"), ErrorCode::Malformed,
            "rows[0].reference_probe.values[1]");
    refused(probed(R"([1])"), ErrorCode::Malformed, "rows[0].reference_probe");
    const auto kept =
        readSavedReport(*textFile("probe.json", probed(R"({"elements": 2, "values": [1.5, "NaN"]})")));
    REQUIRE(kept.ok());
    CHECK(kept.value().runs[0].rows[0].reference_probe.elements == 2);
    CHECK(kept.value().runs[0].rows[0].reference_probe.values[0] == 1.5);
    CHECK(std::isnan(kept.value().runs[0].rows[0].reference_probe.values[1]));
    refused(R"({"rows": [)", ErrorCode::Malformed, "not valid JSON");
    refused(R"({"rows": []} trailing)", ErrorCode::Malformed, "bad.json");
    refused("", ErrorCode::Empty, "empty");
    refused(std::string(600, '[') + std::string(600, ']'), ErrorCode::Malformed, "bad.json");
}

TEST_CASE("the steps matrix keeps each op's row per step and finds the first crossing and the worst step",
          "[runs][steps]") {
    std::vector<RunSummary> steps(3);
    for (std::size_t s = 0; s < steps.size(); ++s)
        steps[s].rows = {row(0, 7, "linear", "1x8", 40.0 - double(s)),
                         row(1, 9, "softmax", "1x8", 30.0 - 6.0 * double(s))};
    // Step 2 logs its rows in another order and adds an op.
    std::swap(steps[2].rows[0], steps[2].rows[1]);
    steps[2].rows[0].index = 0;
    steps[2].rows[1].index = 1;
    steps[2].rows.push_back(row(2, 11, "add", "1x8", 50));
    const StepMatrix m = buildStepMatrix(steps, Metric::Snr, {Metric::Snr, 20.0});
    REQUIRE(m.steps == 3);
    REQUIRE(m.ops == std::vector<std::string>{"linear", "softmax", "add"});
    CHECK(m.at(0, 2) == 38.0);
    CHECK(m.rowAt(0, 2) == 1); // linear is row 1 of step 2
    CHECK(m.at(1, 1) == 24.0);
    CHECK(std::isnan(m.at(2, 0)));
    CHECK(m.rowAt(2, 0) == -1);
    REQUIRE(m.first_crossing);
    CHECK(m.first_crossing->step == 2); // softmax: 18 dB < 20 at step 2
    CHECK(m.first_crossing->op == 1);
    REQUIRE(m.worst);
    CHECK(m.worst->value == 18.0);
    // Another metric: no threshold equivalent (MSE), no crossing.
    CHECK_FALSE(buildStepMatrix(steps, Metric::Mse, {Metric::Snr, 20.0}).first_crossing);
}

TEST_CASE("two decode loops step by step: how much worse B is, per op and step, over the steps both have",
          "[runs][steps]") {
    // A: SNR falls 1 dB a step on linear, 2 on softmax. B: one step more, and its
    // softmax falls 5 dB a step; its linear loses its number at step 2.
    std::vector<RunSummary> a(3), b(4);
    for (std::size_t s = 0; s < a.size(); ++s)
        a[s].rows = {row(0, 7, "linear", "1x8", 40.0 - double(s)),
                     row(1, 9, "softmax", "1x8", 30.0 - 2.0 * double(s))};
    for (std::size_t s = 0; s < b.size(); ++s)
        b[s].rows = {row(0, 7, "linear", "1x8", 40.0 - double(s)),
                     row(1, 9, "softmax", "1x8", 30.0 - 5.0 * double(s))};
    b[2].rows[0].metrics[metricIndex(Metric::Snr)].reset();
    // B logs an op A does not have: listed nowhere in A's ops, no value.
    b[1].rows.push_back(row(2, 11, "add", "1x8", 10));
    const StepMatrix d = buildStepDifference(a, b, Metric::Snr, 4.0);
    CHECK(d.difference);
    // Paired once (as the view does) or on the way: one matrix.
    const auto matches = matchSteps(a, b);
    REQUIRE(matches.size() == 3);
    CHECK(buildStepDifference(a, b, matches, Metric::Snr, 4.0).values == d.values);
    REQUIRE(d.steps == 3);
    REQUIRE(d.ops == std::vector<std::string>{"linear", "softmax"});
    CHECK(d.at(0, 0) == 0.0);
    CHECK(d.at(0, 1) == 0.0);
    CHECK(d.at(0, 2) == std::numeric_limits<double>::infinity()); // lost its number
    CHECK(d.at(1, 1) == 3.0);                                     // 28 − 25
    CHECK(d.at(1, 2) == 6.0);                                     // 26 − 20
    CHECK(d.rowAt(1, 2) == 1);
    REQUIRE(d.first_crossing);
    CHECK(d.first_crossing->step == 2); // linear lost its number at step 2: worse by any margin
    CHECK(d.first_crossing->op == 0);
    REQUIRE(d.worst); // the worst finite cell: softmax at step 2
    CHECK(d.worst->value == 6.0);
    CHECK(d.worst->op == 1);
    // B nowhere worse: no cell is the worst (issue 56: "Worst: step 0 (gt, 0)").
    const StepMatrix same = buildStepDifference(a, a, Metric::Snr, 4.0);
    CHECK_FALSE(same.worst);
    CHECK_FALSE(same.first_crossing);
    // The error metrics point the other way: B's larger MSE is worse.
    for (auto& s : b)
        s.rows[1].metrics[metricIndex(Metric::Mse)] = 2.0;
    for (auto& s : a)
        s.rows[1].metrics[metricIndex(Metric::Mse)] = 0.5;
    const StepMatrix mse = buildStepDifference(a, b, Metric::Mse, 1.0);
    CHECK(mse.at(1, 0) == 1.5);
    REQUIRE(mse.first_crossing);
    CHECK(mse.first_crossing->step == 0);
    CHECK(mse.first_crossing->op == 1);
}

#include "core/session/session_steps.h"
#include "core/session/workspace.h"

// Issue 56 on a real ExecuTorch session: two steps of one decode loop are one
// program (their rows pair by debug handle) on different tokens, so no pair
// compares one tensor. Nothing is ranked and no margin trips, where before each
// pair's "worse by" was the two steps' difference in accuracy, as a regression.
TEST_CASE("two steps of one decode loop pair by handle and are not one tensor", "[runs][steps]") {
    std::vector<Error> none;
    SessionOptions shared;
    shared.workspace = std::make_shared<Workspace>(
        sessionInputsFromPaths({GAPSCOPE_TEST_DATA_DIR "/decode_loop_portable"}, none));
    const auto opened = loadSession(shared.workspace->fileSet(0)->inputs, shared);
    REQUIRE(opened->comparison);
    const auto steps = compareSteps(*opened, shared);
    REQUIRE(steps.steps.size() == 6);
    const RunSummary &a = steps.steps[0], &b = steps.steps[3];
    const auto m = matchRuns(a, b);
    REQUIRE(m.by_handle);
    REQUIRE(m.matched == a.rows.size());
    std::size_t notOne = 0;
    for (const auto& p : m.pairs) {
        REQUIRE(p.references_db);
        notOne += p.referencesDisagree();
    }
    // The cache rows (index_copy_) hold the same prefix at both steps; the rest differ.
    CHECK(notOne >= m.matched - 2);
    const auto worse = regressions(a, b, m, {{Metric::Snr, 0.0}, {Metric::MaxAbs, 0.0}});
    for (const auto& r : worse)
        CHECK_FALSE(m.pairs[r.pairing].referencesDisagree());
    // A step against itself: one tensor everywhere.
    const auto same = matchRuns(a, a);
    for (const auto& p : same.pairs)
        CHECK_FALSE(p.referencesDisagree());
}
