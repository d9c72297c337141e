#include "core/metrics/broadcast_gap.h"

#include "core/metrics/column_sort.h"
#include "core/metrics/compensated_sum.h"
#include "core/metrics/lane_sums.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gapscope {

namespace {

// Both sides are decoded whole; beyond this the element walk streams instead.
constexpr std::uint64_t kMaxElements = 1u << 26;

struct Dim {
    std::int64_t size;
    std::uint64_t aStride, bStride;
};

// Offsets of every index combination of `dims` (row-major), with the given stride.
std::vector<std::uint64_t> offsets(const std::vector<Dim>& dims, std::uint64_t Dim::*stride) {
    std::vector<std::uint64_t> out{0};
    for (const auto& d : dims) {
        std::vector<std::uint64_t> next;
        next.reserve(out.size() * static_cast<std::size_t>(d.size));
        for (auto base : out)
            for (std::int64_t i = 0; i < d.size; ++i)
                next.push_back(base + static_cast<std::uint64_t>(i) * d.*stride);
        out.swap(next);
    }
    return out;
}

// An LSD radix sort of unsigned keys, 8 bits a pass, skipping the passes
// where every key has the same byte.
template <typename Key> void radixSort(std::vector<Key>& keys, std::vector<Key>& scratch) {
    constexpr int kBytes = sizeof(Key);
    const std::size_t n = keys.size();
    scratch.resize(n);
    std::uint32_t count[kBytes][256] = {};
    for (const Key k : keys)
        for (int b = 0; b < kBytes; ++b)
            ++count[b][(k >> (8 * b)) & 0xff];
    for (int b = 0; b < kBytes; ++b) {
        if (count[b][(keys[0] >> (8 * b)) & 0xff] == n)
            continue; // every key has this byte: the pass would not move anything
        std::uint32_t at[256];
        std::uint32_t sum = 0;
        for (int d = 0; d < 256; ++d) {
            at[d] = sum;
            sum += count[b][d];
        }
        for (std::size_t i = 0; i < n; ++i)
            scratch[at[(keys[i] >> (8 * b)) & 0xff]++] = keys[i];
        keys.swap(scratch);
    }
}

// n elements of v starting at a 64-byte boundary.
template <typename T> T* cacheAligned(std::vector<T>& v, std::size_t n) {
    constexpr std::size_t kLine = 64;
    v.resize(n + kLine / sizeof(T));
    const auto at = reinterpret_cast<std::uintptr_t>(v.data());
    return reinterpret_cast<T*>((at + kLine - 1) & ~std::uintptr_t{kLine - 1});
}

bool float32Exact(double x) {
    return static_cast<double>(static_cast<float>(x)) == x;
}

// A float32 value's bits made unsigned-ordered (negative: every bit flipped;
// positive: the sign bit set), and back.
std::uint32_t floatKey(double x) {
    const float f = static_cast<float>(x);
    std::uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u ^ ((0u - (u >> 31)) | (1u << 31));
}

double fromFloatKey(std::uint32_t k) {
    const std::uint32_t u = k ^ ((k >> 31) ? (1u << 31) : ~0u);
    float f;
    std::memcpy(&f, &u, sizeof f);
    return static_cast<double>(f);
}

// floatKey of n float32-exact doubles (n a multiple of 4), four at a time in
// SSE2 (every x86-64 has it): the conversion of an exact value is exact, so
// the keys are floatKey's to the bit.
void floatKeys(const double* v, std::size_t n, std::uint32_t* keys) {
#if defined(__SSE2__)
    const __m128i top = _mm_set1_epi32(INT32_MIN);
    for (std::size_t i = 0; i + 4 <= n; i += 4) {
        const __m128 f =
            _mm_movelh_ps(_mm_cvtpd_ps(_mm_loadu_pd(v + i)), _mm_cvtpd_ps(_mm_loadu_pd(v + i + 2)));
        const __m128i u = _mm_castps_si128(f);
        // negative: every bit flipped (the sign spread by an arithmetic shift); positive: the sign bit set
        const __m128i mask = _mm_or_si128(_mm_srai_epi32(u, 31), top);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(keys + i), _mm_xor_si128(u, mask));
    }
    for (std::size_t i = n - n % 4; i < n; ++i)
        keys[i] = floatKey(v[i]);
#else
    for (std::size_t i = 0; i < n; ++i)
        keys[i] = floatKey(v[i]);
#endif
}

// Sorts finite doubles ascending by their bits made unsigned-ordered (negative:
// every bit flipped; positive: the sign bit set). Values that are all float32
// (the common case: tensors converted to float64) sort on their 32-bit
// pattern, half the passes. The order of equal values cannot change a sum
// built from the sorted values, so any correct sort gives the same bits; this
// one has no data-dependent branches, where std::sort mispredicts on every
// other comparison of random data (most of the closed form's time).
struct FiniteSorter {
    std::vector<std::uint32_t> keys32, scratch32;
    std::vector<std::uint64_t> keys64, scratch64;

    void sort(std::vector<double>& v) {
        const bool narrow = std::all_of(v.begin(), v.end(), float32Exact);
        if (narrow) {
            keys32.resize(v.size());
            for (std::size_t i = 0; i < v.size(); ++i)
                keys32[i] = floatKey(v[i]);
            radixSort(keys32, scratch32);
            for (std::size_t i = 0; i < v.size(); ++i)
                v[i] = fromFloatKey(keys32[i]);
            return;
        }
        keys64.resize(v.size());
        for (std::size_t i = 0; i < v.size(); ++i) {
            std::uint64_t u;
            std::memcpy(&u, &v[i], sizeof u);
            keys64[i] = u ^ ((0 - (u >> 63)) | (std::uint64_t{1} << 63));
        }
        radixSort(keys64, scratch64);
        for (std::size_t i = 0; i < v.size(); ++i) {
            const std::uint64_t k = keys64[i];
            const std::uint64_t u = k ^ ((k >> 63) ? (std::uint64_t{1} << 63) : ~std::uint64_t{0});
            std::memcpy(&v[i], &u, sizeof u);
        }
    }
};

// The broadcast dimensions of a against b, outermost first, right-aligned:
// those both sides span, those only a spans, those only b spans. False when
// the shapes do not broadcast.
bool splitDims(const Operand& a, const Operand& b, std::vector<Dim>& shared, std::vector<Dim>& aOnly,
               std::vector<Dim>& bOnly) {
    const auto aStrides = rowMajorStrides(a.shape()), bStrides = rowMajorStrides(b.shape());
    const std::size_t rank = std::max(a.shape().size(), b.shape().size());
    for (std::size_t k = rank; k-- > 0;) {
        const std::size_t fromRight = rank - 1 - k;
        const bool inA = fromRight < a.shape().size(), inB = fromRight < b.shape().size();
        const std::size_t ia = a.shape().size() - 1 - fromRight, ib = b.shape().size() - 1 - fromRight;
        const std::int64_t ad = inA ? a.shape()[ia] : 1, bd = inB ? b.shape()[ib] : 1;
        if (ad != bd && ad != 1 && bd != 1)
            return false;
        const Dim d{std::max(ad, bd), ad > 1 ? aStrides[ia] : 0, bd > 1 ? bStrides[ib] : 0};
        if (ad > 1 && bd > 1)
            shared.push_back(d);
        else if (ad > 1)
            aOnly.push_back(d);
        else if (bd > 1)
            bOnly.push_back(d);
    }
    return true;
}

} // namespace

std::optional<BroadcastSums> executorchBroadcastGap(const Operand& a, const Operand& b) {
    if (a.is_scalar || b.is_scalar || a.numel == 0 || b.numel == 0 || a.numel > kMaxElements ||
        b.numel > kMaxElements)
        return std::nullopt;
    std::vector<Dim> shared, aOnly, bOnly;
    if (!splitDims(a, b, shared, aOnly, bOnly))
        return std::nullopt;
    std::vector<double> av(a.numel), bv(b.numel);
    a.decode(0, av.size(), av.data());
    b.decode(0, bv.size(), bv.data());
    for (const auto* v : {&av, &bv})
        if (!std::all_of(v->begin(), v->end(), [](double x) { return std::isfinite(x); }))
            return std::nullopt;

    const auto groupA = offsets(shared, &Dim::aStride), groupB = offsets(shared, &Dim::bStride);
    const auto inA = offsets(aOnly, &Dim::aStride), inB = offsets(bOnly, &Dim::bStride);
    const double P = static_cast<double>(inA.size()), Q = static_cast<double>(inB.size());
    Sum d2, d1, a2;
    std::vector<double> ga(inA.size()), gb(inB.size()), prefix(inB.size() + 1);
    // One group's numbers from the sums of its values and of their squares.
    // Where one side is a single value, ga and gb must hold the values (in any
    // order); otherwise `sort` fills them in ascending order (the Σ|a−b| walk
    // needs them so).
    auto group = [&](const Sum& sa, const Sum& sa2, const Sum& sb, const Sum& sb2, auto&& sort) {
        a2.add(Q * sa2.value());
        if (inA.size() == 1 || inB.size() == 1) {
            // One side is a single value: the pairs are few, sum them exactly
            // (equal tensors then give exactly zero, as ExecuTorch does).
            for (double x : ga)
                for (double y : gb) {
                    d2.add((x - y) * (x - y));
                    d1.add(std::fabs(x - y));
                }
            return;
        }
        d2.add(Q * sa2.value() + P * sb2.value() - 2.0 * sa.value() * sb.value());
        // Σ_p Σ_q |a_p − b_q|: with both sorted, the k runtime values at or below
        // a_p contribute a_p·k − prefix[k], the rest (total − prefix[k]) − a_p·(Q − k).
        sort();
        for (std::size_t q = 0; q < gb.size(); ++q)
            prefix[q + 1] = prefix[q] + gb[q];
        std::size_t k = 0;
        for (double x : ga) {
            while (k < gb.size() && gb[k] <= x)
                ++k;
            const double below = x * static_cast<double>(k) - prefix[k];
            const double above = (prefix[gb.size()] - prefix[k]) - x * static_cast<double>(gb.size() - k);
            d1.add(below + above);
        }
    };

    // Every value float32 (float32 tensors, or others whose values all are):
    // eight groups are sorted at once on their 32-bit keys, a group a column.
    const auto narrow = [](const std::vector<double>& v) {
        return std::all_of(v.begin(), v.end(), float32Exact);
    };
    const auto rowsFor = [](std::size_t n) {
        std::size_t rows = 2;
        while (rows < n)
            rows <<= 1;
        return rows;
    };
    constexpr std::size_t kMaxColumnRows = 512; // beyond, the network's n·log²n outgrows the radix sort
    if (fastColumnSort() && haveLaneSums() && inA.size() > 1 && inB.size() > 1 &&
        inA.size() <= kMaxColumnRows && inB.size() <= kMaxColumnRows &&
        (a.type == ScalarType::Float || narrow(av)) && (b.type == ScalarType::Float || narrow(bv))) {
        constexpr std::size_t C = kSortColumns;
        const std::size_t rowsA = rowsFor(inA.size()), rowsB = rowsFor(inB.size());
        // Cache-line aligned: a row of eight keys or four doubles is one vector
        // load, and a load split across two lines costs twice (seen: the sort
        // 47% slower in a build whose heap left the keys off 32 bytes).
        std::vector<std::uint32_t> keysStore, keysStoreB;
        std::vector<double> tileStore, tileStoreB;
        std::uint32_t* keysA = cacheAligned(keysStore, rowsA * C);
        std::uint32_t* keysB = cacheAligned(keysStoreB, rowsB * C);
        double* tileA = cacheAligned(tileStore, C * inA.size());
        double* tileB = cacheAligned(tileStoreB, C * inB.size());
        // Gathered value by value across the tile's groups, a group a lane:
        // tile[p * C + j] is value p of group j. Where the groups are the
        // innermost dimension (the common case) a value's eight groups are
        // one cache line, copied whole. The keys follow from the tile in a
        // pass of their own; padding (rows past P, lanes past the last
        // group) holds the largest key, which sorts last.
        const auto gather = [&](std::size_t g0, std::size_t tile, const std::vector<double>& v,
                                const std::vector<std::uint64_t>& groups,
                                const std::vector<std::uint64_t>& in, double* t, std::uint32_t* keys,
                                std::size_t keyRows) {
            bool adjacent = tile == C;
            for (std::size_t j = 1; adjacent && j < C; ++j)
                adjacent = groups[g0 + j] == groups[g0] + j;
            if (adjacent) {
                for (std::size_t p = 0; p < in.size(); ++p)
                    std::memcpy(&t[p * C], &v[groups[g0] + in[p]], C * sizeof(double));
            } else {
                std::fill(t, t + in.size() * C, 0.0);
                for (std::size_t p = 0; p < in.size(); ++p)
                    for (std::size_t j = 0; j < tile; ++j)
                        t[p * C + j] = v[groups[g0 + j] + in[p]];
            }
            floatKeys(t, in.size() * C, keys);
            if (tile < C)
                for (std::size_t p = 0; p < in.size(); ++p)
                    std::fill(keys + p * C + tile, keys + (p + 1) * C, UINT32_MAX);
            std::fill(keys + in.size() * C, keys + keyRows * C, UINT32_MAX);
        };
        for (std::size_t g0 = 0; g0 < groupA.size(); g0 += C) {
            const std::size_t tile = std::min(C, groupA.size() - g0);
            gather(g0, tile, av, groupA, inA, tileA, keysA, rowsA);
            gather(g0, tile, bv, groupB, inB, tileB, keysB, rowsB);
            Sum sa[C], sa2[C], sb[C], sb2[C];
            laneSums(tileA, inA.size(), sa, sa2);
            laneSums(tileB, inB.size(), sb, sb2);
            sortColumns(keysA, rowsA);
            sortColumns(keysB, rowsB);
            for (std::size_t j = 0; j < tile; ++j)
                group(sa[j], sa2[j], sb[j], sb2[j], [&] {
                    for (std::size_t p = 0; p < ga.size(); ++p)
                        ga[p] = fromFloatKey(keysA[p * C + j]);
                    for (std::size_t q = 0; q < gb.size(); ++q)
                        gb[q] = fromFloatKey(keysB[q * C + j]);
                });
        }
    } else {
        FiniteSorter sorter;
        for (std::size_t g = 0; g < groupA.size(); ++g) {
            for (std::size_t p = 0; p < inA.size(); ++p)
                ga[p] = av[groupA[g] + inA[p]];
            for (std::size_t q = 0; q < inB.size(); ++q)
                gb[q] = bv[groupB[g] + inB[q]];
            Sum sa, sa2, sb, sb2;
            for (double x : ga)
                sa.add(x), sa2.add(x * x);
            for (double y : gb)
                sb.add(y), sb2.add(y * y);
            group(sa, sa2, sb, sb2, [&] {
                sorter.sort(ga);
                sorter.sort(gb);
            });
        }
    }
    const double n = static_cast<double>(groupA.size()) * P * Q;
    BroadcastSums out;
    out.mse = std::max(0.0, d2.value()) / n;
    out.l1 = d1.value();
    out.snr = 10.0 * std::log10((a2.value() / n) / out.mse);
    return out;
}

} // namespace gapscope
