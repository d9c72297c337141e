#include "core/metrics/lane_sums.h"

#include "core/common/cpu_features.h"

#if defined(__GNUC__) && defined(__x86_64__)
#define GAPSCOPE_LANE_SUMS_AVX2 1
#include <immintrin.h>
#endif

// The AVX2 function keeps its vectors to itself (what -Wpsabi warns of).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace gapscope {

bool haveLaneSums() {
#ifdef GAPSCOPE_LANE_SUMS_AVX2
    return cpuHasAvx2();
#else
    return false;
#endif
}

#ifdef GAPSCOPE_LANE_SUMS_AVX2
// Knuth's TwoSum gives the exact rounding error of s + x whatever the
// magnitudes, the very value Neumaier's two branches compute, so each lane's
// compensation takes Sum::add's additions. Sum::add skips the compensation once
// s is no longer finite, and s never returns to finite; Sum::value then
// returns s alone, as it does for these lanes whatever their compensation
// holds. Only adds and multiplies: the AVX2 target enables no FMA, and the
// build passes -ffp-contract=off.
namespace {

__attribute__((target("avx2"))) void laneSumsAvx2(const double* rows, std::size_t n, Sum sum[8],
                                                  Sum square[8]) {
    const __m256d zero = _mm256_setzero_pd();
    __m256d s[2] = {zero, zero}, c[2] = {zero, zero}, s2[2] = {zero, zero}, c2[2] = {zero, zero};
    for (std::size_t p = 0; p < n; ++p)
        for (int h = 0; h < 2; ++h) {
            const __m256d x = _mm256_loadu_pd(rows + p * 8 + 4 * h);
            const __m256d xx = _mm256_mul_pd(x, x);
            __m256d t = _mm256_add_pd(s[h], x);
            __m256d z = _mm256_sub_pd(t, s[h]);
            c[h] = _mm256_add_pd(
                c[h], _mm256_add_pd(_mm256_sub_pd(s[h], _mm256_sub_pd(t, z)), _mm256_sub_pd(x, z)));
            s[h] = t;
            t = _mm256_add_pd(s2[h], xx);
            z = _mm256_sub_pd(t, s2[h]);
            c2[h] = _mm256_add_pd(
                c2[h], _mm256_add_pd(_mm256_sub_pd(s2[h], _mm256_sub_pd(t, z)), _mm256_sub_pd(xx, z)));
            s2[h] = t;
        }
    double out[4][8];
    for (int h = 0; h < 2; ++h) {
        _mm256_storeu_pd(&out[0][4 * h], s[h]);
        _mm256_storeu_pd(&out[1][4 * h], c[h]);
        _mm256_storeu_pd(&out[2][4 * h], s2[h]);
        _mm256_storeu_pd(&out[3][4 * h], c2[h]);
    }
    for (int j = 0; j < 8; ++j) {
        sum[j] = Sum{out[0][j], out[1][j]};
        square[j] = Sum{out[2][j], out[3][j]};
    }
}

} // namespace
#endif

void laneSumsScalar(const double* rows, std::size_t n, Sum sum[8], Sum square[8]) {
    for (int j = 0; j < 8; ++j) {
        sum[j] = Sum{};
        square[j] = Sum{};
        for (std::size_t p = 0; p < n; ++p) {
            sum[j].add(rows[p * 8 + j]);
            square[j].add(rows[p * 8 + j] * rows[p * 8 + j]);
        }
    }
}

void laneSums(const double* rows, std::size_t n, Sum sum[8], Sum square[8]) {
#ifdef GAPSCOPE_LANE_SUMS_AVX2
    if (haveLaneSums())
        return laneSumsAvx2(rows, n, sum, square);
#endif
    laneSumsScalar(rows, n, sum, square);
}

} // namespace gapscope
