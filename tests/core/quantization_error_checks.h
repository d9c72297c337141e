#pragma once

#include <string>

namespace gapscope::test {

// The int8 session against its float reference (capture_float.gscap.safetensors):
// the quantisation error is visible, and the ops that introduce most of it are
// the quantised XNNPACK groups, not the float portable kernels.
void checkQuantizationErrorVisible(const std::string& int8Directory);

} // namespace gapscope::test
