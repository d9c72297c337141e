// The stage ladder (issue 59) on a real session written by ExecuTorch 1.5.1
// (tests/data/xnnpack_taps_int8: a CNN tapped before PT2E on XNNPACK, its
// quantised simulation and its float model): each number the ladder shows for
// the device equals the single-reference comparison's, each step between two
// references equals the gap of the two captures' own tensors, and the step
// that loses the most is the one of lowest SNR.
#include "core/compare/metric_catalog.h"
#include "core/compare/stage_ladder.h"
#include "core/report/etdump_json.h"
#include "core/report/ladder_report.h"
#include "core/session/session.h"
#include "core/session/session_ladder.h"
#include "core/session/session_steps.h"
#include "test_support.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <sstream>
#include <tuple>

using namespace gapscope;

namespace {

const std::string kDir = GAPSCOPE_TEST_DATA_DIR "/xnnpack_taps_int8";

std::unique_ptr<Session> open(const std::string& capture, const std::shared_ptr<Workspace>& workspace) {
    SessionOptions options;
    options.capture = kDir + "/" + capture;
    options.workspace = workspace;
    auto s = loadSession(test::sessionInputsOf(kDir.c_str()), options);
    REQUIRE(s->errors.empty());
    REQUIRE(s->comparison);
    return s;
}

std::shared_ptr<const MappedFile> mapped(const std::string& name) {
    auto m = MappedFile::open(kDir + "/" + name);
    REQUIRE(m);
    return m.value();
}

// The session's own files, as the steps take them without a workspace (stepFiles).
SessionFiles filesOf(const Session& s) {
    return stepFiles(s, {});
}

Operand outputOf(const AotCapture& capture, std::size_t index) {
    const auto* t = capture.tensor((*capture.reference_outputs)[index]);
    REQUIRE(t);
    return Operand::tensorOver(t->scalar_type, t->shape, capture.file->bytes(*t), t->numel);
}

} // namespace

TEST_CASE(
    "the ladder's device numbers are the single-reference comparisons', its steps the captures' own gaps",
    "[ladder]") {
    const auto workspace = std::make_shared<Workspace>();
    const auto quant = open("capture.gscap.safetensors", workspace);
    const auto flt = open("float.gscap.safetensors", workspace);
    SessionOptions options;
    options.workspace = workspace;
    // Given in the wrong order: the ladder sorts them model → device.
    const auto ladder =
        openStageLadder(*quant, filesOf(*quant),
                        {mapped("capture.gscap.safetensors"), mapped("float.gscap.safetensors")}, options);
    REQUIRE(ladder.stages ==
            std::vector<LadderStage>{LadderStage::FloatModel, LadderStage::QuantAten, LadderStage::Device});
    CHECK(ladder.notes.empty());
    const Comparison& q = *quant->comparison;
    const Comparison& f = *flt->comparison;
    // The float comparison's rows by what the runtime logged (it lacks the
    // quantised graph's own dequantize rows).
    std::map<std::tuple<HandleTuple, int, long long>, const ComparisonRow*> floatRows;
    for (const auto& r : f.rows)
        floatRows.emplace(std::make_tuple(r.id().runtimeDebugHandle(), r.output_index,
                                          r.tap ? static_cast<long long>(r.tap->index) : -1LL),
                          &r);
    REQUIRE(ladder.rows.size() == q.rows.size() + q.outputs.size());

    std::size_t measuredSteps = 0, taps = 0, matched = 0;
    for (std::size_t i = 0; i < q.rows.size(); ++i) {
        const LadderRow& row = ladder.rows[i];
        CAPTURE(i, row.name);
        REQUIRE_FALSE(row.output);
        REQUIRE(row.device.size() == 2);
        REQUIRE(row.steps.size() == 2);
        REQUIRE(row.against_first.size() == 3);
        const auto found = floatRows.find(
            std::make_tuple(q.rows[i].id().runtimeDebugHandle(), q.rows[i].output_index,
                            q.rows[i].tap ? static_cast<long long>(q.rows[i].tap->index) : -1LL));
        const ComparisonRow* fr = found == floatRows.end() ? nullptr : found->second;
        const auto vsFloat = q.rows[i].bounds || !fr || fr->status != RowStatus::Ok
                                 ? std::nullopt
                                 : rowMetric(*fr, Metric::Snr);
        if (fr)
            ++matched;
        const auto vsQuant = q.rows[i].bounds || q.rows[i].status != RowStatus::Ok
                                 ? std::nullopt
                                 : rowMetric(q.rows[i], Metric::Snr);
        CHECK(row.device[0].snr == vsFloat);
        CHECK(row.device[1].snr == vsQuant);
        // The device step is the device against the last reference; its SNR against
        // the first stage is the device against the float model.
        CHECK(row.steps[1].snr == vsQuant);
        CHECK(row.against_first[2].snr == vsFloat);
        CHECK_FALSE(row.against_first[0].snr);
        // Quantisation's step of a whole-tensor tap: the two captures' values of
        // the same program output, compared here without the ladder's pairing.
        const auto& r = q.rows[i];
        if (r.tap && !r.bounds) {
            ++taps;
            const auto index = quant->capture->taps[r.tap->index].output_index;
            const auto gap = computeGap(outputOf(*flt->capture, index), outputOf(*quant->capture, index));
            REQUIRE(gap.metrics);
            REQUIRE(row.steps[0].snr);
            CHECK(*row.steps[0].snr == Approx(gap.metrics->snr).epsilon(1e-12));
        }
        if (r.bounds)
            CHECK_FALSE(row.steps[0].snr);
        // The step that loses the most is the finite step of lowest SNR, and the shares sum to 1.
        std::optional<std::size_t> lowest;
        double total = 0;
        for (std::size_t s = 0; s < row.steps.size(); ++s) {
            if (row.steps[s].snr && std::isfinite(*row.steps[s].snr) &&
                (!lowest || *row.steps[s].snr < *row.steps[*lowest].snr))
                lowest = s;
            if (row.share[s])
                total += *row.share[s];
        }
        CHECK(row.worst_step == lowest);
        if (lowest) {
            ++measuredSteps;
            CHECK(total == Approx(1.0));
        }
    }
    CHECK(taps == 4); // the convolutions and linears, tapped whole
    CHECK(matched == f.rows.size());
    CHECK(measuredSteps > 3);

    // The program output: quantisation's step from the captures' outputs, the
    // device's from each single comparison's output numbers.
    const LadderRow& out = ladder.rows[q.rows.size()];
    REQUIRE(out.output);
    REQUIRE(q.outputs.front().metrics);
    CHECK(out.steps[1].snr == q.outputs.front().metrics->snr);
    CHECK(out.against_first[2].snr == f.outputs.front().metrics->snr);
    const auto gap = computeGap(outputOf(*flt->capture, 0), outputOf(*quant->capture, 0));
    REQUIRE(gap.metrics);
    CHECK(*out.steps[0].snr == Approx(gap.metrics->snr).epsilon(1e-12));
    // An int8 CNN against its float model: quantisation loses far more than XNNPACK's kernels.
    REQUIRE(out.worst_step);
    CHECK(*out.worst_step == 0);
    CHECK(*out.steps[0].snr < *out.steps[1].snr);

    // The report carries the same numbers.
    const auto json = stageLadderToJson(ladder);
    CHECK(json["stages"].size() == 3);
    CHECK(json["stages"][0]["stage"] == "float");
    CHECK(json["steps"][0]["label"] == "quantisation");
    CHECK(json["rows"].back()["lost_most"] == "quantisation");
    CHECK(json["rows"].back()["step_snr_db"][1] == jsonNumber(q.outputs.front().metrics->snr));
    std::ostringstream text;
    writeStageLadder(text, ladder);
    CHECK(text.str().find("quantisation") != std::string::npos);
}

TEST_CASE("a ladder leaves out, with a note, a second capture of a stage and one of another method",
          "[ladder]") {
    const auto workspace = std::make_shared<Workspace>();
    const auto quant = open("capture.gscap.safetensors", workspace);
    SessionOptions options;
    options.workspace = workspace;
    const auto ladder =
        openStageLadder(*quant, filesOf(*quant),
                        {mapped("capture.gscap.safetensors"), mapped("float.gscap.safetensors"),
                         mapped("float.gscap.safetensors")},
                        options);
    REQUIRE(ladder.stages.size() == 3);
    REQUIRE(ladder.notes.size() == 1);
    CHECK(ladder.notes.front().find("a second float model") != std::string::npos);

    // A file that is no capture is a note, not a stop; the ladder is built of the rest.
    const auto notCapture = mapped("taps.json");
    const auto withBad =
        openStageLadder(*quant, filesOf(*quant), {mapped("capture.gscap.safetensors"), notCapture}, options);
    CHECK(withBad.stages == std::vector<LadderStage>{LadderStage::QuantAten, LadderStage::Device});
    REQUIRE(withBad.notes.size() == 1);
    CHECK(withBad.notes.front().find("taps.json") != std::string::npos);
}

TEST_CASE("a torchao graph is the quantised simulation's stage, PT2E's too, a float one the ATen graph's",
          "[ladder]") {
    // torchao's quantize_ (tests/data/xnnpack_llama_8w: 8-bit weights) leaves
    // dequantize_affine in the ETRecord's ATen graph, not PT2E's quantize_per_*.
    const auto torchao = loadAotCapture(GAPSCOPE_TEST_DATA_DIR "/xnnpack_llama_8w/capture.gscap.safetensors");
    REQUIRE(torchao);
    CHECK(ladderStageOf(torchao.value()) == LadderStage::QuantAten);
    const auto floatModel =
        loadAotCapture(GAPSCOPE_TEST_DATA_DIR "/xnnpack_llama_8w/capture_float.gscap.safetensors");
    REQUIRE(floatModel);
    CHECK(ladderStageOf(floatModel.value()) == LadderStage::FloatModel);
    const auto pt2e = loadAotCapture(kDir + "/capture.gscap.safetensors");
    REQUIRE(pt2e);
    CHECK(ladderStageOf(pt2e.value()) == LadderStage::QuantAten);
    const auto fp32 =
        loadAotCapture(GAPSCOPE_TEST_DATA_DIR "/xnnpack_decoder_fp32/capture.gscap.safetensors");
    REQUIRE(fp32);
    CHECK(ladderStageOf(fp32.value()) == LadderStage::AtenGraph);
}
