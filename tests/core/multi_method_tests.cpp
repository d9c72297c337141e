// A real two-method program (tests/data/multimethod_portable: an LLM-style
// prefill and forward in one .pte, one ETDump). Runs carry no method name and
// both methods number handles from 1, so the right run and capture must be
// told apart by content; ExecuTorch's Inspector raises on these files.

#include "core/capture/aot_capture.h"
#include "core/compare/findings.h"
#include "core/etdump/etdump_reader.h"
#include "core/etrecord/etrecord_reader.h"
#include "core/session/session.h"
#include "executorch_parity.h"
#include "test_support.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

using namespace gapscope;

namespace {

const std::string kDir = GAPSCOPE_TEST_DATA_DIR "/multimethod_portable";

Result<Comparison> compareWith(const std::string& captureMethod, const std::string& method,
                               std::optional<std::size_t> run = std::nullopt) {
    auto dump = loadEtdump(kDir + "/run.etdp", kDir + "/run.debug.bin");
    auto record = loadEtRecord(kDir + "/etrecord.bin");
    auto capture = loadAotCapture(kDir + "/capture." + captureMethod + ".gscap.safetensors");
    REQUIRE(dump);
    REQUIRE(record);
    REQUIRE(capture);
    ComparisonOptions options;
    options.method = method;
    options.run = run;
    return compareSession(dump.value(), &record.value(), capture.value(), options);
}

bool hasWarningContaining(const Comparison& c, const std::string& text) {
    for (const auto& w : c.warnings)
        if (w.find(text) != std::string::npos)
            return true;
    return false;
}

} // namespace

TEST_CASE("multi-method: each method's rows equal ExecuTorch's tables of that method alone",
          "[multimethod][parity]") {
    // ExecuTorch cannot inspect the two-method files themselves.
    std::ifstream in(kDir + "/executorch_error.txt");
    std::stringstream error;
    error << in.rdbuf();
    // It takes the two methods' runs for repeats of one method, or reads the
    // two-method edge program as one; either way it raises.
    CHECK((error.str().find("AssertionError") == 0 || error.str().find("AttributeError") == 0));
    for (const char* method : {"prefill", "forward"})
        test::checkExecuTorchParity(kDir, method);
}

TEST_CASE("multi-method: each run is told to its method by its events", "[multimethod]") {
    auto prefill = compareWith("prefill", "");
    auto forward = compareWith("forward", "");
    REQUIRE(prefill);
    REQUIRE(forward);
    // Runs: load, prefill, load, forward. The default follows the capture's method.
    CHECK(prefill.value().method == "prefill");
    CHECK(prefill.value().run == 1);
    CHECK(forward.value().method == "forward");
    CHECK(forward.value().run == 3);
    const auto& runs = forward.value().run_methods;
    REQUIRE(runs.size() == 4);
    CHECK(runs[0].empty());
    CHECK(runs[1] == std::vector<std::string>{"prefill"});
    CHECK(runs[2].empty());
    CHECK(runs[3] == std::vector<std::string>{"forward"});
    for (const auto* c : {&prefill.value(), &forward.value()}) {
        CHECK(c->warnings.empty());
        for (const auto& row : c->rows)
            CHECK(row.status == RowStatus::Ok);
        CHECK_FALSE(firstDivergence(*c, {Metric::Snr, 20.0})); // a healthy float model
    }
}

TEST_CASE("multi-method: a run or capture of another method is said, not compared silently",
          "[multimethod]") {
    auto wrongRun = compareWith("forward", "forward", 1);
    REQUIRE(wrongRun);
    CHECK(hasWarningContaining(wrongRun.value(),
                               "run 1 does not look like a run of method 'forward' but of 'prefill'"));
    auto wrongCapture = compareWith("forward", "prefill");
    REQUIRE(wrongCapture);
    CHECK(hasWarningContaining(wrongCapture.value(),
                               "the capture is of method 'forward' but method 'prefill'"));
    // forward's 1-token reference against prefill's 8-token run: genuinely
    // broadcast rows, far past any threshold, yet never the first divergence.
    std::size_t broadcast = 0;
    for (const auto& row : wrongCapture.value().rows)
        if (row.status == RowStatus::Broadcast) {
            ++broadcast;
            CHECK(row.reason.find("never the first divergence") != std::string::npos);
            CHECK_FALSE(crossesThreshold(row, {Metric::Snr, 20.0}));
        }
    CHECK(broadcast >= 10);
    const auto first = firstDivergence(wrongCapture.value(), {Metric::Snr, 20.0});
    REQUIRE(first);
    CHECK(wrongCapture.value().rows[first->row].status == RowStatus::Ok);
    auto unknown = compareWith("forward", "decode");
    REQUIRE_FALSE(unknown);
    CHECK(unknown.error().where.file == kDir + "/etrecord.bin");
    CHECK(unknown.error().message.find(
              "method 'decode' is not in the ETRecord; its methods: 'forward', 'prefill'") !=
          std::string::npos);
}

TEST_CASE("multi-method: a session folder picks the capture of the method asked for",
          "[multimethod][session]") {
    for (const std::string method : {"", "forward", "prefill"}) {
        INFO("method '" << method << "'");
        std::vector<Error> errors;
        SessionOptions options;
        options.comparison.method = method;
        const auto s = loadSession(sessionInputsFromPaths({kDir}, errors), options);
        REQUIRE(errors.empty());
        REQUIRE(s->errors.empty());
        REQUIRE(s->comparison);
        const std::string expected = method.empty() ? "forward" : method;
        CHECK(s->capture->method == expected);
        CHECK(s->comparison->method == expected);
        CHECK(s->comparison->warnings.empty());
        CHECK(s->capture_methods() == std::vector<std::string>{"forward", "prefill"}); // file order
    }
}

TEST_CASE("a single-method program has no run attribution to show", "[multimethod]") {
    const std::string dir = GAPSCOPE_TEST_DATA_DIR "/portable_mha";
    const auto compared = test::compareSessionDir(dir);
    const Comparison& c = compared->comparison;
    CHECK(c.method == "forward");
    CHECK(c.run_methods.empty());
}
