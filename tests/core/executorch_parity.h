#pragma once

#include <string>

namespace gapscope::test {

// Runs Gapscope's comparison on a demo session directory and checks that the
// rows ExecuTorch would produce equal ExecuTorch's own calculate_numeric_gap
// tables saved beside it (executorch_gap_{mse,l1,snr}.json): same rows in the
// same order, same handles and op names, gaps within 1e-9 relative.
// With a `method`, a multi-method session: capture.<method>.gscap.safetensors
// against executorch_gap_<metric>.<method>.json.
void checkExecuTorchParity(const std::string& directory, const std::string& method = {});

} // namespace gapscope::test
