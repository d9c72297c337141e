#pragma once

#include "core/metrics/compensated_sum.h"

#include <cstddef>
#include <cstdint>

namespace gapscope {

// The running sums of computeGap over some elements (d = a − b): Neumaier sums
// of d², |d|, a², b² and a·b, the first largest |d| and where it is.
struct GapAccumulator {
    Sum d2, d1, a2, b2, ab;
    double maxAbs = -1;
    std::uint64_t maxAt = 0;
    std::uint64_t saturated = 0;
    std::uint64_t agreeing = 0; // positions where both sides hold the same infinity

    // Folds a later chunk in; chunks merge in index order, so the result does not
    // depend on how many threads ran them.
    void merge(const GapAccumulator& o);

    // Adds elements flat0 … flat0 + n − 1 whose values are a[i] and b[i], in
    // order: the same arithmetic as one Sum::add per sum per element, so the
    // sums are bit-for-bit those of the element-by-element path, provided every
    // sum stays finite. An infinite or NaN value, or an overflow, leaves some sum
    // non-finite (allFinite is false), and the caller must then redo the
    // elements on the path that handles them.
    void addFinite(const double* a, const double* b, std::size_t n, std::uint64_t flat0);
    // The same on float32 tensors read in place, a and b pointing at the raw
    // little-endian bytes of element flat0: no decoding pass, the same sums.
    // False, doing nothing, where the machine lacks the vectors (AVX2); the
    // caller then decodes and calls addFinite.
    bool addFiniteFloat(const std::uint8_t* a, const std::uint8_t* b, std::size_t n, std::uint64_t flat0);

    // addFinite on four accumulators at once, a[j] and b[j] (n elements from
    // flat0[j]) going to acc[j]: the same results as four calls, computed in
    // the lanes of one vector. False, doing nothing, where the machine lacks
    // the vectors (AVX2); the caller then makes the four calls.
    static bool addFiniteFour(GapAccumulator* const acc[4], const double* const a[4],
                              const double* const b[4], std::size_t n, const std::uint64_t flat0[4]);
    // The same on float32 tensors read in place: a[j] and b[j] point at the
    // raw little-endian bytes of element flat0[j].
    static bool addFiniteFourFloat(GapAccumulator* const acc[4], const std::uint8_t* const a[4],
                                   const std::uint8_t* const b[4], std::size_t n,
                                   const std::uint64_t flat0[4]);

    // Off, every machine takes the baseline path (SSE2 pairs, one chunk at a
    // time), which tests compare with the wide one; on by default.
    static void allowWideVectors(bool allowed);
    // Off, the four-lane sums take the AVX2 build even where AVX-512 is there
    // (its registers only: the same operations), for tests; on by default.
    static void allowAvx512Registers(bool allowed);

    // False when a sum is infinite or NaN: some a or b was, or a sum overflowed.
    bool allFinite() const;
};

} // namespace gapscope
