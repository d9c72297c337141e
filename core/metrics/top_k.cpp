#include "core/metrics/top_k.h"

#include "core/common/cpu_features.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gapscope {

namespace {

// The k best so far. Values are offered in index order, so a newcomer ranks
// above a held one only by a strictly larger value; the held values sit beside
// their indices.
template <typename T> struct Ranking {
    T held[8];
    std::size_t* out;
    std::size_t k;
    std::size_t count = 0;

    Ranking(std::size_t* o, std::size_t wanted) : out(o), k(std::min<std::size_t>(wanted, 8)) {}
    bool full() const { return count == k; }
    T floor() const { return held[k - 1]; }
    void offer(T x, std::size_t i) {
        if (count == k && !(x > held[k - 1]))
            return;
        std::size_t at = count < k ? count++ : k - 1;
        for (; at > 0 && x > held[at - 1]; --at) {
            held[at] = held[at - 1];
            out[at] = out[at - 1];
        }
        held[at] = x;
        out[at] = i;
    }
};

#if defined(__GNUC__) && defined(__x86_64__)
// The AVX2 scan, sixteen values a step: only the values that beat the k-th
// at the step's start are offered, in index order (offer checks again, as the
// floor rises). Returns where the scan stopped; ORs a NaN into `nan`.
__attribute__((target("avx2"))) std::size_t scanAvx2(const float* v, std::size_t i, std::size_t n,
                                                     Ranking<float>& best, bool& nan) {
    __m256 unordered = _mm256_setzero_ps();
    for (; i + 16 <= n; i += 16) {
        const __m256 lo = _mm256_loadu_ps(v + i), hi = _mm256_loadu_ps(v + i + 8);
        unordered = _mm256_or_ps(unordered, _mm256_or_ps(_mm256_cmp_ps(lo, lo, _CMP_UNORD_Q),
                                                         _mm256_cmp_ps(hi, hi, _CMP_UNORD_Q)));
        const __m256 floor = _mm256_set1_ps(best.floor());
        auto mask = static_cast<unsigned>(_mm256_movemask_ps(_mm256_cmp_ps(lo, floor, _CMP_GT_OQ))) |
                    static_cast<unsigned>(_mm256_movemask_ps(_mm256_cmp_ps(hi, floor, _CMP_GT_OQ))) << 8;
        for (; mask != 0; mask &= mask - 1) {
            const auto j = i + static_cast<std::size_t>(__builtin_ctz(mask));
            best.offer(v[j], j);
        }
    }
    nan |= _mm256_movemask_ps(unordered) != 0;
    return i;
}

// The k-th largest (k ≤ 16) of sixteen values in two vectors, broadcast:
// the least of the values that fewer than k others exceed. Sixteen broadcast
// compares, no branch; std::nth_element on the same sixteen was most of the
// cost of a row of 132 (a synthetic LLM's, bench/all_runs_bench.cpp).
__attribute__((target("avx2"))) __m256 kthLargestOf16(__m256 lo, __m256 hi, std::size_t k) {
    alignas(32) float values[16];
    _mm256_store_ps(values, lo);
    _mm256_store_ps(values + 8, hi);
    __m256i aboveLo = _mm256_setzero_si256(), aboveHi = _mm256_setzero_si256();
    for (const float value : values) {
        const __m256 x = _mm256_set1_ps(value);
        // A true compare is all ones, -1: subtracting it counts.
        aboveLo = _mm256_sub_epi32(aboveLo, _mm256_castps_si256(_mm256_cmp_ps(x, lo, _CMP_GT_OQ)));
        aboveHi = _mm256_sub_epi32(aboveHi, _mm256_castps_si256(_mm256_cmp_ps(x, hi, _CMP_GT_OQ)));
    }
    const __m256i wanted = _mm256_set1_epi32(static_cast<int>(k));
    const __m256 inf = _mm256_set1_ps(std::numeric_limits<float>::infinity());
    const __m256 keptLo = _mm256_blendv_ps(inf, lo, _mm256_castsi256_ps(_mm256_cmpgt_epi32(wanted, aboveLo)));
    const __m256 keptHi = _mm256_blendv_ps(inf, hi, _mm256_castsi256_ps(_mm256_cmpgt_epi32(wanted, aboveHi)));
    __m256 least = _mm256_min_ps(keptLo, keptHi);
    least = _mm256_min_ps(least, _mm256_permute2f128_ps(least, least, 1));
    least = _mm256_min_ps(least, _mm256_shuffle_ps(least, least, _MM_SHUFFLE(1, 0, 3, 2)));
    least = _mm256_min_ps(least, _mm256_shuffle_ps(least, least, _MM_SHUFFLE(2, 3, 0, 1)));
    return least;
}

// For each 8-bit mask, the positions of its set bits packed to the front:
// _mm256_permutevar8x32 then moves the lanes a compare selected together.
struct PackLeft {
    alignas(32) std::int32_t lanes[256][8];
    constexpr PackLeft() : lanes{} {
        for (int mask = 0; mask < 256; ++mask) {
            int at = 0;
            for (int lane = 0; lane < 8; ++lane)
                if (mask & (1 << lane))
                    lanes[mask][at++] = lane;
        }
    }
};
constexpr PackLeft kPackLeft;

// The lanes of x at least `floor`, in lane order, to values and their
// indices (first + lane) to indices; writes eight of each, returns how many
// count.
__attribute__((target("avx2"))) inline std::size_t packAtLeast(__m256 x, __m256 floor, std::size_t first,
                                                               float* values, std::int32_t* indices) {
    const auto mask = static_cast<unsigned>(_mm256_movemask_ps(_mm256_cmp_ps(x, floor, _CMP_GE_OQ)));
    const __m256i order = _mm256_load_si256(reinterpret_cast<const __m256i*>(kPackLeft.lanes[mask]));
    _mm256_storeu_ps(values, _mm256_permutevar8x32_ps(x, order));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(indices),
                        _mm256_add_epi32(order, _mm256_set1_epi32(static_cast<int>(first))));
    return static_cast<std::size_t>(__builtin_popcount(mask));
}

// The second pass of a short row: the values at least T packed in index
// order without a branch a value (a branch on each block's candidates
// mispredicted most of a short row's time), then offered.
__attribute__((target("avx2"))) void offerPacked(const float* v, std::size_t full, __m256 floor,
                                                 Ranking<float>& best) {
    constexpr std::size_t kHeld = 64;
    float heldValue[kHeld + 16];
    std::int32_t heldIndex[kHeld + 16];
    std::size_t held = 0;
    for (std::size_t i = 0;; i += 16) {
        // Offered when many values tie at T, and at the end.
        if (held >= kHeld || i >= full) {
            for (std::size_t c = 0; c < held; ++c)
                best.offer(heldValue[c], static_cast<std::size_t>(heldIndex[c]));
            held = 0;
        }
        if (i >= full)
            break;
        const std::size_t lo =
            packAtLeast(_mm256_loadu_ps(v + i), floor, i, heldValue + held, heldIndex + held);
        held += lo + packAtLeast(_mm256_loadu_ps(v + i + 8), floor, i + 8, heldValue + held + lo,
                                 heldIndex + held + lo);
    }
}

// The second pass of a long row: a bit a value at least T, 64 to a mask (four
// blocks' compares), offered in index order from the mask. Packing stored and
// permuted every block's lanes whether or not one was a candidate, and nearly
// none is past the row's first blocks: on rows of 2,048 (an LLM's hidden
// state) the ranking took 1.5x as long, on rows of 32,000 (its logits) 2x. A
// mask's loop costs a mispredicted exit, which packing saves on short rows.
constexpr std::size_t kMaskedFrom = 512;
__attribute__((target("avx2"))) void offerMasked(const float* v, std::size_t full, __m256 floor,
                                                 Ranking<float>& best) {
    for (std::size_t i = 0; i < full; i += 64) {
        std::uint64_t mask = 0;
        for (std::size_t b = 0; b < 4 && i + 16 * b < full; ++b) {
            const float* at = v + i + 16 * b;
            const auto lo = static_cast<unsigned>(
                _mm256_movemask_ps(_mm256_cmp_ps(_mm256_loadu_ps(at), floor, _CMP_GE_OQ)));
            const auto hi = static_cast<unsigned>(
                _mm256_movemask_ps(_mm256_cmp_ps(_mm256_loadu_ps(at + 8), floor, _CMP_GE_OQ)));
            mask |= static_cast<std::uint64_t>(lo | hi << 8) << (16 * b);
        }
        for (; mask != 0; mask &= mask - 1) {
            const auto j = i + static_cast<std::size_t>(__builtin_ctzll(mask));
            best.offer(v[j], j);
        }
    }
}

// Long rows in two passes over the row, which stays in cache. The first
// keeps, lane by lane, the largest value of each of the 16 positions a block
// of 16 has (a vector max a block); those are values of 16 distinct elements,
// so the k-th largest of them, T, is at most the row's k-th largest value, and
// no value below T can be among the k best. The second offers, in index
// order, only the values at least T: a dozen offers a row instead of the
// record breakers of one pass (some k·ln of the row's length; 27 for a ViT's
// rows of 384 at k = 5, each a shift of the held values). Offering a subset
// that holds every candidate, in index order, ranks exactly as offering every
// value would. The last n mod 16 values are offered whole. False on a NaN.
__attribute__((target("avx2"))) bool topKByBlocks(const float* v, std::size_t n, std::size_t k,
                                                  std::size_t* out) {
    const std::size_t full = n / 16 * 16;
    __m256 unordered = _mm256_setzero_ps();
    __m256 mostLo = _mm256_loadu_ps(v), mostHi = _mm256_loadu_ps(v + 8);
    for (std::size_t i = 0; i < full; i += 16) {
        const __m256 lo = _mm256_loadu_ps(v + i), hi = _mm256_loadu_ps(v + i + 8);
        unordered = _mm256_or_ps(unordered, _mm256_or_ps(_mm256_cmp_ps(lo, lo, _CMP_UNORD_Q),
                                                         _mm256_cmp_ps(hi, hi, _CMP_UNORD_Q)));
        mostLo = _mm256_max_ps(mostLo, lo);
        mostHi = _mm256_max_ps(mostHi, hi);
    }
    if (_mm256_movemask_ps(unordered) != 0)
        return false;
    for (std::size_t i = full; i < n; ++i)
        if (std::isnan(v[i]))
            return false;
    const __m256 floor = kthLargestOf16(mostLo, mostHi, k);
    Ranking<float> best(out, k);
    if (full >= kMaskedFrom)
        offerMasked(v, full, floor, best);
    else
        offerPacked(v, full, floor, best);
    for (std::size_t i = full; i < n; ++i)
        best.offer(v[i], i);
    return true;
}

// How many values of v[i, n) reach `least`, NaN counted too, up to more than
// `most`: sixteen compares a step.
__attribute__((target("avx2"))) std::size_t reachingAvx2(const float* v, std::size_t i, std::size_t n,
                                                         float least, std::size_t most, std::size_t& at) {
    const __m256 floor = _mm256_set1_ps(least);
    std::size_t count = 0;
    for (; i + 16 <= n && count <= most; i += 16) {
        const __m256 lo = _mm256_loadu_ps(v + i), hi = _mm256_loadu_ps(v + i + 8);
        // NOT_LT_UQ: at least `least`, or unordered (a NaN).
        const auto mask = static_cast<unsigned>(_mm256_movemask_ps(_mm256_cmp_ps(lo, floor, _CMP_NLT_UQ))) |
                          static_cast<unsigned>(_mm256_movemask_ps(_mm256_cmp_ps(hi, floor, _CMP_NLT_UQ)))
                              << 8;
        count += static_cast<std::size_t>(__builtin_popcount(mask));
    }
    at = i;
    return count;
}
#endif

} // namespace

bool isTopKFloat(const float* v, std::size_t n, const std::size_t* indices, std::size_t k, std::size_t* out) {
    if (k == 0 || k > 8 || k > n)
        return false;
    float least = std::numeric_limits<float>::infinity();
    for (std::size_t j = 0; j < k; ++j) {
        if (indices[j] >= n || std::isnan(v[indices[j]]))
            return false;
        least = std::min(least, v[indices[j]]);
    }
    // The k given reach `least`; any other value that does (or a NaN) may
    // rank among them.
    std::size_t i = 0, count = 0;
#if defined(__GNUC__) && defined(__x86_64__)
    if (cpuHasAvx2())
        count = reachingAvx2(v, 0, n, least, k, i);
#endif
    for (; i < n && count <= k; ++i)
        count += !(v[i] < least) ? 1 : 0;
    if (count != k)
        return false;
    // Every other value is below all of theirs: the best of the k first.
    std::copy(indices, indices + k, out);
    std::size_t best = 0;
    for (std::size_t j = 1; j < k; ++j)
        if (v[out[j]] > v[out[best]] || (v[out[j]] == v[out[best]] && out[j] < out[best]))
            best = j;
    std::swap(out[0], out[best]);
    return true;
}

std::size_t topK(const double* v, std::size_t n, std::size_t k, std::size_t* out) {
    if (k == 0) // nothing to rank, and Ranking's floor() would read before held[0]
        return 0;
    Ranking<double> best(out, k);
    for (std::size_t i = 0; i < n; ++i)
        best.offer(v[i], i);
    return best.count;
}

// Once k values are held, a block is offered only where one of its values
// beats the k-th: vector compares (SSE2 on every x86-64, AVX2 where the CPU
// has it), so a row costs about one compare per block, NaN test included, and
// an offer per value that beats the k-th (the record breakers: most values of
// a short row's first blocks, few after).
bool topKFloat(const float* v, std::size_t n, std::size_t k, std::size_t* out) {
    if (k == 0)
        return std::none_of(v, v + n, [](float x) { return std::isnan(x); });
#if defined(__GNUC__) && defined(__x86_64__)
    // Rows of two blocks of 16 or more.
    if (cpuHasAvx2() && n >= 32)
        return topKByBlocks(v, n, std::min<std::size_t>(k, 8), out);
#endif
    Ranking<float> best(out, k);
    std::size_t i = 0;
    bool nan = false;
    for (; i < n && !best.full(); ++i) {
        nan |= std::isnan(v[i]);
        best.offer(v[i], i);
    }
#if defined(__GNUC__) && defined(__x86_64__)
    if (cpuHasAvx2())
        i = scanAvx2(v, i, n, best, nan);
#endif
#if defined(__SSE2__)
    __m128 unordered = _mm_setzero_ps();
    for (; i + 8 <= n; i += 8) {
        const __m128 lo = _mm_loadu_ps(v + i), hi = _mm_loadu_ps(v + i + 4);
        unordered = _mm_or_ps(unordered, _mm_or_ps(_mm_cmpunord_ps(lo, lo), _mm_cmpunord_ps(hi, hi)));
        const __m128 floor = _mm_set1_ps(best.floor());
        auto mask = static_cast<unsigned>(_mm_movemask_ps(_mm_cmpgt_ps(lo, floor))) |
                    static_cast<unsigned>(_mm_movemask_ps(_mm_cmpgt_ps(hi, floor))) << 4;
        for (; mask != 0; mask &= mask - 1) {
            const auto j = i + static_cast<std::size_t>(__builtin_ctz(mask));
            best.offer(v[j], j);
        }
    }
    nan |= _mm_movemask_ps(unordered) != 0;
#endif
    for (; i < n; ++i) {
        nan |= std::isnan(v[i]);
        best.offer(v[i], i);
    }
    return !nan;
}

} // namespace gapscope
