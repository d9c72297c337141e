// End-to-end: files produced just now by ExecuTorch (`gapscope-capture demo`,
// run by tests/e2e/run_e2e.sh) read by the C++ core and checked for consistency.

#include "../core/session_consistency.h"

#include <catch2/catch.hpp>
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
#include "core/session/session.h"

#include <filesystem>

// The zoo (gapscope-capture zoo): real models, each portable, XNNPACK fp32 and
// XNNPACK int8. Every session opens and compares; where ExecuTorch's Inspector
// succeeded, ExecuTorch's numbers (the `executorch` field) equal its tables to
// 1e-9; where it raised, Gapscope still gives every row a status and every
// invalid row its reason; healthy fp32 sessions show no divergence.
TEST_CASE("e2e: every zoo session opens and matches ExecuTorch wherever ExecuTorch succeeds", "[e2e][zoo]") {
    namespace fs = std::filesystem;
    const char* zoo = std::getenv("GAPSCOPE_E2E_ZOO_DIR");
    if (!zoo)
        FAIL("GAPSCOPE_E2E_ZOO_DIR is not set; run through tests/e2e/run_e2e.sh");
    std::size_t sessions = 0, matched = 0;
    for (const char* model : {"vit", "mobilenetv3", "decoder", "indexing", "recurrent", "elementwise"})
        for (const char* variant : {"portable", "fp32", "int8"}) {
            const std::string dir = std::string(zoo) + "/" + model + "/" + variant;
            INFO("zoo session " << dir);
            ++sessions;
            std::vector<gapscope::Error> errors;
            const auto session = gapscope::loadSession(gapscope::sessionInputsFromPaths({dir}, errors));
            REQUIRE(errors.empty());
            REQUIRE(session->errors.empty());
            REQUIRE(session->comparison);
            const auto& rows = session->comparison->rows;
            REQUIRE_FALSE(rows.empty());
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
                CHECK_FALSE(gapscope::firstDivergence(*session->comparison, {"snr", 20.0}));
        }
    CHECK(sessions == 18);
    CHECK(matched >= 12);
}

// The zoo's two-method LLM: each method's default run is its own, its rows equal
// ExecuTorch's tables of the method exported alone, and nothing diverges.
TEST_CASE("e2e: the zoo's two-method program compares each method against its own run", "[e2e][zoo]") {
    const char* zoo = std::getenv("GAPSCOPE_E2E_ZOO_DIR");
    if (!zoo)
        FAIL("GAPSCOPE_E2E_ZOO_DIR is not set; run through tests/e2e/run_e2e.sh");
    for (const char* variant : {"portable", "fp32"})
        for (const char* method : {"prefill", "forward"}) {
            const std::string dir = std::string(zoo) + "/llm/" + variant;
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
            CHECK_FALSE(gapscope::firstDivergence(c, {"snr", 20.0}));
        }
}
