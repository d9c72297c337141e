#pragma once

#include "core/compare/comparison_value.h"
#include "core/compare/element_reader.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gapscope {

// One compared element of a row: what the comparison planned, and the metrics
// measured for it (null while unmeasured, or when the row's gaps do not hold one
// entry per element and an index could name another's).
struct RowElement {
    const ElementPlan* plan = nullptr;
    const GapMetrics* measured = nullptr;
};
RowElement rowElement(const ComparisonRow& row, std::size_t element);

// What the A/B tensor panel reads of one pairing (docs/compare-runs.md): each
// row's compared element through its own ElementReader, so each side shows
// exactly what its metrics compared (dequantised, in the reference's layout,
// after nan_to_num where that side holds a NaN).
struct PairTensors {
    std::optional<ElementReader> a, b; // empty where that side has nothing to read
    // The shape both sides show: A's reference's. B's may differ from it by
    // size-1 dimensions only (the same elements in the same order); empty when
    // the two are not one tensor.
    std::vector<std::int64_t> shape;
    // "" when the two runtime tensors can be subtracted element for element;
    // otherwise why not, for the user ("B has no partner for this row", "A
    // compares 1x8x16x16 and B 1x16x8x8: not one tensor").
    std::string problem;
};

// Either row may be null (a row of one run only).
PairTensors pairTensors(const ComparisonRow* a, const ComparisonRow* b, std::size_t element = 0);

// B's runtime tensor against A's, over every element (not only the slice shown).
struct PairDifference {
    std::uint64_t elements = 0;
    std::uint64_t differing = 0;  // elements where B's value is not A's
    std::uint64_t non_finite = 0; // B − A not a number (∞ − ∞): left out of the figures
    double max_abs = 0;           // max |B − A|
    std::uint64_t max_at = 0;     // the first element where it occurs
    double rms = 0;               // sqrt(mean((B − A)²))
    double reference_max_abs = 0; // max |ref_B − ref_A|: 0 when both captures hold one reference
};

// Null when `pair` has a problem, or once `cancelled` is set.
std::optional<PairDifference> measurePairDifference(const PairTensors& pair,
                                                    const std::atomic<bool>* cancelled = nullptr);

} // namespace gapscope
