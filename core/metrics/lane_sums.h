#pragma once

#include "core/metrics/compensated_sum.h"

#include <cstddef>

namespace gapscope {

// Eight compensated sums side by side, over values laid out a sum a lane:
// rows[p * 8 + j] is value p of sum j. sum[j] and square[j] receive exactly
// what Sum::add over the values, and over their squares, would hold (see the
// .cpp for why). AVX2 where the CPU has it (haveLaneSums()), otherwise
// laneSumsScalar: the same sums lane by lane with Sum::add.
bool haveLaneSums();
void laneSums(const double* rows, std::size_t n, Sum sum[8], Sum square[8]);

// The scalar lanes, compiled everywhere so that their agreement with the AVX2
// ones is tested on x86 too.
void laneSumsScalar(const double* rows, std::size_t n, Sum sum[8], Sum square[8]);

} // namespace gapscope
