#include "core/metrics/column_sort.h"

#include "core/common/cpu_features.h"

#include <algorithm>
#include <atomic>

// The AVX2 function keeps its vectors to itself (what -Wpsabi warns of).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

#if defined(__GNUC__) && defined(__x86_64__)
#define GAPSCOPE_COLUMN_SORT_AVX2 1
#include <immintrin.h>
#endif

namespace gapscope {

namespace {

std::atomic<bool> allowed{true};

// The network: for every merge size k and distance j, the pairs (i, i + j)
// with bit j of i clear, ascending where bit k of i is clear. `exchange`
// orders one row pair of every column.
template <typename Exchange> void bitonic(std::size_t rows, Exchange exchange) {
    for (std::size_t k = 2; k <= rows; k <<= 1)
        for (std::size_t j = k >> 1; j > 0; j >>= 1)
            for (std::size_t base = 0; base < rows; base += 2 * j) {
                const bool ascending = (base & k) == 0;
                for (std::size_t t = 0; t < j; ++t)
                    exchange(base + t, base + t + j, ascending);
            }
}

#ifdef GAPSCOPE_COLUMN_SORT_AVX2
// The same network written out: a lambda would not inherit the AVX2 target.
__attribute__((target("avx2"))) void sortColumnsAvx2(std::uint32_t* keys, std::size_t rows) {
    static_assert(kSortColumns * sizeof(std::uint32_t) == sizeof(__m256i), "one row is one AVX2 vector");
    auto* row = reinterpret_cast<__m256i*>(keys);
    for (std::size_t k = 2; k <= rows; k <<= 1)
        for (std::size_t j = k >> 1; j > 0; j >>= 1)
            for (std::size_t base = 0; base < rows; base += 2 * j) {
                const bool ascending = (base & k) == 0;
                for (std::size_t t = base; t < base + j; ++t) {
                    const __m256i x = _mm256_loadu_si256(row + t), y = _mm256_loadu_si256(row + t + j);
                    const __m256i lo = _mm256_min_epu32(x, y), hi = _mm256_max_epu32(x, y);
                    _mm256_storeu_si256(row + t, ascending ? lo : hi);
                    _mm256_storeu_si256(row + t + j, ascending ? hi : lo);
                }
            }
}
#endif

} // namespace

bool fastColumnSort() {
#ifdef GAPSCOPE_COLUMN_SORT_AVX2
    return cpuHasAvx2() && allowed.load(std::memory_order_relaxed);
#else
    return false;
#endif
}

void allowFastColumnSort(bool on) {
    allowed.store(on, std::memory_order_relaxed);
}

void sortColumns(std::uint32_t* keys, std::size_t rows) {
#ifdef GAPSCOPE_COLUMN_SORT_AVX2
    if (fastColumnSort())
        return sortColumnsAvx2(keys, rows);
#endif
    bitonic(rows, [keys](std::size_t a, std::size_t b, bool ascending) {
        for (std::size_t c = 0; c < kSortColumns; ++c) {
            std::uint32_t& x = keys[a * kSortColumns + c];
            std::uint32_t& y = keys[b * kSortColumns + c];
            if ((x > y) == ascending)
                std::swap(x, y);
        }
    });
}

} // namespace gapscope
