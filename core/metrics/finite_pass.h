#pragma once

#include "core/metrics/gap_accumulator.h"
#include "core/metrics/gap_metrics.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace gapscope {

// Shared with computeGap's general path: the sums of contiguous tensors are
// formed per chunk of kGapChunk elements and merged in chunk order, on both
// paths alike, which is what keeps their results bit-identical.
constexpr std::uint64_t kGapChunk = 1u << 20;
constexpr std::size_t kGapBlock = 4096; // elements decoded at a time
inline bool gapCancelled(const std::atomic<bool>* cancelled) {
    return cancelled && cancelled->load(std::memory_order_relaxed);
}

// computeGap's common case: same-shape tensors with no layout transform and at
// most a per-tensor dequantisation, every value finite. One pass of
// GapAccumulator::addFinite per 2^20-element chunk, on every thread, four
// chunks at a time in the lanes of one vector where the machine has them,
// float32 read in place. The sums merged in chunk order, or nothing when a
// value is not finite or the transform is not per-tensor (the general path
// then counts and converts them).
std::optional<GapAccumulator> finitePass(const Operand& aot, const Operand& runtime, std::uint64_t total,
                                         const GapOptions& options);

} // namespace gapscope
