#include "core/metrics/gap_accumulator.h"

#include "core/common/cpu_features.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstring>
#include <utility>

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

namespace gapscope {

namespace {

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

#if defined(__GNUC__) && !defined(__clang__) && (defined(__x86_64__) || defined(__i386__))
#define GAPSCOPE_FUSED_ADDS 1
// The four-lane sums take some twenty adds an element and a handful of
// multiplies: the add units were the bottleneck while the multiply-add units
// idled. fma(a, 1, b) rounds a·1 + b, which is exactly a + b, once: the same
// sum to the bit, on the other units (and -(b·1) + a is a - b). Written as
// assembly because compilers may fold a multiply by one back into an add;
// only the AVX-512 build takes it (every AVX-512 core has FMA), and only
// GCC's: Clang checks a 256-bit operand against the helper's own target, not
// the caller's it is inlined into, and keeps the plain adds. Moving ten of
// the twenty-four adds an element made the sums 12% faster on Zen 4
// (docs/performance.md).
struct FusedAdds {
    static ALWAYS_INLINE void add(V4& a, const V4& b) {
        // b·1 + a would tie the running sum a to the instruction's
        // destination: measurably slower than a·1 + b into a copy of b.
        const V4 one = {1.0, 1.0, 1.0, 1.0};
        V4 r = b;
        asm("vfmadd231pd %1, %2, %0" : "+v"(r) : "v"(a), "v"(one));
        a = r;
    }
    static ALWAYS_INLINE void sub(V4& out, const V4& a, const V4& b) {
        const V4 one = {1.0, 1.0, 1.0, 1.0};
        out = a;
        asm("vfnmadd231pd %1, %2, %0" : "+v"(out) : "v"(b), "v"(one));
    }
};
#endif

struct Largest {
    double value;
    std::size_t at;
};

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define GAPSCOPE_HAVE_AVX2_PATH 1
#endif

std::atomic<bool> allowAvx2{true}, allowAvx512{true};

bool haveAvx2() {
    return cpuHasAvx2() && allowAvx2.load(std::memory_order_relaxed);
}

bool haveAvx512() {
    return haveAvx2() && cpuHasAvx512vl() && allowAvx512.load(std::memory_order_relaxed);
}

#ifdef GAPSCOPE_HAVE_AVX2_PATH
// Element i of a source as a double: decoded values, or float32 tensors read
// in place (the conversion is exact, so both give the same sums).
struct DoubleAt {
    const double* p;
    ALWAYS_INLINE double operator()(std::size_t i) const { return p[i]; }
    DoubleAt from(std::size_t i) const { return {p + i}; }
};
// Element i of raw little-endian float32 bytes (unaligned-safe).
ALWAYS_INLINE double floatAt(const std::uint8_t* base, std::size_t i) {
    float v;
    std::memcpy(&v, base + i * sizeof(float), sizeof v);
    return static_cast<double>(v);
}
struct FloatAt {
    const std::uint8_t* p;
    ALWAYS_INLINE double operator()(std::size_t i) const { return floatAt(p, i); }
    FloatAt from(std::size_t i) const { return {p + i * sizeof(float)}; }
};

// One chunk: the four sums of non-negative terms in the lanes of one vector.
// Speculate as in addFourWide: false when the caller must restore and redo.
template <bool Speculate, typename At>
__attribute__((target("avx2"))) bool addWide(GapAccumulator& acc, At at, At bt, std::size_t n,
                                             Largest& largest) {
    using M4 = long long __attribute__((vector_size(32)));
    V4 s = {acc.d2.s, acc.d1.s, acc.a2.s, acc.b2.s}, c = {acc.d2.c, acc.d1.c, acc.a2.c, acc.b2.c};
    double sx = acc.ab.s, cx = acc.ab.c;
    double most = largest.value;
    std::size_t mostAt = n;
    M4 missed = {};
    for (std::size_t i = 0; i < n; ++i) {
        const double a = at(i), b = bt(i);
        const double d = a - b;
        const double size = std::fabs(d);
        if constexpr (Speculate)
            fastTwoSum(s, c, V4{d * d, size, a * a, b * b}, missed);
        else
            twoSum(s, c, V4{d * d, size, a * a, b * b});
        twoSum(sx, cx, a * b);
        if (size > most) {
            most = size;
            mostAt = i;
        }
    }
    acc.d2 = {s[0], c[0]};
    acc.d1 = {s[1], c[1]};
    acc.a2 = {s[2], c[2]};
    acc.b2 = {s[3], c[3]};
    acc.ab = {sx, cx};
    largest = {most, mostAt};
    return !(missed[0] | missed[1] | missed[2] | missed[3]);
}
#endif

Largest addNarrow(GapAccumulator& acc, const double* a, const double* b, std::size_t n, double most) {
    V2 sd = {acc.d2.s, acc.d1.s}, cd = {acc.d2.c, acc.d1.c}, ss = {acc.a2.s, acc.b2.s},
       cs = {acc.a2.c, acc.b2.c};
    double sx = acc.ab.s, cx = acc.ab.c;
    std::size_t mostAt = n;
    for (std::size_t i = 0; i < n; ++i) {
        const double d = a[i] - b[i];
        const double size = std::fabs(d);
        twoSum(sd, cd, V2{d * d, size});
        twoSum(ss, cs, V2{a[i] * a[i], b[i] * b[i]});
        twoSum(sx, cx, a[i] * b[i]);
        if (size > most) {
            most = size;
            mostAt = i;
        }
    }
    acc.d2 = {sd[0], cd[0]};
    acc.d1 = {sd[1], cd[1]};
    acc.a2 = {ss[0], cs[0]};
    acc.b2 = {ss[1], cs[1]};
    acc.ab = {sx, cx};
    return {most, mostAt};
}

// The i-th element of four sources as one vector (lane j from source j), one
// at a time or four at a time: float64 buffers, or raw float32 tensor bytes
// read in place (no decoding pass), four consecutive floats of each source
// converted together and transposed.
struct DoubleLanes {
    std::array<const double*, 4> p;
    DoubleLanes from(std::size_t i) const { return {{p[0] + i, p[1] + i, p[2] + i, p[3] + i}}; }
    ALWAYS_INLINE void get(std::size_t i, V4& out) const { out = V4{p[0][i], p[1][i], p[2][i], p[3][i]}; }
    ALWAYS_INLINE void four(std::size_t i, V4 out[4]) const {
        for (int k = 0; k < 4; ++k)
            get(i + static_cast<std::size_t>(k), out[k]);
    }
};
struct FloatLanes {
    using F4 = float __attribute__((vector_size(16)));
    std::array<const std::uint8_t*, 4> p;
    FloatLanes from(std::size_t i) const {
        const std::size_t bytes = i * sizeof(float);
        return {{p[0] + bytes, p[1] + bytes, p[2] + bytes, p[3] + bytes}};
    }
    ALWAYS_INLINE static void row(const std::uint8_t* base, std::size_t i, V4& out) {
        F4 f;
        std::memcpy(&f, base + i * sizeof(float), sizeof f);
        out = __builtin_convertvector(f, V4);
    }
    ALWAYS_INLINE void get(std::size_t i, V4& out) const {
        out = V4{floatAt(p[0], i), floatAt(p[1], i), floatAt(p[2], i), floatAt(p[3], i)};
    }
    ALWAYS_INLINE void four(std::size_t i, V4 out[4]) const {
        V4 r0, r1, r2, r3;
        row(p[0], i, r0);
        row(p[1], i, r1);
        row(p[2], i, r2);
        row(p[3], i, r3);
        const V4 t0 = __builtin_shufflevector(r0, r1, 0, 4, 2, 6),
                 t1 = __builtin_shufflevector(r0, r1, 1, 5, 3, 7);
        const V4 t2 = __builtin_shufflevector(r2, r3, 0, 4, 2, 6),
                 t3 = __builtin_shufflevector(r2, r3, 1, 5, 3, 7);
        out[0] = __builtin_shufflevector(t0, t2, 0, 1, 4, 5);
        out[1] = __builtin_shufflevector(t1, t3, 0, 1, 4, 5);
        out[2] = __builtin_shufflevector(t0, t2, 2, 3, 6, 7);
        out[3] = __builtin_shufflevector(t1, t3, 2, 3, 6, 7);
    }
};

// The five sums of four accumulators, lane j holding accumulator j.
template <bool Speculate, typename Adds> struct LaneSums {
    using M4 = long long __attribute__((vector_size(32)));
    V4 sd2, cd2, sd1, cd1, sa2, ca2, sb2, cb2, sab, cab, most;
    // Where each lane's maximum is (an element count from the call's start;
    // `none` when it kept the one it came with), and the element the next
    // add takes: integer lanes, counted without a conversion a step.
    M4 at, position = {};
    M4 missed = {}; // with Speculate: a step where a term exceeded its sum
    LaneSums(GapAccumulator* const acc[4], long long none) {
        for (int j = 0; j < 4; ++j) {
            sd2[j] = acc[j]->d2.s, cd2[j] = acc[j]->d2.c, sd1[j] = acc[j]->d1.s, cd1[j] = acc[j]->d1.c;
            sa2[j] = acc[j]->a2.s, ca2[j] = acc[j]->a2.c, sb2[j] = acc[j]->b2.s, cb2[j] = acc[j]->b2.c;
            sab[j] = acc[j]->ab.s, cab[j] = acc[j]->ab.c, most[j] = acc[j]->maxAbs, at[j] = none;
        }
    }

    ALWAYS_INLINE void add(const V4& x, const V4& y) {
        const M4 absMask = {0x7fffffffffffffffLL, 0x7fffffffffffffffLL, 0x7fffffffffffffffLL,
                            0x7fffffffffffffffLL};
        const V4 d = x - y;
        const V4 size = reinterpret_cast<V4>(reinterpret_cast<M4>(d) & absMask);
        if constexpr (Speculate) {
            fastTwoSum<V4, M4, Adds>(sd2, cd2, d * d, missed);
            fastTwoSum<V4, M4, Adds>(sd1, cd1, size, missed);
            fastTwoSum<V4, M4, Adds>(sa2, ca2, x * x, missed);
            fastTwoSum<V4, M4, Adds>(sb2, cb2, y * y, missed);
        } else {
            twoSum<V4, Adds>(sd2, cd2, d * d);
            twoSum<V4, Adds>(sd1, cd1, size);
            twoSum<V4, Adds>(sa2, ca2, x * x);
            twoSum<V4, Adds>(sb2, cb2, y * y);
        }
        twoSum<V4, Adds>(sab, cab, x * y);
        const M4 grew = size > most; // strictly: the first of equal maxima stays
        most = grew ? size : most;
        at = grew ? position : at;
        position += 1;
    }

    // Whether a speculative pass took fastTwoSum's branch at every step.
    bool exact() const { return !(missed[0] | missed[1] | missed[2] | missed[3]); }

    // Back into the accumulators; mostAt[j] = n when lane j kept its maximum.
    void store(GapAccumulator* const acc[4], std::size_t n, std::size_t mostAt[4]) const {
        for (int j = 0; j < 4; ++j) {
            acc[j]->d2 = {sd2[j], cd2[j]};
            acc[j]->d1 = {sd1[j], cd1[j]};
            acc[j]->a2 = {sa2[j], ca2[j]};
            acc[j]->b2 = {sb2[j], cb2[j]};
            acc[j]->ab = {sab[j], cab[j]};
            mostAt[j] = static_cast<std::size_t>(at[j]);
            if (mostAt[j] < n)
                acc[j]->maxAbs = most[j];
        }
    }
};

#ifdef GAPSCOPE_HAVE_AVX2_PATH
// Four chunks at once, lane j holding chunk j: each lane takes its chunk's
// elements in order, exactly as addWide would one chunk after the other.
// With Speculate, the four sums of non-negative terms take fastTwoSum and the
// result is false when some step needed the other branch: the caller then
// restores the accumulators and calls again without.
template <bool Speculate, typename Adds, typename Lanes>
ALWAYS_INLINE bool addFourBody(GapAccumulator* const acc[4], Lanes a, Lanes b, std::size_t n,
                               std::size_t mostAt[4]) {
    LaneSums<Speculate, Adds> sums(acc, static_cast<long long>(n));
    std::size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        V4 x[4], y[4];
        a.four(i, x);
        b.four(i, y);
        for (std::size_t k = 0; k < 4; ++k)
            sums.add(x[k], y[k]);
    }
    for (; i < n; ++i) {
        V4 x, y;
        a.get(i, x);
        b.get(i, y);
        sums.add(x, y);
    }
    sums.store(acc, n, mostAt);
    return sums.exact();
}

// The same body compiled twice. The lanes' twelve sums and the eight values a
// step loads need more than AVX2's sixteen vector registers, so that build
// keeps many on the stack at every step; with AVX-512's thirty-two (the same
// 256-bit operations, AVX512VL) far fewer, and a step is some 4% faster. The
// arithmetic is the same operations on the same lanes: the sums are
// bit-identical either way.
template <bool Speculate, typename Lanes>
__attribute__((target("avx2"))) bool addFourWide(GapAccumulator* const acc[4], Lanes a, Lanes b,
                                                 std::size_t n, std::size_t mostAt[4]) {
    return addFourBody<Speculate, PlainAdds>(acc, a, b, n, mostAt);
}
template <bool Speculate, typename Lanes>
__attribute__((target("avx2,avx512f,avx512vl"))) bool
addFourWide512(GapAccumulator* const acc[4], Lanes a, Lanes b, std::size_t n, std::size_t mostAt[4]) {
#ifdef GAPSCOPE_FUSED_ADDS
    return addFourBody<Speculate, FusedAdds>(acc, a, b, n, mostAt);
#else
    return addFourBody<Speculate, PlainAdds>(acc, a, b, n, mostAt);
#endif
}
#endif

} // namespace

void GapAccumulator::merge(const GapAccumulator& o) {
    for (auto [mine, theirs] :
         {std::pair<Sum*, const Sum*>{&d2, &o.d2}, {&d1, &o.d1}, {&a2, &o.a2}, {&b2, &o.b2}, {&ab, &o.ab}}) {
        mine->add(theirs->s);
        mine->c += theirs->c;
    }
    if (std::isnan(o.maxAbs) && !std::isnan(maxAbs)) {
        maxAbs = o.maxAbs;
        maxAt = o.maxAt;
    } else if (!std::isnan(maxAbs) && o.maxAbs > maxAbs) {
        maxAbs = o.maxAbs;
        maxAt = o.maxAt;
    }
    saturated += o.saturated;
    agreeing += o.agreeing;
}

namespace {

#ifdef GAPSCOPE_HAVE_AVX2_PATH
// The elements every block starts with that take the exact sums whatever
// their values. fastTwoSum misses wherever a term exceeds the sum so far,
// which the first few terms of a fresh sum do about half the time: the whole
// block was then summed twice (a quarter of the summing of a tensor of 17,424
// elements). After a few dozen terms a miss takes an outlier.
constexpr std::size_t kExactPrologue = 32;

// addWide with its speculation undone where it missed, and the largest |d| kept.
template <typename At>
void addWideExact(GapAccumulator& acc, At a, At b, std::size_t n, std::uint64_t flat0) {
    const auto keep = [&](const Largest& largest, std::size_t end, std::uint64_t first) {
        if (largest.at < end) {
            acc.maxAbs = largest.value;
            acc.maxAt = first + largest.at;
        }
    };
    const std::size_t exact = std::min(n, kExactPrologue);
    Largest largest{acc.maxAbs, exact};
    addWide<false>(acc, a, b, exact, largest);
    keep(largest, exact, flat0);
    if (exact == n)
        return;
    a = a.from(exact), b = b.from(exact), n -= exact, flat0 += exact;
    largest = {acc.maxAbs, n};
    const GapAccumulator saved = acc;
    if (!addWide<true>(acc, a, b, n, largest)) {
        acc = saved;
        largest = {acc.maxAbs, n};
        addWide<false>(acc, a, b, n, largest);
    }
    keep(largest, n, flat0);
}
#endif

} // namespace

void GapAccumulator::addFinite(const double* a, const double* b, std::size_t n, std::uint64_t flat0) {
#ifdef GAPSCOPE_HAVE_AVX2_PATH
    if (haveAvx2())
        return addWideExact(*this, DoubleAt{a}, DoubleAt{b}, n, flat0);
#endif
    const Largest largest = addNarrow(*this, a, b, n, maxAbs);
    if (largest.at < n) {
        maxAbs = largest.value;
        maxAt = flat0 + largest.at;
    }
}

bool GapAccumulator::addFiniteFloat(const std::uint8_t* a, const std::uint8_t* b, std::size_t n,
                                    std::uint64_t flat0) {
#ifdef GAPSCOPE_HAVE_AVX2_PATH
    if (haveAvx2()) {
        addWideExact(*this, FloatAt{a}, FloatAt{b}, n, flat0);
        return true;
    }
#endif
    (void)a, (void)b, (void)n, (void)flat0;
    return false;
}

namespace {

template <typename Lanes>
bool addFour(GapAccumulator* const acc[4], Lanes a, Lanes b, std::size_t n, const std::uint64_t flat0[4]) {
#ifdef GAPSCOPE_HAVE_AVX2_PATH
    if (!haveAvx2())
        return false;
    const bool wider = haveAvx512();
    // Lanes [from, from + count): false when speculation missed.
    const auto add = [&](bool speculate, Lanes x, Lanes y, std::size_t from, std::size_t count) {
        std::size_t mostAt[4];
        const bool exact = speculate ? (wider ? addFourWide512<true>(acc, x, y, count, mostAt)
                                              : addFourWide<true>(acc, x, y, count, mostAt))
                                     : (wider ? addFourWide512<false>(acc, x, y, count, mostAt)
                                              : addFourWide<false>(acc, x, y, count, mostAt));
        for (int j = 0; j < 4; ++j)
            if (mostAt[j] < count)
                acc[j]->maxAt = flat0[j] + from + mostAt[j];
        return exact;
    };
    // Each chunk's first elements take the exact path (kExactPrologue), as does
    // the rest when a term exceeded its sum so far; the rest is the faster form.
    const std::size_t exact = std::min(n, kExactPrologue);
    add(false, a, b, 0, exact);
    if (exact < n) {
        const GapAccumulator saved[4] = {*acc[0], *acc[1], *acc[2], *acc[3]};
        const Lanes x = a.from(exact), y = b.from(exact);
        if (!add(true, x, y, exact, n - exact)) {
            for (int j = 0; j < 4; ++j)
                *acc[j] = saved[j];
            add(false, x, y, exact, n - exact);
        }
    }
    return true;
#else
    (void)acc, (void)a, (void)b, (void)n, (void)flat0;
    return false;
#endif
}

} // namespace

bool GapAccumulator::addFiniteFour(GapAccumulator* const acc[4], const double* const a[4],
                                   const double* const b[4], std::size_t n, const std::uint64_t flat0[4]) {
    return addFour(acc, DoubleLanes{{a[0], a[1], a[2], a[3]}}, DoubleLanes{{b[0], b[1], b[2], b[3]}}, n,
                   flat0);
}

bool GapAccumulator::addFiniteFourFloat(GapAccumulator* const acc[4], const std::uint8_t* const a[4],
                                        const std::uint8_t* const b[4], std::size_t n,
                                        const std::uint64_t flat0[4]) {
    return addFour(acc, FloatLanes{{a[0], a[1], a[2], a[3]}}, FloatLanes{{b[0], b[1], b[2], b[3]}}, n, flat0);
}

void GapAccumulator::allowWideVectors(bool allowed) {
    allowAvx2.store(allowed, std::memory_order_relaxed);
}

void GapAccumulator::allowAvx512Registers(bool allowed) {
    allowAvx512.store(allowed, std::memory_order_relaxed);
}

bool GapAccumulator::allFinite() const {
    // The compensations too: TwoSum's intermediates can overflow where
    // Neumaier's do not, near the top of the float64 range.
    for (const Sum* sum : {&d2, &d1, &a2, &b2, &ab})
        if (!std::isfinite(sum->s) || !std::isfinite(sum->c))
            return false;
    return true;
}

} // namespace gapscope
