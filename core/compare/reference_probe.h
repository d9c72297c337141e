#pragma once

#include "core/compare/element_plan.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gapscope {

// A few of a row's reference values at fixed places: enough to tell whether two
// runs' rows compare one tensor (issue 56: an XNNPACK group's output paired with
// QNN's linear "op, in order" was ranked worst by ∞, though the two references
// differed by 2.35 on values of about ±2). Reports keep it, so a saved baseline
// is judged as a session is (docs/compare-runs.md).
struct ReferenceProbe {
    // Every compared element of the row (all its outputs, in order); 0: unknown.
    std::uint64_t elements = 0;
    // The values at positions ⌊i·elements/kReferenceProbeSize⌋ (all of them when
    // fewer), as float64.
    std::vector<double> values;
};
constexpr std::size_t kReferenceProbeSize = 16;

// The probe of a row's elements, from their reference operands; unknown (0
// elements) when one of them is not measurable or a number.
ReferenceProbe probeReferences(const std::vector<ElementPlan>& plans);

} // namespace gapscope
