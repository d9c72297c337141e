#pragma once

#include "core/metrics/gap_metrics.h"
#include "core/metrics/operand.h"

#include <vector>

namespace gapscope {

// One pair for computeGaps; every pointer outlives the call.
struct GapPair {
    const Operand* aot = nullptr;
    const Operand* runtime = nullptr;
    const GapOptions* options = nullptr;
};

// Whether computeGaps takes the pair into its lanes: float32 on both sides,
// the same shape, no transform, no breakdown, and every element in one
// chunk (kGapChunk), whose sums are then one lane's from start to end.
bool fitsGapLanes(const Operand& aot, const Operand& runtime, const GapOptions& options);

// computeGap of each pair, bit for bit. Pairs that fit the lanes go four at a
// time, each pair in a lane of one vector (GapAccumulator::addFiniteFourFloat):
// a tensor of one chunk is otherwise summed alone, one dependent step an
// element, which left most of the vector unit idle (half of `compare
// --all-runs` on a 65-step LLM session of 239 rows of 17,424 elements). The
// others, the last few, and a pair holding a value that is not finite are
// measured by computeGap. A group of four with a lane cancelled is cancelled
// whole (its pairs share their caller's flag).
std::vector<GapResult> computeGaps(const std::vector<GapPair>& pairs);

} // namespace gapscope
