#pragma once

#include <cstddef>
#include <string>

namespace gapscope::test {

// The int8 session against its float reference (capture_float.gscap.safetensors):
// the quantisation error is visible, and the ops that introduce most of it are
// the quantised XNNPACK groups, not the float portable kernels.
void checkQuantizationErrorVisible(const std::string& int8Directory);

// A conv + BatchNorm CNN in int8, one row per op (zoo bn-cnn, issue 30): its float
// reference (capture_float.gscap.safetensors), through PT2E's BatchNorm folds,
// gives every row the number the float reference of the same model with its
// BatchNorms folded before export gives (prefused/, the same int8 program): no
// row reads the conv before its BatchNorm, so no sawtooth and no first divergence
// from a fold. Returns how many rows are a folded conv or linear.
std::size_t checkFloatReferenceThroughFolds(const std::string& directory);

} // namespace gapscope::test
