// End-to-end: files produced just now by ExecuTorch (`python -m gapscope_zoo demo`,
// run by tests/e2e/run_e2e.sh) read by the C++ core and checked for consistency.

#include "../core/session_consistency.h"
#include "core/runs/step_matrix.h"
#include "core/session/session_steps.h"
#include "core/session/workspace.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <string>

namespace {
std::string demoDir() {
    const char* dir = std::getenv("GAPSCOPE_E2E_DIR");
    if (!dir)
        FAIL("GAPSCOPE_E2E_DIR is not set; run through tests/e2e/run_e2e.sh");
    return dir;
}
} // namespace

TEST_CASE("e2e: the fp32 XNNPACK session is consistent", "[e2e]") {
    gapscope::test::checkSessionConsistency(demoDir() + "/fp32");
}

TEST_CASE("e2e: the int8 XNNPACK session is consistent", "[e2e]") {
    gapscope::test::checkSessionConsistency(demoDir() + "/int8");
}

#include "../core/executorch_parity.h"

TEST_CASE("e2e: fp32 rows equal ExecuTorch's calculate_numeric_gap", "[e2e][parity]") {
    gapscope::test::checkExecuTorchParity(demoDir() + "/fp32");
}

TEST_CASE("e2e: int8 rows equal ExecuTorch's calculate_numeric_gap", "[e2e][parity]") {
    gapscope::test::checkExecuTorchParity(demoDir() + "/int8");
}

#include "../core/quantization_error_checks.h"

TEST_CASE("e2e: against the float model the quantised ops introduce the error", "[e2e][quant]") {
    gapscope::test::checkQuantizationErrorVisible(demoDir() + "/int8");
}

#include "core/compare/findings.h"
#include "core/compare/metric_catalog.h"
#include "core/compare/run_checks.h"
#include "core/session/production_build.h"
#include "core/session/session.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

namespace {

// The zoo's folder (run_e2e.sh sets it).
// A number of ExecuTorch's tap table as JSON holds it ("inf", "-inf", "nan" as strings).
double parityNumber(const nlohmann::json& v) {
    if (!v.is_string())
        return v.get<double>();
    const auto t = v.get<std::string>();
    return t == "inf" ? HUGE_VAL : t == "-inf" ? -HUGE_VAL : std::nan("");
}

std::string zooRoot() {
    const char* zoo = std::getenv("GAPSCOPE_E2E_ZOO_DIR");
    if (!zoo)
        FAIL("GAPSCOPE_E2E_ZOO_DIR is not set; run through tests/e2e/run_e2e.sh");
    return zoo;
}

// A zoo session folder opened as the app and `gapscope-cli compare DIR` open it,
// read without an error and compared.
std::unique_ptr<gapscope::Session> openZooSession(const std::string& dir,
                                                  std::optional<std::size_t> run = std::nullopt) {
    std::vector<gapscope::Error> errors;
    gapscope::SessionOptions options;
    options.comparison.run = run;
    auto session = gapscope::loadSession(gapscope::sessionInputsFromPaths({dir}, errors), options);
    REQUIRE(errors.empty());
    REQUIRE(session->errors.empty());
    REQUIRE(session->comparison);
    return session;
}

// Whether one of the session's comparison warnings holds these words.
bool said(const gapscope::Session& s, const std::string& words) {
    return std::any_of(s.comparison->warnings.begin(), s.comparison->warnings.end(),
                       [&](const std::string& w) { return w.find(words) != std::string::npos; });
}

} // namespace

// The zoo (python -m gapscope_zoo zoo): real models, each portable, XNNPACK fp32 and
// XNNPACK int8. Every session opens and compares; where ExecuTorch's Inspector
// succeeded, ExecuTorch's numbers (the `executorch` field) equal its tables to
// 1e-9; where it raised, Gapscope still gives every row a status and every
// invalid row its reason; healthy fp32 sessions show no divergence.
TEST_CASE("e2e: every zoo session opens and matches ExecuTorch wherever ExecuTorch succeeds", "[e2e][zoo]") {
    namespace fs = std::filesystem;
    const std::string zoo = zooRoot();
    std::size_t sessions = 0, matched = 0;
    for (const char* model : {"vit", "mobilenetv3", "decoder", "indexing", "recurrent", "elementwise"})
        for (const char* variant : {"portable", "fp32", "int8"}) {
            const std::string dir = zoo + "/" + model + "/" + variant;
            INFO("zoo session " << dir);
            ++sessions;
            const auto session = openZooSession(dir);
            const auto& rows = session->comparison->rows;
            REQUIRE_FALSE(rows.empty());
            // The exporter names the ETRecord by its table of contents, and the
            // digest it wrote (Python's zipfile) is the one Gapscope reads (libzip):
            // the provenance check passes without hashing the whole ETRecord.
            REQUIRE(session->capture->etrecord_entries_sha256);
            CHECK(*session->capture->etrecord_entries_sha256 == session->etrecord->entries_sha256);
            CHECK_FALSE(session->etrecord_sha256);
            CHECK_FALSE(said(*session, "another ETRecord"));
            for (const auto& row : rows)
                if (row.status == gapscope::RowStatus::Invalid)
                    CHECK_FALSE(row.reason.empty());
            if (fs::exists(dir + "/executorch_gap_mse.json")) {
                gapscope::test::checkExecuTorchParity(dir);
                ++matched;
            } else {
                REQUIRE(fs::exists(dir + "/executorch_error.txt")); // ExecuTorch raised: pinned above
            }
            // A healthy float model shows no divergence.
            if (std::string(variant) != "int8")
                CHECK_FALSE(gapscope::firstDivergence(*session->comparison, {gapscope::Metric::Snr, 20.0}));
        }
    CHECK(sessions == 18);
    CHECK(matched >= 12);
}

// Decoder-only LLMs from Hugging Face configs (issue 23): Llama and Qwen2 with GQA and
// RoPE, GPT-2. Healthy float sessions: no first divergence, no gate trips (one rule for
// both), every refused row says why, and ExecuTorch's numbers equal its tables where it
// computes. On XNNPACK RoPE's cos/sin and RMSNorm's pow share a delegate: its outputs
// are paired in return order. int8: XNNPACKQuantizer's PT2E flow cannot quantise an
// embedding's indices, so the zoo writes not_quantized.txt instead (pinned here).
TEST_CASE("e2e: Hugging Face decoders show no false alarm", "[e2e][zoo][llm]") {
    namespace fs = std::filesystem;
    const std::string zoo = zooRoot();
    std::size_t sessions = 0, rows = 0, reordered = 0;
    for (const char* model : {"hf-llama", "hf-qwen2", "hf-gpt2"}) {
        const std::string int8 = zoo + "/" + model + "/int8";
        if (!fs::exists(int8 + "/not_quantized.txt"))
            CHECK(fs::exists(int8 + "/run.etdp"));
        for (const char* variant : {"portable", "fp32"}) {
            const std::string dir = zoo + "/" + model + "/" + variant;
            INFO("zoo session " << dir);
            ++sessions;
            const auto session = openZooSession(dir);
            const auto& c = *session->comparison;
            REQUIRE_FALSE(c.rows.empty());
            for (const auto& row : c.rows) {
                INFO(row.id().aot_ops.back() << ": " << row.reason << " " << row.selection);
                ++rows;
                CHECK(row.status == gapscope::RowStatus::Ok);
                CHECK_FALSE(gapscope::crossesThreshold(row, {gapscope::Metric::Snr, 20.0}));
                if (row.selection.find("the delegate's return order") != std::string::npos)
                    ++reordered;
            }
            for (const auto& out : c.outputs)
                CHECK_FALSE(gapscope::crossesThreshold(out, {gapscope::Metric::Snr, 20.0}));
            CHECK_FALSE(gapscope::firstDivergence(c, {gapscope::Metric::Snr, 20.0}));
            if (fs::exists(dir + "/executorch_gap_mse.json"))
                gapscope::test::checkExecuTorchParity(dir);
            else
                REQUIRE(fs::exists(dir + "/executorch_error.txt"));
        }
    }
    CHECK(sessions == 6);
    CHECK(rows > 300);
    CHECK(reordered >= 2); // Llama's and Qwen2's RoPE delegates at least
}

// ExecuTorch's own LLM quantisation (issue 54): torchao 8da4w on XNNPACK. Its
// dynamic-quant linears and RoPE make delegates of several outputs, whose return
// order comes from the ETRecord (choose_qparams' getitems included): no row is
// invalid. calculate_numeric_gap raises on the whole table; ExecuTorch's rows and
// comparators, row by row, equal Gapscope's wherever they compute, and a row whose
// comparator raises carries no ExecuTorch number. Against the float model the
// same rows measure what int4 weights and int8 activations cost.
TEST_CASE("e2e: a torchao 8da4w decoder: every row compared, parity only where ExecuTorch computes, and its "
          "float reference",
          "[e2e][zoo][llm][torchao]") {
    namespace fs = std::filesystem;
    const std::string dir = zooRoot() + "/llm-8da4w/xnnpack";
    REQUIRE(fs::exists(dir + "/executorch_error.txt")); // the whole table raises: pinned
    const auto open = [&](const std::string& capture) {
        std::vector<gapscope::Error> errors;
        gapscope::SessionOptions options;
        options.capture = capture;
        auto session = gapscope::loadSession(gapscope::sessionInputsFromPaths({dir}, errors), options);
        REQUIRE(errors.empty());
        REQUIRE(session->errors.empty());
        REQUIRE(session->comparison);
        return session;
    };
    const auto quantised = open(dir + "/capture.gscap.safetensors");
    const auto& q = *quantised->comparison;
    std::size_t reordered = 0;
    for (const auto& row : q.rows) {
        INFO(row.id().aot_ops.back() << ": " << row.reason);
        CHECK(row.status == gapscope::RowStatus::Ok);
        reordered += row.selection.find("the delegate's return order") != std::string::npos;
    }
    // Where the return order differs from ExecuTorch's positional pairing (RMSNorm's product
    // returned before RoPE's): said on the row; elsewhere the two agree.
    CHECK(reordered >= 3);
    CHECK(gapscope::test::checkExecuTorchRowParity(q, dir) >= 1);

    const auto floating = open(dir + "/capture_float.gscap.safetensors");
    const auto& f = *floating->comparison;
    REQUIRE(f.rows.size() == q.rows.size());
    std::vector<double> quantisedSnr, floatSnr;
    for (std::size_t i = 0; i < f.rows.size(); ++i) {
        INFO(f.rows[i].id().aot_ops.back() << ": " << f.rows[i].reason);
        CHECK(f.rows[i].status == gapscope::RowStatus::Ok);
        const auto &m = f.rows[i].gaps, &n = q.rows[i].gaps;
        if (m.size() == 1 && n.size() == 1 && std::isfinite(m.front().snr) && std::isfinite(n.front().snr)) {
            floatSnr.push_back(m.front().snr);
            quantisedSnr.push_back(n.front().snr);
        }
    }
    // int4 weights cost: the float model is further from the device than the
    // quantised simulation is, on the median row.
    REQUIRE(floatSnr.size() > 20);
    const auto median = [](std::vector<double> v) {
        std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
        return v[v.size() / 2];
    };
    CHECK(median(floatSnr) + 10 < median(quantisedSnr));
    CHECK(gapscope::firstDivergence(f, {gapscope::Metric::Snr, 20.0}));
}

// The zoo's two-method LLM: each method's default run is its own, its rows equal
// ExecuTorch's tables of the method exported alone, and nothing diverges.
TEST_CASE("e2e: the zoo's two-method program compares each method against its own run", "[e2e][zoo]") {
    const std::string zoo = zooRoot();
    for (const char* variant : {"portable", "fp32"})
        for (const char* method : {"prefill", "forward"}) {
            const std::string dir = zoo + "/llm/" + variant;
            INFO("zoo session " << dir << " method " << method);
            gapscope::test::checkExecuTorchParity(dir, method);
            std::vector<gapscope::Error> errors;
            gapscope::SessionOptions options;
            options.comparison.method = method;
            const auto session =
                gapscope::loadSession(gapscope::sessionInputsFromPaths({dir}, errors), options);
            REQUIRE(errors.empty());
            REQUIRE(session->comparison);
            const auto& c = *session->comparison;
            CHECK(c.method == method);
            CHECK(c.warnings.empty());
            // Runs: load, prefill, load, forward.
            CHECK(c.run == (std::string(method) == "prefill" ? 1u : 3u));
            CHECK_FALSE(gapscope::firstDivergence(c, {gapscope::Metric::Snr, 20.0}));
        }
}

// Several executions in one ETDump (issue 23): a stateless decoder block on XNNPACK
// fp32 run on 6 inputs. The capture is of the first execution: compared there, nothing
// diverges; the warnings name the executions, which run logged the capture's inputs
// (its delegate logs them), that a later run ran on other inputs, and that a run with
// no debug events (the method-load block) compares nothing. They are comparison
// warnings, so they reach the JSON report and the app.
TEST_CASE("e2e: several executions in one ETDump are said, with the run that had the inputs",
          "[e2e][zoo][llm]") {
    using namespace gapscope;
    const std::string dir = zooRoot() + "/multirun/fp32";
    const auto first = openZooSession(dir);
    const std::size_t firstRun = first->comparison->run;
    CHECK(said(*first, "the ETDump holds 6 executions of 'forward'"));
    CHECK(said(*first, "logged, bit for bit, by run " + std::to_string(firstRun)));
    CHECK_FALSE(said(*first, "did not run on the capture's inputs"));
    CHECK_FALSE(said(*first, "mutates buffers"));
    CHECK_FALSE(firstDivergence(*first->comparison, {gapscope::Metric::Snr, 20.0}));
    const auto later = openZooSession(dir, firstRun + 3);
    CHECK(said(*later, "run " + std::to_string(firstRun + 3) + " is compared"));
    CHECK(said(*later, "did not run on the capture's inputs"));
    if (firstRun > 0) {
        const auto load = openZooSession(dir, 0);
        CHECK(said(*load, "run 0 holds no debug events"));
        CHECK(load->comparison->rows.empty());
    }
}

// A KV-cache decode loop (issue 23): 17 executions of one program whose cache lives in
// mutable buffers, captured step by step with the cache carried as on the device
// (gapscope-capture's capture_steps_from_etrecord). Each run is compared with its own
// step: no divergence at any step, and nothing to warn about. A step's capture
// compared with another execution is said, and so is a stateful program compared at
// a later execution against a capture of the initial state.
TEST_CASE("e2e: a KV-cache decode loop compares every step with its own capture", "[e2e][zoo][llm]") {
    using namespace gapscope;
    namespace fs = std::filesystem;
    const std::string dir = zooRoot() + "/decode-loop/portable";
    const auto first = openZooSession(dir);
    const auto executions = executionsOf(*first->dump, "forward", {});
    REQUIRE(executions.size() == 17);
    for (std::size_t k = 0; k < executions.size(); ++k) {
        INFO("execution " << k << ", run " << executions[k]);
        const auto step = openZooSession(dir, executions[k]);
        REQUIRE(step->capture->step);
        CHECK(*step->capture->step == k);
        CHECK(step->comparison->warnings.empty());
        CHECK_FALSE(firstDivergence(*step->comparison, {gapscope::Metric::Snr, 20.0}));
        for (const auto& row : step->comparison->rows)
            CHECK_FALSE(crossesThreshold(row, {gapscope::Metric::Snr, 20.0}));
    }
    // Step 0's capture alone, compared with execution 4.
    std::vector<std::string> files{dir + "/run.etdp", dir + "/run.debug.bin", dir + "/etrecord.bin",
                                   dir + "/capture.forward.step-000.gscap.safetensors"};
    std::vector<Error> errors;
    SessionOptions options;
    options.comparison.run = executions[4];
    const auto wrongStep = loadSession(sessionInputsFromPaths(files, errors), options);
    REQUIRE(wrongStep->comparison);
    CHECK(said(*wrongStep, "the capture is of step 0 of a sequence but run " + std::to_string(executions[4]) +
                               " is execution 4"));
    REQUIRE(fs::exists(dir + "/capture.forward.step-016.gscap.safetensors"));
    // The single capture of the first execution (no step), compared with execution 4:
    // the program mutates its cache, so execution 4's state is not the capture's.
    files.back() = dir + "/capture.gscap.safetensors";
    const auto stale = loadSession(sessionInputsFromPaths(files, errors), options);
    REQUIRE(stale->comparison);
    CHECK(said(*stale, "the ETDump holds 17 executions of 'forward'"));
    CHECK(said(*stale, "'forward' mutates buffers ('k_cache', 'v_cache'"));
    CHECK(said(*stale, "is execution 4 (counted from 0) of 17"));

    // The steps view's matrix (issue 25): every step against its own capture over one
    // workspace, each op present at every step, each value the step's own.
    std::vector<Error> none;
    SessionOptions shared;
    shared.workspace = std::make_shared<Workspace>(sessionInputsFromPaths({dir}, none)); // file set 0
    const auto opened = loadSession(shared.workspace->fileSet(0)->inputs, shared);
    REQUIRE(opened->comparison);
    const auto steps = compareSteps(*opened, shared);
    CHECK(steps.error.empty());
    REQUIRE(steps.runs == executions);
    const StepMatrix m = buildStepMatrix(steps.steps, Metric::Snr, {Metric::Snr, 20.0});
    REQUIRE(m.steps == 17);
    CHECK(m.ops.size() == first->comparison->rows.size());
    CHECK_FALSE(m.first_crossing);
    REQUIRE(m.worst);
    for (std::size_t k : {std::size_t(0), std::size_t(9), std::size_t(16)}) {
        const auto step = openZooSession(dir, executions[k]);
        for (std::size_t op = 0; op < m.ops.size(); ++op) {
            const auto row = m.rowAt(op, k);
            REQUIRE(row >= 0);
            const auto own = rowMetric(step->comparison->rows.at(static_cast<std::size_t>(row)), Metric::Snr);
            REQUIRE(own);
            CHECK((m.at(op, k) == *own || (std::isnan(m.at(op, k)) && std::isnan(*own))));
        }
    }
}

// Issue 30: the mobilenet_v2 path. A conv + BatchNorm CNN, int8 PT2E on XNNPACK: one
// delegate row, and a note that says so and how to get per-op rows. Its host twin
// (the same program without the delegate, `gapscope-capture twin`) has one row per
// op; against the float reference, which follows PT2E's BatchNorm folds, each row
// equals the prefused model's and the first divergence names an op. ExecuTorch's
// own numbers equal its tables on both. The device against the twin's runtime
// outputs: the delegate's own kernel error, measured.
TEST_CASE("e2e: a conv + BatchNorm CNN on XNNPACK, localised op by op through its host twin",
          "[e2e][zoo][bn]") {
    const std::string device = zooRoot() + "/bn-cnn/int8";
    const std::string twin = device + "/host-twin";
    gapscope::test::checkExecuTorchParity(device);
    gapscope::test::checkExecuTorchParity(twin);
    CHECK(gapscope::test::checkFloatReferenceThroughFolds(twin) >= 9); // 8 convs and a linear

    // A session folder compared with the capture at `capture` (which may lie elsewhere).
    const auto open = [](const std::string& dir, const std::string& capture) {
        std::vector<gapscope::Error> errors;
        gapscope::SessionOptions options;
        options.capture = capture;
        auto session =
            gapscope::loadSession(gapscope::sessionInputsFromPaths({dir, capture}, errors), options);
        REQUIRE(errors.empty());
        REQUIRE(session->errors.empty());
        REQUIRE(session->comparison);
        return session;
    };
    const auto onDevice = open(device, device + "/capture_float.gscap.safetensors");
    const auto& d = *onDevice->comparison;
    REQUIRE(d.rows.size() == 1);
    CHECK(d.rows.front().id().runtime_ops == std::vector<std::string>{"DELEGATE_CALL"});
    REQUIRE(d.notes.size() == 1);
    CHECK_THAT(d.notes.front(), Catch::Contains("1 delegate logged only its outputs"));
    CHECK_THAT(d.notes.front(), Catch::Contains("gapscope-capture twin"));

    const auto onHost = open(twin, twin + "/capture_float.gscap.safetensors");
    CHECK(onHost->comparison->notes.empty());
    const auto first = gapscope::firstDivergence(*onHost->comparison, {gapscope::Metric::Snr, 20.0});
    REQUIRE(first);
    const auto& named = onHost->comparison->rows[first->row];
    INFO(named.id().aot_ops.front());
    CHECK(named.id().runtime_ops.front() != "DELEGATE_CALL");

    const auto deviceVsHost = open(device, twin + "/host_outputs.gscap.safetensors");
    REQUIRE(deviceVsHost->comparison->rows.size() == 1);
    const auto& kernelRow = deviceVsHost->comparison->rows.front();
    INFO(kernelRow.reason);
    REQUIRE(kernelRow.status == gapscope::RowStatus::Ok);
    CHECK(*gapscope::rowMetric(kernelRow, gapscope::Metric::Snr) > 20.0);
}

// Issue 58: ExecuTorch's intermediate-output tap on a CNN quantised for XNNPACK
// (python -m gapscope_zoo zoo --model taps). `full` taps convolutions and
// linears whole and the rest with statistics; `stats` taps every op with
// statistics, the same program otherwise. Every tap is a row nested in the
// delegate; its numbers are ExecuTorch's own table's; and a STATS bound never
// claims more than the truth of the same op tapped whole.
TEST_CASE(
    "e2e: taps see inside the XNNPACK delegate, equal ExecuTorch's tap table, and statistics' bounds hold",
    "[e2e][zoo][taps]") {
    const std::string root = zooRoot() + "/taps/";
    const auto open = [](const std::string& dir) {
        std::vector<gapscope::Error> errors;
        gapscope::SessionOptions options;
        options.capture = dir + "/float.gscap.safetensors";
        auto session = gapscope::loadSession(gapscope::sessionInputsFromPaths({dir}, errors), options);
        REQUIRE(errors.empty());
        REQUIRE(session->errors.empty());
        REQUIRE(session->comparison);
        return session;
    };
    const auto full = open(root + "full");
    const auto stats = open(root + "stats");
    for (const auto* s : {full.get(), stats.get()}) {
        std::size_t taps = 0;
        for (const auto& r : s->comparison->rows)
            if (r.tap) {
                ++taps;
                REQUIRE(r.inside);
                CHECK(s->comparison->rows[*r.inside].id().runtime_ops.front() == "DELEGATE_CALL");
                CHECK(r.status == gapscope::RowStatus::Ok);
            }
        CHECK(taps == s->capture->taps.size());
        CHECK(taps >= 8);
    }
    // Parity with ExecuTorch's compare_aot_runtime_dataframe against the float
    // program: the conv net, and the decoder block in int8.
    const auto decoder = open(root + "decoder");
    for (const auto* tapped : {full.get(), decoder.get()}) {
        const std::string name = tapped == full.get() ? "full" : "decoder";
        INFO(name);
        std::ifstream in(root + name + "/executorch_taps_float.json");
        const auto table = nlohmann::json::parse(in);
        std::size_t compared = 0;
        for (const auto& theirs : table)
            for (const auto& r : tapped->comparison->rows) {
                if (!r.tap || r.tap->spec.output_index != theirs.at("output_index").get<std::size_t>())
                    continue;
                ++compared;
                if (r.tap->spec.fullTensor()) {
                    REQUIRE(r.gaps.size() == 1);
                    CHECK(r.gaps.front().runtime_sqnr ==
                          Approx(parityNumber(theirs.at("sqnr_db"))).epsilon(1e-5));
                } else {
                    REQUIRE(r.tap->fields);
                    const auto& f = *r.tap->fields;
                    for (std::size_t k = 0; k < f.names.size(); ++k) {
                        for (const auto& [side, values] :
                             {std::pair<std::string, const std::vector<double>*>{"rt_", &f.runtime},
                              {"aot_", &f.reference}}) {
                            const float ours = static_cast<float>((*values)[k]);
                            const float want = static_cast<float>(parityNumber(theirs.at(side + f.names[k])));
                            INFO(r.tap->spec.node_name << " " << side << f.names[k]);
                            CHECK((ours == want || (std::isnan(ours) && std::isnan(want))));
                        }
                    }
                }
            }
        CHECK(compared == table.size());
        CHECK(compared >= 8);
    }
    // The same op, tapped whole in one program and with statistics in the other:
    // the statistics' SNR bound is at least the whole tensor's SNR.
    std::size_t held = 0;
    for (const auto& whole : full->comparison->rows) {
        if (!whole.tap || !whole.tap->spec.fullTensor())
            continue;
        for (const auto& bound : stats->comparison->rows)
            if (bound.tap && bound.tap->spec.node_name == whole.tap->spec.node_name && bound.bounds) {
                INFO(whole.tap->spec.node_name << ": whole " << whole.gaps.front().snr << " dB, bound "
                                               << bound.gaps.front().snr << " dB");
                CHECK(bound.gaps.front().snr >= whole.gaps.front().snr - 1e-6);
                CHECK(bound.gaps.front().max_abs <= whole.gaps.front().max_abs * (1 + 1e-6));
                ++held;
            }
    }
    CHECK(held == 4);
}

TEST_CASE("e2e: the debug-build check tells a tap that changed the program from one that did not",
          "[e2e][zoo][taps]") {
    const std::string root = zooRoot() + "/taps/";
    const auto production = gapscope::loadProductionBuild(root + "production");
    REQUIRE(production);
    REQUIRE(production.value().dump);
    for (const std::string variant : {"full", "stats", "relu"}) {
        INFO(variant);
        std::vector<gapscope::Error> errors;
        gapscope::SessionOptions options;
        options.capture = root + variant + "/capture.gscap.safetensors";
        const auto tapped =
            gapscope::loadSession(gapscope::sessionInputsFromPaths({root + variant}, errors), options);
        REQUIRE(errors.empty());
        REQUIRE(tapped->comparison);
        const auto check = gapscope::checkAgainstProduction(*tapped, production.value());
        REQUIRE(check);
        const auto& c = check.value();
        // The truth: torch on the two runs' own outputs (zoo_taps.py).
        std::ifstream in(root + variant + "/production_truth.json");
        const auto truth = nlohmann::json::parse(in);
        REQUIRE(c.runs_compared);
        REQUIRE(c.outputs.size() == 1);
        CHECK(c.outputsAgree() == truth.at("outputs_equal").get<bool>());
        if (c.outputs.front().metrics)
            CHECK(c.outputs.front().metrics->max_abs ==
                  Approx(truth.at("max_abs").get<double>()).epsilon(1e-6));
        // Neither tap cuts the XNNPACK partition; tapping a conv breaks its
        // fusion with the ReLU: both convs, and nothing else, are requantised.
        CHECK(c.tapped_delegates == 1);
        CHECK(c.production_delegates == 1);
        CHECK(c.ops_compared >= 8);
        if (variant == "relu") {
            CHECK(c.samePartitions());
        } else {
            REQUIRE(c.differences.size() == 2);
            for (const auto& d : c.differences) {
                CHECK(d.op.rfind("aten_convolution_default", 0) == 0);
                CHECK(d.tapped.requantized);
                CHECK_FALSE(d.production.requantized);
                CHECK(d.tapped.where == d.production.where);
            }
        }
    }
}

TEST_CASE(
    "e2e: a decode loop's STATS taps, step by step, from the ETDump and from the outputs saved without a "
    "debug buffer, equal ExecuTorch's table",
    "[e2e][zoo][taps]") {
    const std::string root = zooRoot() + "/taps/";
    std::ifstream in(root + "decode/executorch_taps_steps.json");
    const auto tables = nlohmann::json::parse(in);
    std::vector<gapscope::SessionSteps> loops;
    for (const std::string variant : {"decode", "decode-saved"}) {
        INFO(variant);
        std::vector<gapscope::Error> errors;
        gapscope::SessionOptions options;
        options.workspace =
            std::make_shared<gapscope::Workspace>(gapscope::sessionInputsFromPaths({root + variant}, errors));
        REQUIRE(errors.empty());
        const auto first = gapscope::loadSession(options.workspace->fileSet(0)->inputs, options);
        REQUIRE(first->comparison);
        CHECK(static_cast<bool>(first->comparison->saved_outputs) == (variant == "decode-saved"));
        std::size_t fields = 0;
        const auto walk = gapscope::forEachStep(
            *first, gapscope::stepFiles(*first, options), options,
            [&](std::size_t k, std::size_t, const gapscope::Session& step) {
                REQUIRE(k < tables.size());
                std::size_t taps = 0;
                for (const auto& r : step.comparison->rows) {
                    if (!r.tap)
                        continue;
                    ++taps;
                    CHECK(r.status == gapscope::RowStatus::Ok);
                    CHECK(r.bounds);
                    REQUIRE(r.tap->fields);
                    // The runtime's statistics are ExecuTorch's, and the reference's its own step's.
                    for (const auto& theirs : tables[k])
                        if (theirs.at("output_index").get<std::size_t>() == r.tap->spec.output_index)
                            for (std::size_t f = 0; f < r.tap->fields->names.size(); ++f, ++fields) {
                                const auto& name = r.tap->fields->names[f];
                                CHECK(static_cast<float>(r.tap->fields->runtime[f]) ==
                                      static_cast<float>(parityNumber(theirs.at("rt_" + name))));
                                CHECK(static_cast<float>(r.tap->fields->reference[f]) ==
                                      static_cast<float>(parityNumber(theirs.at("aot_" + name))));
                            }
                }
                CHECK(taps == 4); // q, k, v and out: every linear
                return true;
            });
        CHECK(walk.visited == 17);
        CHECK(fields == 17 * 4 * 13);
        loops.push_back(gapscope::compareSteps(*first, options));
    }
    // The two routes give the same numbers for every tap at every step.
    REQUIRE(loops[0].steps.size() == loops[1].steps.size());
    const auto snr = gapscope::metricIndex(gapscope::Metric::Snr);
    std::size_t compared = 0;
    for (std::size_t s = 0; s < loops[0].steps.size(); ++s)
        for (const auto& a : loops[0].steps[s].rows)
            for (const auto& b : loops[1].steps[s].rows)
                if (a.tap && b.tap && a.index == b.index) {
                    CHECK(a.bounds);
                    CHECK(a.metrics[snr] == b.metrics[snr]);
                    ++compared;
                }
    CHECK(compared == 17 * 4);
    const auto matrix = gapscope::buildStepMatrix(loops[1].steps, gapscope::Metric::Snr, {});
    CHECK(std::count_if(matrix.ops.begin(), matrix.ops.end(),
                        [](const std::string& op) { return op.rfind("↳ ", 0) == 0; }) == 4);
}

// Issue 59: the stage ladder on the conv + BatchNorm CNN (python -m gapscope_zoo
// zoo --model bn-cnn), every reference written by gapscope-capture's
// write_stages into stages/. Int8: quantisation loses the most, on the device's
// one row and op by op on the host twin; fp32 XNNPACK: the kernels' step is
// float rounding. Every device number equals the single-reference comparison
// opened on its own.
#include "core/report/ladder_report.h"
#include "core/session/session_ladder.h"

namespace {

struct Laddered {
    std::unique_ptr<gapscope::Session> session;
    gapscope::StageLadder ladder;
};

Laddered ladderOf(const std::string& dir) {
    std::vector<gapscope::Error> errors;
    gapscope::SessionOptions options;
    options.workspace = std::make_shared<gapscope::Workspace>();
    const auto inputs = gapscope::sessionInputsFromPaths({dir}, errors);
    REQUIRE(errors.empty());
    auto files = gapscope::sortSessionFiles(inputs, {}, {}, {}, options.workspace.get());
    auto session = gapscope::loadSessionFiles(files, options);
    REQUIRE(session->errors.empty());
    REQUIRE(session->comparison);
    std::vector<std::string> notes;
    const auto captures = gapscope::ladderCaptures(files, dir, notes);
    CHECK(notes.empty());
    auto ladder = gapscope::openStageLadder(*session, files, captures, options);
    return {std::move(session), std::move(ladder)};
}

// Each reference stage's device numbers are those of the session compared with
// that capture alone (a fresh opening, nothing shared).
void checkDeviceNumbersAreSingleComparisons(const std::string& dir, const Laddered& l) {
    const auto& base = *l.session->comparison;
    std::size_t checked = 0;
    for (std::size_t s = 0; s + 1 < l.ladder.stages.size(); ++s) {
        std::vector<gapscope::Error> errors;
        gapscope::SessionOptions options;
        options.capture = l.ladder.capture_paths[s];
        const auto single = gapscope::loadSession(
            gapscope::sessionInputsFromPaths({dir, l.ladder.capture_paths[s]}, errors), options);
        REQUIRE(single->comparison);
        const auto& c = *single->comparison;
        for (const auto& row : l.ladder.rows) {
            INFO(l.ladder.capture_paths[s] << " " << row.name);
            std::optional<double> expected;
            if (row.output) {
                if (row.row < c.outputs.size() && c.outputs[row.row].metrics)
                    expected = c.outputs[row.row].metrics->snr;
            } else {
                const auto& b = base.rows[row.row];
                for (const auto& r : c.rows)
                    if (r.id().runtimeDebugHandle() == b.id().runtimeDebugHandle() &&
                        r.output_index == b.output_index && !r.tap && !b.tap) {
                        if (r.status == gapscope::RowStatus::Ok)
                            expected = gapscope::rowMetric(r, gapscope::Metric::Snr);
                        break;
                    }
            }
            CHECK(row.device[s].snr == expected);
            ++checked;
        }
    }
    CHECK(checked > 0);
}

} // namespace

TEST_CASE("e2e: the stage ladder of an int8 and an fp32 CNN: where each op's loss comes from",
          "[e2e][zoo][ladder]") {
    using gapscope::LadderStage;
    const std::string int8 = zooRoot() + "/bn-cnn/int8";
    const auto q = ladderOf(int8);
    INFO(gapscope::stageLadderToJson(q.ladder).dump(1));
    // The session's own captures serve; stages/ adds the edge graph and the host's kernels.
    CHECK(q.ladder.stages == std::vector<LadderStage>{LadderStage::FloatModel, LadderStage::QuantAten,
                                                      LadderStage::QuantEdge, LadderStage::HostKernels,
                                                      LadderStage::Device});
    checkDeviceNumbersAreSingleComparisons(int8, q);
    // The device's one row (XNNPACK logs the delegate's output) and the program output:
    // quantisation loses the most, and ATen to edge nothing.
    for (const auto& row : q.ladder.rows) {
        INFO(row.name);
        REQUIRE(row.worst_step);
        CHECK(q.ladder.step_labels[*row.worst_step] == "quantisation");
        REQUIRE(row.steps[0].snr);
        CHECK(*row.steps[0].snr < 25.0);
        REQUIRE(row.steps[1].snr);
        CHECK(*row.steps[1].snr > gapscope::kLadderLosslessDb);
        REQUIRE(row.steps.back().snr);
        CHECK(*row.steps.back().snr > *row.steps[0].snr + 10.0);
    }

    // Op by op, on the host twin stages/ made: quantisation loses the most on every
    // op it holds, and the host's kernels add nothing beyond rounding.
    const std::string twin = int8 + "/stages/host-twin";
    const auto t = ladderOf(twin);
    // The twin's own run is its device, and its outputs by handle the host kernels' stage.
    CHECK(t.ladder.stages == std::vector<LadderStage>{LadderStage::FloatModel, LadderStage::QuantAten,
                                                      LadderStage::HostKernels, LadderStage::Device});
    checkDeviceNumbersAreSingleComparisons(twin, t);
    std::size_t quantisation = 0;
    for (const auto& row : t.ladder.rows) {
        INFO(row.name);
        if (row.worst_step) {
            CHECK(t.ladder.step_labels[*row.worst_step] == "quantisation");
            ++quantisation;
        }
        if (row.steps.back().snr)
            CHECK(*row.steps.back().snr > gapscope::kLadderLosslessDb);
    }
    CHECK(quantisation >= 15); // the convolutions, activations, pool and linears

    // fp32 on XNNPACK: no step loses anything worth naming; the kernels' step is rounding.
    const std::string fp32 = zooRoot() + "/bn-cnn/fp32";
    const auto f = ladderOf(fp32);
    CHECK(f.ladder.stages == std::vector<LadderStage>{LadderStage::FloatModel, LadderStage::AtenGraph,
                                                      LadderStage::EdgeGraph, LadderStage::HostKernels,
                                                      LadderStage::Device});
    checkDeviceNumbersAreSingleComparisons(fp32, f);
    for (const auto& row : f.ladder.rows) {
        INFO(row.name);
        CHECK_FALSE(row.worst_step);
        REQUIRE(row.steps.back().snr);
        CHECK(*row.steps.back().snr > gapscope::kLadderLosslessDb);
    }
}

// Issue 59: gapscope-capture fix on an int8 CNN with one culprit block (python -m
// gapscope_zoo zoo --model fix). The fix keeps that block in float and meets the
// target, and the SNRs it reports from its own runs equal Gapscope's program-output
// SNR on the sessions it wrote: the original run and the verified fixed run.
#include <fstream>
#include <nlohmann/json.hpp>

TEST_CASE("e2e: gapscope-capture fix finds the culprit block, and Gapscope measures what it says",
          "[e2e][zoo][fix]") {
    const std::string dir = zooRoot() + "/fix/int8";
    std::ifstream in(dir + "/fix/fix.json");
    REQUIRE(in);
    const auto fix = nlohmann::json::parse(in);
    INFO(fix.dump(1));
    CHECK(fix["met"] == true);
    CHECK(fix["target"] == "snr=35");
    CHECK(fix["best"]["keep_float"] == nlohmann::json::array({"culprit"}));
    const double before = fix["baseline"]["output_snr_db"].get<double>();
    const double after = fix["fixed_session"]["output_snr_db"].get<double>();
    CHECK(before < 35.0);
    CHECK(after >= 35.0);
    // Each candidate alone was lowered and run: the culprit block recovers the most.
    double culprit = -1, others = -1e9;
    for (const auto& c : fix["candidates"]) {
        REQUIRE(c["trial"].is_object());
        const double recovered = c["recovered_db"].get<double>();
        if (c["module"] == "culprit")
            culprit = recovered;
        else
            others = std::max(others, recovered);
    }
    CHECK(culprit > others);

    const auto outputSnr = [](const std::string& session) {
        std::vector<gapscope::Error> errors;
        gapscope::SessionOptions options;
        options.capture = session + "/capture_float.gscap.safetensors";
        const auto s = gapscope::loadSession(gapscope::sessionInputsFromPaths({session}, errors), options);
        REQUIRE(s->comparison);
        REQUIRE(s->comparison->outputs.size() == 1);
        REQUIRE(s->comparison->outputs.front().metrics);
        return s->comparison->outputs.front().metrics->snr;
    };
    CHECK(outputSnr(dir) == Approx(before).epsilon(1e-9));
    CHECK(outputSnr(dir + "/fix/fixed") == Approx(after).epsilon(1e-9));
}

// Issue 61: the Arm TOSA sessions (python -m gapscope_zoo zoo --model arm): a conv
// net, a residual conv net (channels-last between its convolutions, C = H = W)
// and a transformer block (attention, LayerNorm, GELU MLP), each lowered by
// ExecuTorch's Arm backend for TOSA's FP and INT profiles and run on the TOSA
// reference model with every op kept. Each opens as a session with no special
// case; its rows map to the capture's ATen nodes; every row compared reads
// rounding only against the program it was lowered from (a row laid out or
// paired wrongly reads near 0 dB), and every other row says why; against the
// float model the INT sessions show the quantisation gap; the program's output
// equals ExecuTorch's own Arm test comparison (relative Frobenius error, cosine).
TEST_CASE("e2e: Arm TOSA sessions open, compare each op, and match ExecuTorch's Arm referee on the outputs",
          "[e2e][zoo][arm]") {
    const std::string zoo = zooRoot();
    // Rows compared at least: against the program lowered, and against the float
    // model, whose capture has no value where the quantised program has no
    // counterpart of a float op (the mean, the attention's core), said by row.
    const std::map<std::string, std::pair<std::size_t, std::size_t>> minCompared = {
        {"conv-fp", {3, 0}},
        {"conv-int", {3, 3}},
        {"residual-fp", {6, 0}},
        {"residual-int", {5, 3}},
        {"attention-fp", {8, 0}},
        {"attention-int", {8, 5}},
        // Two blocks and a head: the same node names in both blocks' traces.
        {"transformer-fp", {18, 0}},
        {"transformer-int", {20, 9}},
        // Ethos-U55: two NPU delegates, the sort between them on the CPU; and
        // two with an argmax mask between them, at whose boundary the first
        // delegate hands the CPU TOSA's int32 where the program reads int64.
        {"split-u55", {2, 2}},
        {"masked-u55", {4, 2}}};
    std::size_t refereed = 0;
    for (const auto& [name, atLeast] : minCompared) {
        const std::string dir = zoo + "/arm/" + name;
        INFO("Arm session " << dir);
        std::ifstream refereeFile(dir + "/executorch_arm_referee.json");
        REQUIRE(refereeFile);
        const auto referee = nlohmann::json::parse(refereeFile);
        for (const auto& [captureName, expected] : referee.at("captures").items()) {
            INFO("capture " << captureName);
            std::vector<gapscope::Error> errors;
            gapscope::SessionOptions options;
            options.capture = dir + "/" + captureName;
            auto s = gapscope::loadSession(gapscope::sessionInputsFromPaths({dir}, errors), options);
            REQUIRE(errors.empty());
            REQUIRE(s->errors.empty());
            REQUIRE(s->comparison);
            CHECK(s->missing.empty());
            // Every partition boundary is said; each agrees on its dtype but
            // the masked net's constant, which ExecuTorch's own lowering left at
            // int32 in the TOSA graph and int64 in the program.
            if (name == "masked-u55") {
                REQUIRE(s->comparison->warnings.size() == 1);
                CHECK_THAT(
                    s->comparison->warnings[0],
                    Catch::Contains("delegate 0's output") && Catch::Contains("aten_full_default") &&
                        Catch::Contains("int64 in the program but int32 in the delegate's TOSA graph"));
            } else {
                CHECK(s->comparison->warnings.empty());
            }
            CHECK(std::any_of(
                s->comparison->notes.begin(), s->comparison->notes.end(),
                [](const std::string& n) { return n.find("Partition boundaries") != std::string::npos; }));
            const bool floatReference = captureName.find("float") != std::string::npos;
            std::size_t compared = 0;
            double lowest = HUGE_VAL;
            for (const auto& row : s->comparison->rows) {
                INFO(row.id().aot_ops.front() << ": " << row.reason);
                CHECK_FALSE(row.id().aot_ops.empty()); // an ATen node of the capture
                if (row.status != gapscope::RowStatus::Ok) {
                    CHECK(row.status == gapscope::RowStatus::Invalid);
                    CHECK_FALSE(row.reason.empty());
                    continue;
                }
                ++compared;
                REQUIRE(row.gaps.size() == 1);
                lowest = std::min(lowest, row.gaps[0].snr);
                if (!floatReference)
                    CHECK(row.gaps[0].snr > 100); // rounding only, or a layout taken wrongly
            }
            CHECK(compared >= (floatReference ? atLeast.second : atLeast.first));
            if (floatReference) { // the quantisation gap, there and finite
                CHECK(lowest > 10);
                CHECK(lowest < 60);
            }
            REQUIRE(s->comparison->outputs.size() == expected.size());
            for (const auto& e : expected) {
                const auto& out = s->comparison->outputs[e.at("output").get<std::size_t>()];
                REQUIRE(out.status == gapscope::RowStatus::Ok);
                REQUIRE(out.metrics);
                const double rel = e.at("relative_frobenius_error"), cosine = e.at("cosine_similarity");
                // ExecuTorch's in float32 (and 1e-8 added to the norm), Gapscope's in double.
                CHECK(std::abs(out.metrics->rel_l2 - rel) <= 1e-6 + 1e-4 * std::abs(rel));
                CHECK(std::abs(out.metrics->cosine - cosine) <= 1e-6);
                ++refereed;
            }
        }
    }
    CHECK(refereed == 16); // 10 sessions, the INT ones against two references
}
