// The committed demo session (resources/demo: real ExecuTorch output) read by
// the core, without Python: runs in every CI configuration, asan included.

#include "session_consistency.h"

#include <catch2/catch.hpp>

TEST_CASE("the embedded int8 demo session is consistent", "[demo][e2e-files]") {
    gapscope::test::checkSessionConsistency(GAPSCOPE_DEMO_DIR);
}

#include "executorch_parity.h"

TEST_CASE("the embedded demo session: Gapscope's rows equal ExecuTorch's tables", "[demo][parity]") {
    gapscope::test::checkExecuTorchParity(GAPSCOPE_DEMO_DIR);
}
