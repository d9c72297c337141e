#pragma once

#include "core/align/op_names_within.h"
#include "core/compare/comparison_value.h"
#include "core/compare/row_plan.h"

#include <cstddef>

namespace gapscope {

// The row of one aligned pair (index `index` in ExecuTorch's order), and in
// `plan` what it measures: planned from const inputs alone, so planComparison
// plans blocks of rows on every core.
ComparisonRow planRow(const AlignedPair& pair, std::size_t index, const EtDump& dump,
                      const AotCapture& capture, const OpNamesWithin& names, RowPlan& plan);

} // namespace gapscope
