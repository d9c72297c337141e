#pragma once

#include "core/metrics/gap_accumulator.h"
#include "core/metrics/gap_metrics.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>

namespace gapscope {

// Shared with computeGap's general path: the sums of contiguous tensors are
// formed per chunk of kGapChunk elements and merged in chunk order, on both
// paths alike, which is what keeps their results bit-identical.
constexpr std::uint64_t kGapChunk = 1u << 20;
constexpr std::size_t kGapBlock = 4096; // elements decoded at a time
// The decode buffer a pass over `elements` needs: a small tensor's pass zeroed
// whole 4096-element blocks (on 50,000 ops of 16 elements, a fifth of the run).
inline std::size_t gapBlockFor(std::uint64_t elements) {
    return static_cast<std::size_t>(std::min<std::uint64_t>(kGapBlock, elements));
}
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
//
// blockDone, when given, is called on the calling thread with the number of
// elements passed so far, after each block of a tensor of fewer than four
// chunks: one lane group, run in element order on the calling thread (the
// top-k ranking then reads each block while it is in cache). Never for larger
// tensors, whose chunks go through the lanes together.
using BlockDone = std::function<void(std::uint64_t end)>;
std::optional<GapAccumulator> finitePass(const Operand& aot, const Operand& runtime, std::uint64_t total,
                                         const GapOptions& options, const BlockDone& blockDone = {});

} // namespace gapscope
