#pragma once

#include "core/compare/comparison_row.h"
#include "core/compare/comparison_value.h"
#include "core/compare/element_plan.h"

#include <cstddef>
#include <memory>
#include <vector>

namespace gapscope {

struct RowPlan {
    std::size_t row = 0;
    // The row's identity, whose plans are what the row measures: held, not
    // copied (a copy of every element plan was a tenth of opening 50,000 ops).
    std::shared_ptr<const RowIdentity> identity;
    const std::vector<ElementPlan>& elements() const;
    // When ExecuTorch pairs the runtime value with another reference
    // (AlignedPair::executorch_record): its elements, for its own numbers only.
    std::vector<ElementPlan> executorch_elements;
};
struct RowMeasurement {
    std::size_t row = 0;
    std::vector<ElementResult> elements;
    // Read beside the measurement, while the row's pages are still resident.
    std::shared_ptr<const ReferenceProbe> reference_probe;
};
struct PlannedComparison {
    Comparison comparison;        // rows in `pending` have measured == false
    std::vector<RowPlan> pending; // in row order
    // The events built before the capture were this plan's, and so was the
    // runtime side that came with them (tests, benchmarks).
    bool events_taken = false, runtime_taken = false;
};

} // namespace gapscope
