#pragma once

#include "core/metrics/compensated_sum.h"

#include <cstddef>

namespace gapscope {

// Eight compensated sums side by side, over values laid out a sum a lane:
// rows[p * 8 + j] is value p of sum j. sum[j] and square[j] receive exactly
// what Sum::add over the values, and over their squares, would hold (see the
// .cpp for why). AVX2 only: callers check haveLaneSums() and otherwise add
// lane by lane with Sum.
bool haveLaneSums();
void laneSums(const double* rows, std::size_t n, Sum sum[8], Sum square[8]);

} // namespace gapscope
