#pragma once

#include "core/backends/tosa_run.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace gapscope {

// How an op's TOSA tensor is laid out against the torch tensor of the node it
// stands for (docs/arm.md, "Layout"): the axis order p with tosa =
// torch.permute(p), so the tensor's axis i is torch's axis p[i]. ExecuTorch's
// Arm backend keeps rank-4 activations channels-last (NHWC) between
// convolutions and writes every change of layout as a TRANSPOSE, so the orders
// follow from the graph alone:
// - the graph's inputs are torch's (the identity);
// - a TRANSPOSE the backend added for layout (around a convolution) composes
//   its permutation; one that computes its node (a permute, a transpose of the
//   model) is in torch's order when its input is, the node's output being
//   permuted as the tensor is; one whose node is not known leaves any order
//   but torch's unknown (a model's transpose of square axes would otherwise
//   be laid back wrongly, with shapes that agree);
// - CONV2D, DEPTHWISE_CONV2D, TRANSPOSE_CONV2D, AVG_POOL2D, MAX_POOL2D and
//   RESIZE are NHWC by TOSA's definition: channels-last in, channels-last out
//   (CONV3D: NDHWC);
// - a RESHAPE is torch's reshape only of a tensor in torch's order;
// - MATMUL of two tensors in torch's order is in torch's order;
// - every other op keeps the order of its inputs (elementwise ops, RESCALE,
//   TABLE, CLAMP, reductions that keep their axes, SLICE, PAD, CONCAT, TILE).
// Anything else, or inputs that disagree, leaves the order unknown (nullopt):
// such a tensor is never compared as if it were torch's.
using AxisOrder = std::optional<std::vector<std::int64_t>>;
enum class TransposeRole : char { Layout, NodesOwn, Unknown };
// `roles`: each op's, by index (read for TRANSPOSEs; empty: every TRANSPOSE a layout one).
std::vector<AxisOrder> tosaAxisOrders(const TosaRun& run, const std::vector<TransposeRole>& roles = {});

// The order moves no axis of more than one element: the tensor's elements are
// in torch's order, whatever the size-1 axes ([1,1,1,8] channels-last is [1,8,1,1]'s order).
bool keepsElementOrder(const std::vector<std::int64_t>& order, const std::vector<std::int64_t>& shape);

} // namespace gapscope
