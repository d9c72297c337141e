#include "core/metrics/gap_accumulator.h"

#include "core/common/cpu_features.h"
#include "core/metrics/compensated_lanes.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <utility>

namespace gapscope {

namespace {
std::atomic<bool> allowAvx2{true}, allowAvx512{true};
} // namespace

namespace compensated {

bool haveAvx2() {
    return cpuHasAvx2() && allowAvx2.load(std::memory_order_relaxed);
}

bool haveAvx512() {
    return haveAvx2() && cpuHasAvx512vl() && allowAvx512.load(std::memory_order_relaxed);
}

} // namespace compensated

using namespace compensated;

namespace {

struct Largest {
    double value;
    std::size_t at;
};

#ifdef GAPSCOPE_HAVE_AVX2_PATH
// Element i of a source as a double: decoded values, or float32 tensors read
// in place (the conversion is exact, so both give the same sums).
struct DoubleAt {
    const double* p;
    ALWAYS_INLINE double operator()(std::size_t i) const { return p[i]; }
    DoubleAt from(std::size_t i) const { return {p + i}; }
};
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

#ifdef GAPSCOPE_HAVE_AVX2_PATH
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