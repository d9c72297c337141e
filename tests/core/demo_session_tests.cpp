// The committed demo session (resources/demo: real ExecuTorch output) read by
// the core, without Python: runs in every CI configuration, asan included.

#include "session_consistency.h"
#include "test_support.h"

#include <catch2/catch.hpp>
#include <cmath>

TEST_CASE("the embedded int8 demo session is consistent", "[demo][e2e-files]") {
    gapscope::test::checkSessionConsistency(GAPSCOPE_DEMO_DIR);
}

#include "executorch_parity.h"

TEST_CASE("the embedded demo session: Gapscope's rows equal ExecuTorch's tables", "[demo][parity]") {
    gapscope::test::checkExecuTorchParity(GAPSCOPE_DEMO_DIR);
}

#include "core/capture/aot_capture.h"
#include "core/compare/comparison.h"
#include "core/compare/findings.h"
#include "core/etdump/etdump_reader.h"
#include "core/etrecord/etrecord_reader.h"

TEST_CASE("the embedded demo session: program outputs, coverage and findings", "[demo][compare]") {
    using namespace gapscope;
    const std::string dir = GAPSCOPE_DEMO_DIR;
    const auto compared = test::compareSessionDir(dir);
    const Comparison& cmp = compared->comparison;
    // topk's values and indices, the program's two outputs.
    REQUIRE(cmp.outputs.size() == 2);
    CHECK(cmp.outputs[0].status == RowStatus::Ok);
    CHECK(cmp.outputs[0].shape == "1x4x3");
    CHECK(cmp.outputs[1].metrics->mse == 0.0); // same indices
    // Every reference record is accounted for: compared, or listed in coverage.
    std::size_t accounted = cmp.rows.size(); // each row compares one record
    for (const auto& item : cmp.coverage)
        accounted += item.kind == CoverageKind::Fused || item.kind == CoverageKind::AotWithoutRuntime ||
                     item.kind == CoverageKind::UnmatchedGroup;
    CHECK(accounted == compared->session.capture.records.size());
    // The int8 XNNPACK run tracks PT2E's simulation closely: nothing crosses 20 dB.
    CHECK_FALSE(firstDivergence(cmp, {Metric::Snr, 20.0}));
    // What the app offers instead: the worst op by the threshold's metric, by hand.
    const auto worst = worstRow(cmp, {Metric::Snr, 20.0});
    REQUIRE(worst);
    for (const auto& row : cmp.rows)
        if (row.status == RowStatus::Ok && rowMetric(row, Metric::Snr) &&
            !std::isnan(*rowMetric(row, Metric::Snr)))
            CHECK(*rowMetric(row, Metric::Snr) >= worst->value);
    CHECK(worst->value == *rowMetric(cmp.rows[worst->row], Metric::Snr));
    CHECK(worst->value >= 20.0);
    // By a metric where larger is worse, the other end.
    const auto worstL2 = worstRow(cmp, {Metric::RelL2, 0.1});
    REQUIRE(worstL2);
    for (const auto& row : cmp.rows)
        if (row.status == RowStatus::Ok && rowMetric(row, Metric::RelL2))
            CHECK(*rowMetric(row, Metric::RelL2) <= worstL2->value);
    const auto fd = firstDivergence(cmp, {Metric::Mse, 1e-16});
    REQUIRE(fd);
    CHECK(cmp.rows[fd->row].instruction_id == 1); // layer_norm runs second
    const auto introducers =
        errorIntroducers(cmp, referenceGraphFor(compared->session.etrecord, compared->session.capture));
    REQUIRE(introducers.size() == 4);
    CHECK(cmp.rows[introducers.front().row].id().aot_ops == std::vector<std::string>{"layer_norm"});
}

#include "quantization_error_checks.h"

TEST_CASE("the embedded demo against its float model: quantised ops introduce the error", "[demo][quant]") {
    gapscope::test::checkQuantizationErrorVisible(GAPSCOPE_DEMO_DIR);
}

// A real portable transformer block (tests/data/portable_mha): its ETRecord holds
// -Infinity, its addmm kernels drop size-1 dimensions (runtime 5x48 against the
// reference's 5x1x48). ExecuTorch broadcasts that into a 5x5x48 comparison (SNR
// -2.4 dB on a healthy model); Gapscope compares element for element and keeps
// ExecuTorch's numbers apart, equal to its tables.
TEST_CASE("a healthy fp32 transformer block: size-1 dimensions compare element for element",
          "[demo][parity][shapes]") {
    using namespace gapscope;
    const std::string dir = GAPSCOPE_TEST_DATA_DIR "/portable_mha";
    gapscope::test::checkExecuTorchParity(dir);
    const auto compared = test::compareSessionDir(dir);
    const Comparison& c = compared->comparison;
    std::size_t reshaped = 0, crossed = 0;
    for (const auto& row : c.rows) {
        INFO(row.id().aot_ops.back() << ": " << row.reason);
        CHECK(row.status == RowStatus::Ok);
        REQUIRE(row.gaps.size() == 1);
        CHECK(row.gaps.front().snr > 100.0); // fp32 against fp32: rounding only
        if (!row.elementPlans().empty() && row.elementPlans().front().logged_shape) {
            ++reshaped;
            REQUIRE(row.executorch);
            // 5x1x48 against 5x48: ExecuTorch's broadcast crosses every token with
            // every other (5x5x48); 1x5x32 against 5x32 lines up either way.
            crossed += row.executorch->front().snr < 20.0 ? 1 : 0;
        }
    }
    CHECK(reshaped == 3);
    CHECK(crossed == 1);
    CHECK_FALSE(firstDivergence(c, {Metric::Snr, 20.0}));
}

// tests/data/portable_recurrent: an LSTM and a GRU (the zoo's `recurrent`).
// aten.lstm takes another CPU kernel with autograd off; the capture runs the
// reference as ExecuTorch's Inspector does, so ExecuTorch's numbers reproduce.
// The zero initial states agree exactly, SNR 0/0 = NaN as torch gives: that is
// no divergence.
TEST_CASE("a real LSTM and GRU: parity, and exact zero states are no divergence", "[demo][parity]") {
    using namespace gapscope;
    const std::string dir = GAPSCOPE_TEST_DATA_DIR "/portable_recurrent";
    gapscope::test::checkExecuTorchParity(dir);
    const auto compared = test::compareSessionDir(dir);
    const Comparison& c = compared->comparison;
    std::size_t zeroStates = 0;
    for (const auto& row : c.rows)
        if (row.status == RowStatus::Ok && std::isnan(row.gaps.front().snr)) {
            ++zeroStates;
            CHECK(row.gaps.front().mse == 0.0);
            CHECK_FALSE(crossesThreshold(row, {Metric::Snr, 20.0}));
        }
    CHECK(zeroStates >= 2); // the LSTM's h0 and c0 at least
    CHECK_FALSE(firstDivergence(c, {Metric::Snr, 20.0}));

    // Issue 54: the recurrent ops' decompositions log one tensor for a node of
    // several outputs. The GRU's (a permute, 1x5x12) has output 0's shape alone:
    // compared with it, as healthy as its neighbours. The LSTM's last op is a cat
    // of 1x16, which h_n and c_n both are: the device logged c_n (its sum,
    // -1.00628, is c_n's; h_n's is -0.60871), so taking output 0, or the first of
    // its shape, would be a wrong number: refused with the reason.
    bool gru = false, lstm = false;
    for (const auto& row : c.rows) {
        if (row.id().aot_ops == std::vector<std::string>{"gru"}) {
            gru = true;
            CHECK(row.status == RowStatus::Ok);
            CHECK_FALSE(row.in_executorch);
            CHECK_THAT(row.reason,
                       Catch::Contains("compared with output 0, the only one of its shape (1x5x12)"));
            REQUIRE(row.gaps.size() == 1);
            CHECK(row.gaps.front().snr > 100);
        }
        if (row.id().aot_ops == std::vector<std::string>{"lstm"}) {
            lstm = true;
            CHECK(row.status == RowStatus::Invalid);
            CHECK_THAT(row.reason,
                       Catch::Contains("2 outputs have its shape (1x16): which one it is is unknown"));
        }
    }
    CHECK(gru);
    CHECK(lstm);
}

// tests/data/xnnpack_elementwise_int8: a delegate's two outputs both end in
// handle 6, so ExecuTorch's table (keyed by the reference) keeps one row in
// output 0's place with output 1's numbers. Gapscope's rows line up with it.
TEST_CASE("two delegate outputs with one key make one ExecuTorch row", "[demo][parity][align]") {
    using namespace gapscope;
    const std::string dir = GAPSCOPE_TEST_DATA_DIR "/xnnpack_elementwise_int8";
    gapscope::test::checkExecuTorchParity(dir);
    const auto compared = test::compareSessionDir(dir);
    const Comparison& c = compared->comparison;
    const auto& rows = c.rows;
    REQUIRE(rows.size() >= 2);
    CHECK(rows[0].output_index == 0);
    CHECK(rows[1].output_index == 1);
    CHECK(rows[0].in_executorch);
    CHECK_FALSE(rows[1].in_executorch);
    CHECK(rows[1].reason.find("ExecuTorch keys this output like output 0") != std::string::npos);
    // Row 0 is compared with its own output; ExecuTorch's number is output 1's.
    REQUIRE(rows[0].executorch);
    CHECK(rows[0].gaps.front().mse == 0.0);
    CHECK(rows[0].executorch->front().mse > 0.0);
    CHECK_FALSE(firstDivergence(c, {Metric::Snr, 20.0}));
}

#include "core/align/alignment.h"
#include "core/align/delegate_outputs.h"
#include "core/session/session.h"

#include <algorithm>

// tests/data/xnnpack_decoder_fp32: a delegate call returns (q, kᵀ); ExecuTorch pairs
// output 1 with k's reference by position. The group's boundary nodes in the graph
// say it is q: compared with q, the healthy model agrees; ExecuTorch's own numbers
// (its positional pair) stay in the `executorch` field.
TEST_CASE("a delegate's outputs are paired in the order it returns them", "[demo][align]") {
    using namespace gapscope;
    const std::string dir = GAPSCOPE_TEST_DATA_DIR "/xnnpack_decoder_fp32";
    const auto compared = test::compareSessionDir(dir);
    const auto& s = compared->session;
    const Comparison& c = compared->comparison;
    const auto* edge = s.etrecord.edgeProgram("forward");
    REQUIRE(edge);
    const auto& call = s.etrecord.maps("forward")->debug_handle_map.at(4).handles;
    const auto order = delegateOutputOrder(*edge, call, 2);
    CHECK(order.known());
    CHECK(order.handles == HandleTuple{21, 29}); // add_1 (q), transpose_3 (kᵀ)
    const ComparisonRow* second = nullptr;
    for (const auto& row : c.rows)
        if (row.instruction_id == 4 && row.output_index == 1)
            second = &row;
    REQUIRE(second);
    REQUIRE(second->id().pair);
    CHECK(second->id().pair->aot.record->ops == std::vector<std::string>{"add_1"});
    REQUIRE(second->id().pair->executorch_record);
    CHECK(second->id().pair->executorch_record->ops == std::vector<std::string>{"add_2"});
    CHECK(second->status == RowStatus::Ok);
    CHECK(second->gaps.front().snr > 100.0);
    REQUIRE(second->executorch);
    CHECK(second->executorch->front().snr < 0.0); // what ExecuTorch's pairing computes
    CHECK_THAT(second->selection, Catch::Contains("positional rule pairs it with 'add_2'"));
    CHECK_THAT(second->selection, Catch::Contains("the delegate's return order"));
    CHECK_FALSE(firstDivergence(c, {Metric::Snr, 20.0}));
    // Where ExecuTorch's own pairing cannot compare (its table raises: the
    // session's executorch_error.txt), the row says so.
    std::size_t raising = 0;
    for (const auto& row : c.rows)
        if (row.in_executorch && !row.executorch) {
            ++raising;
            CHECK_THAT(row.reason, Catch::Contains("ExecuTorch's table raises on this row"));
            CHECK_THAT(row.reason, Catch::Contains("shapes do not broadcast"));
        }
    CHECK(raising >= 1);
}

TEST_CASE("planning stops when its job is cancelled", "[demo][compare][cancel]") {
    using namespace gapscope;
    const std::string dir = GAPSCOPE_DEMO_DIR;
    const auto dump = loadEtdump(dir + "/run.etdp", dir + "/run.debug.bin");
    const auto etrecord = loadEtRecord(dir + "/etrecord.bin");
    const auto capture = loadAotCapture(dir + "/capture.gscap.safetensors");
    REQUIRE((dump && etrecord && capture));
    std::atomic<bool> cancelled{false};
    ComparisonOptions options;
    options.cancelled = &cancelled;
    const auto going = planComparison(dump.value(), &etrecord.value(), capture.value(), options);
    const auto plain = planComparison(dump.value(), &etrecord.value(), capture.value());
    REQUIRE((going && plain));
    CHECK(going.value().comparison.rows.size() == plain.value().comparison.rows.size());
    CHECK(going.value().pending.size() == plain.value().pending.size());
    cancelled = true;
    const auto stopped = planComparison(dump.value(), &etrecord.value(), capture.value(), options);
    REQUIRE_FALSE(stopped);
    CHECK(stopped.error().code == ErrorCode::Cancelled);
}

// tests/data/xnnpack_wav2vec2_{fp32,int8} (issue 54): a Hugging Face Wav2Vec2 on
// XNNPACK. Its positional convolution's weight norm (pow, sum, pow, div, mul,
// all one debug handle) is split over two delegate calls and two kernel calls;
// the second delegate returns the norm's product and two more outputs. The
// handle's nodes form a chain, so the calls take them in program order: every
// output is compared with its own op. ExecuTorch's table raises on the whole
// session; its rows, compared one by one, equal Gapscope's `executorch` numbers,
// and a row its comparator raises on carries none.
TEST_CASE("Wav2Vec2's multi-output delegates: a handle split over calls is paired along its chain",
          "[demo][parity][delegate-order]") {
    using namespace gapscope;
    for (const char* variant : {"fp32", "int8"}) {
        const std::string dir = std::string(GAPSCOPE_TEST_DATA_DIR "/xnnpack_wav2vec2_") + variant;
        INFO(dir);
        const auto compared = test::compareSessionDir(dir);
        const Comparison& c = compared->comparison;
        std::size_t chainPaired = 0;
        for (const auto& row : c.rows) {
            INFO(row.id().aot_ops.back() << " output " << row.output_index << ": " << row.reason);
            CHECK(row.status == RowStatus::Ok);
            CHECK_FALSE(crossesThreshold(row, {Metric::Snr, 60.0})); // healthy: rounding only
            chainPaired += row.selection.find("the delegate's return order") != std::string::npos;
        }
        CHECK(chainPaired >= 1);
        CHECK(test::checkExecuTorchRowParity(c, dir) >= 1);
    }
}

// tests/data/xnnpack_llama_8w (issue 54): torchao's weight-only int8
// (IntxWeightOnlyConfig, per-channel) on XNNPACK. ExecuTorch 1.5.1 computes each
// such linear without its weight's scales (docs/llm.md): the device's logits are
// about a thousand times the reference's. Every row is compared; the rows before
// the first weight-only linear are at rounding level, and the first divergence is
// the delegate that holds it, against ExecuTorch's reference (the quantised
// program) and against the float model alike. ExecuTorch's rows equal Gapscope's.
TEST_CASE("a torchao weight-only linear on XNNPACK: the first divergence is the first linear, against "
          "either reference",
          "[demo][parity][torchao]") {
    using namespace gapscope;
    const std::string dir = GAPSCOPE_TEST_DATA_DIR "/xnnpack_llama_8w";
    for (const char* capture : {"capture.gscap.safetensors", "capture_float.gscap.safetensors"}) {
        INFO(capture);
        std::vector<Error> errors;
        SessionOptions options;
        options.capture = dir + "/" + capture;
        const auto session = loadSession(sessionInputsFromPaths({dir}, errors), options);
        REQUIRE(errors.empty());
        REQUIRE(session->errors.empty());
        REQUIRE(session->comparison);
        const Comparison& c = *session->comparison;
        for (const auto& row : c.rows) {
            INFO(row.id().aot_ops.back() << ": " << row.reason);
            CHECK(row.status == RowStatus::Ok);
        }
        const auto first = firstDivergence(c, {Metric::Snr, 20.0});
        REQUIRE(first);
        const auto& ops = c.rows[first->row].id().aot_ops;
        INFO("first divergence: " << ops.back());
        CHECK(std::any_of(ops.begin(), ops.end(),
                          [](const std::string& op) { return op.rfind("linear", 0) == 0; }));
        CHECK(first->value < -40.0);
        const auto at = c.rows[first->row].instruction_id;
        for (const auto& row : c.rows)
            if (row.instruction_id < at && !row.gaps.empty() && std::isfinite(row.gaps.front().snr))
                CHECK(row.gaps.front().snr > 100.0);
        if (std::string(capture) == "capture.gscap.safetensors")
            CHECK(test::checkExecuTorchRowParity(c, dir) >= 1);
    }
}
