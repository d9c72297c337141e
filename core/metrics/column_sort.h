#pragma once

#include <cstddef>
#include <cstdint>

namespace gapscope {

// Sorts kSortColumns columns of unsigned keys at once, each ascending on its
// own: keys[r * kSortColumns + c] is row r of column c, and `rows` is a power
// of two (pad with UINT32_MAX, which sorts last). A bitonic network whose
// compare-exchanges are vertical: one vector min and max sort a row pair of
// all eight columns, with no branch and no shuffle. The closed form of
// ExecuTorch's broadcast gap sorts thousands of groups of ~200 values: eight
// at a time this way, a group costs a fraction of a radix sort's count-table
// round trips. AVX2 where the machine has it (fastColumnSort), the same
// network in scalar code otherwise; the order is the keys' total order either
// way, so the result is that of any correct sort.
constexpr std::size_t kSortColumns = 8;

// Whether the AVX2 network is in use: the machine has AVX2 and tests have not
// turned it off (allowFastColumnSort(false) compares the paths).
bool fastColumnSort();
void allowFastColumnSort(bool allowed);
void sortColumns(std::uint32_t* keys, std::size_t rows);

} // namespace gapscope
