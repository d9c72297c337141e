#pragma once

#include "core/compare/element_plan.h"
#include "core/metrics/element_layout.h"
#include "core/metrics/element_rule.h"

#include <atomic>
#include <cstdint>
#include <optional>
#include <vector>

namespace gapscope {

// Reads a measurable element the way computeGap compares it, one reference
// position at a time, through the same ElementLayout (which runtime element,
// which channel) and the same ElementRule (dequantisation, nan_to_num): the
// reference value and the runtime value the metrics used for that position,
// and the raw device value. Every view of a row (heatmaps, histogram, scatter,
// per-channel bars, worst elements) reads through this, so it shows exactly
// the numbers the metrics saw.
class ElementReader {
public:
    // Null when the plan is not measurable or the runtime value does not map
    // element for element onto the reference (a broadcast or a scalar).
    // `measured`: the metrics of this plan, whose NaN counts tell which side
    // nan_to_num converts; without them both tensors are scanned once.
    static std::optional<ElementReader> of(const ElementPlan& plan, const GapMetrics* measured = nullptr);

    const std::vector<std::int64_t>& shape() const { return m_plan->reference.shape(); } // reference layout
    std::uint64_t numel() const { return m_plan->reference.numel; }
    bool dequantizes() const { return m_plan->options.runtime_transform.dequantizes(); }

    double reference(std::uint64_t flat) const;  // as the metrics compared it
    double runtimeRaw(std::uint64_t flat) const; // as the device stored it
    double runtime(std::uint64_t flat) const;    // as the metrics compared it
    // A side holds a NaN, so the metrics (as ExecuTorch's) compared it after
    // nan_to_num: NaN as 0, ±Inf as ±max. The views say so.
    const ElementRule& rule() const { return m_rule; }
    // The index of the runtime storage holding reference position `flat`.
    std::uint64_t runtimeIndex(std::uint64_t flat) const;
    // The axis a per-channel breakdown uses: the quantisation axis when the
    // device quantised per channel, else 1 (channels of PyTorch's NCHW-style
    // reference layout) for rank ≥ 2, else 0.
    std::int64_t channelAxis() const;
    const ElementPlan& plan() const { return *m_plan; }

private:
    ElementReader(const ElementPlan& plan, ElementLayout layout, ElementRule rule)
        : m_plan(&plan), m_layout(std::move(layout)), m_rule(rule) {}
    const ElementPlan* m_plan;
    ElementLayout m_layout;
    ElementRule m_rule;
};

// The n positions with the largest |reference − runtime|, largest first, read
// through `reader` (reference coordinates); nothing once `cancelled` is set.
std::vector<ElementDifference> largestDifferences(const ElementReader& reader, std::size_t n,
                                                  const std::atomic<bool>* cancelled = nullptr);

} // namespace gapscope
