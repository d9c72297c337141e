#pragma once

#include <string>
#include <string_view>

namespace gapscope {

// What an op computes, whatever graph spelled its node name: a comparison of
// two lowerings pairs rows by it. ExecuTorch 1.5.1 names a node after its op in
// the graph the capture read: `conv2d`, `linear_2` (the ATen exported program:
// portable, XNNPACK) or `aten_convolution_default`, `aten_linear_default_2`
// (edge_after_transform: QNN). Both become "conv" and "linear". The rules
// (shared/design/matching-across-lowerings.md, docs/compare-runs.md):
// - the graph's counter (`_2`), the `aten_` prefix and the overload (`_default`,
//   `_Tensor`, …) go;
// - `_copy` goes (edge dialect's view_copy is the exported program's view);
// - synonyms become one word: convolution/conv1d/conv2d/conv3d → conv,
//   _native_batch_norm_legit_no_training → batch_norm, native_layer_norm →
//   layer_norm, _softmax → softmax, reshape/view/_unsafe_view → view,
//   mm/addmm/bmm/matmul → matmul, transpose/permute → permute.
std::string opKind(std::string_view nodeName);

} // namespace gapscope
