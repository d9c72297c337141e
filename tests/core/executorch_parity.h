#pragma once

#include <string>

namespace gapscope::test {

// Runs Gapscope's comparison on a demo session directory and checks that the
// rows ExecuTorch would produce equal ExecuTorch's own calculate_numeric_gap
// tables saved beside it (executorch_gap_{mse,l1,snr}.json): same rows in the
// same order, same handles and op names, gaps within 1e-9 relative.
void checkExecuTorchParity(const std::string& directory);

} // namespace gapscope::test
