#pragma once

// The compensated sums' steps on vectors, shared by GapAccumulator's two
// files: gap_accumulator.cpp (one chunk a call) and gap_accumulator_four.cpp
// (four chunks in the lanes of one vector). Included by those alone: it
// sets their diagnostics and defines ALWAYS_INLINE.

#include <cstddef>
#include <cstdint>
#include <cstring>

// Every helper taking or giving a vector is always inlined, even at -O0: a
// real call between the AVX2 functions and code compiled without AVX would
// pass the vector in a different way on each side (what -Wpsabi warns of).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
// GCC 12 at -O2 takes DoubleLanes::get's whole-vector assignment for a read
// of x[k] and y[k] before four() writes them (the release build warned so
// before the body was compiled twice); every element is written first.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#define ALWAYS_INLINE inline __attribute__((always_inline))

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define GAPSCOPE_HAVE_AVX2_PATH 1
#endif

namespace gapscope::compensated {

// The five sums side by side in vectors (GCC/Clang vector extensions): four
// in one vector of four doubles where the machine has AVX2, else two by two
// in SSE2 pairs, which every x86-64 machine has. Each lane is its own sum
// taking the same values in the same order as Sum::add: vectorising across
// the sums, not across the elements, keeps every result bit-identical on every
// machine and either path. (Only plain adds and multiplies: C++17 without GNU
// extensions does not contract a multiply and an add into an FMA, and the
// one FMA written, FusedAdds, multiplies by one: an exact add.)
using V2 = double __attribute__((vector_size(16)));
using V4 = double __attribute__((vector_size(32)));

// The adds of twoSum and fastTwoSum that may run elsewhere: plainly, or on
// the multiply-add units (FusedAdds).
struct PlainAdds {
    // a += b; out = a - b. (In place, no vector returned: a call between code
    // built for different targets would pass one differently, -Wpsabi.)
    template <typename V> static ALWAYS_INLINE void add(V& a, const V& b) { a += b; }
    template <typename V> static ALWAYS_INLINE void sub(V& out, const V& a, const V& b) { out = a - b; }
};

// Sum::add, lane by lane, without branches. Knuth's TwoSum gives the exact
// rounding error of s + x whatever the magnitudes, which is the very value
// Neumaier's two branches compute, so c takes the same additions. Sum::add
// skips the compensation once s is infinite or NaN; here it is not skipped,
// and the caller discards sums that left the finite range (allFinite).
template <typename V, typename Adds = PlainAdds> ALWAYS_INLINE void twoSum(V& s, V& c, const V& x) {
    const V t = s + x;
    const V z = t - s;
    V xz;
    Adds::sub(xz, x, z);
    Adds::add(c, (s - (t - z)) + xz);
    s = t;
}

// Neumaier's first branch alone, for sums of non-negative terms: exact (and
// Sum::add's very arithmetic) while s ≥ x. `missed` records any step where it
// was not, and the caller then redoes the elements with twoSum.
template <typename V, typename M, typename Adds = PlainAdds>
ALWAYS_INLINE void fastTwoSum(V& s, V& c, const V& x, M& missed) {
    missed |= s < x;
    const V t = s + x;
    V e = s - t;
    Adds::add(e, x);
    Adds::add(c, e);
    s = t;
}

// Whether the wide paths run: the CPU has them, and tests have not turned
// them off (GapAccumulator::allowWideVectors, allowAvx512Registers).
bool haveAvx2();
bool haveAvx512();

// Element i of raw little-endian float32 bytes (unaligned-safe).
ALWAYS_INLINE double floatAt(const std::uint8_t* base, std::size_t i) {
    float v;
    std::memcpy(&v, base + i * sizeof(float), sizeof v);
    return static_cast<double>(v);
}

// The elements every block starts with that take the exact sums whatever
// their values. fastTwoSum misses wherever a term exceeds the sum so far,
// which the first few terms of a fresh sum do about half the time: the whole
// block was then summed twice (a quarter of the summing of a tensor of 17,424
// elements). After a few dozen terms a miss takes an outlier.
constexpr std::size_t kExactPrologue = 32;

} // namespace gapscope::compensated
