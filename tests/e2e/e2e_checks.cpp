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
