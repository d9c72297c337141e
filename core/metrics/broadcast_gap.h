#pragma once

#include "core/metrics/operand.h"

#include <optional>

namespace gapscope {

// ExecuTorch's MSE, L1 (a sum) and SNR of two tensors torch-broadcast against
// each other, without visiting the broadcast product. ExecuTorch broadcasts a
// reference 197x1x1536 with a runtime 197x1536 into 197x197x1536 (60 million
// pairs, most of a ViT-S run's time); here, per index of the dimensions both
// sides share, the P reference values meet the Q runtime values:
//   Σ (a−b)² = Q·Σa² + P·Σb² − 2·Σa·Σb
//   Σ |a−b|  from both sides sorted and a prefix sum (a merge walk)
//   Σ a²     = Q·Σa²
// Formulas: docs/metrics.md. Returns nothing (use the element walk) when an
// operand is a scalar, holds a NaN or an infinity (ExecuTorch's special
// cases), is beyond kMaxElements, or the shapes do not broadcast.
struct BroadcastSums {
    double mse = 0, l1 = 0, snr = 0;
};
std::optional<BroadcastSums> executorchBroadcastGap(const Operand& reference, const Operand& runtime);

} // namespace gapscope
