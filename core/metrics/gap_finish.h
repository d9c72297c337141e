#pragma once

#include "core/metrics/gap_accumulator.h"
#include "core/metrics/gap_metrics.h"
#include "core/metrics/top_k_agreement.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace gapscope {

// The metrics from the sums (every path of computeGap and computeGaps ends
// here), and the top-k agreement of logits-shaped outputs. `channels`: the
// breakdown's sums along `breakdown`, if any.
void finishGap(GapMetrics& m, const GapAccumulator& acc, const std::vector<GapAccumulator>& channels,
               std::uint64_t total, const std::vector<std::int64_t>& out,
               std::optional<std::size_t> breakdown, TopKAgreement& ranks, const GapOptions& options);

} // namespace gapscope
