#include "core/metrics/top_k.h"

#include <algorithm>
#include <cmath>

#if defined(__SSE2__)
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

} // namespace

std::size_t topK(const double* v, std::size_t n, std::size_t k, std::size_t* out) {
    if (k == 0) // nothing to rank, and Ranking's floor() would read before held[0]
        return 0;
    Ranking<double> best(out, k);
    for (std::size_t i = 0; i < n; ++i)
        best.offer(v[i], i);
    return best.count;
}

// Once k values are held, a block of 8 is offered only when one of its values
// beats the k-th: SSE2 compares (every x86-64 has them), so a row costs about
// one vector compare per 8 values, NaN test included.
bool topKFloat(const float* v, std::size_t n, std::size_t k, std::size_t* out) {
    if (k == 0)
        return std::none_of(v, v + n, [](float x) { return std::isnan(x); });
    Ranking<float> best(out, k);
    std::size_t i = 0;
    bool nan = false;
    for (; i < n && !best.full(); ++i) {
        nan |= std::isnan(v[i]);
        best.offer(v[i], i);
    }
#if defined(__SSE2__)
    __m128 unordered = _mm_setzero_ps();
    for (; i + 8 <= n; i += 8) {
        const __m128 lo = _mm_loadu_ps(v + i), hi = _mm_loadu_ps(v + i + 4);
        unordered = _mm_or_ps(unordered, _mm_or_ps(_mm_cmpunord_ps(lo, lo), _mm_cmpunord_ps(hi, hi)));
        const __m128 floor = _mm_set1_ps(best.floor());
        if (_mm_movemask_ps(_mm_or_ps(_mm_cmpgt_ps(lo, floor), _mm_cmpgt_ps(hi, floor))) != 0)
            for (std::size_t j = i; j < i + 8; ++j)
                best.offer(v[j], j);
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
