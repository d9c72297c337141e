// GapAccumulator::addFiniteFour and addFiniteFourFloat: four chunks summed
// in the lanes of one vector (gap_accumulator.cpp holds the one-chunk paths).

#include "core/metrics/compensated_lanes.h"
#include "core/metrics/gap_accumulator.h"

#include <algorithm>
#include <array>

namespace gapscope {

namespace {

using namespace compensated;

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

#ifdef GAPSCOPE_HAVE_AVX2_PATH
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

} // namespace gapscope
