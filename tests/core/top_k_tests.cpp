#include "core/metrics/finite_pass.h"
#include "core/metrics/top_k.h"
#include "core/metrics/top_k_agreement.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <numeric>
#include <random>
#include <thread>
#include <vector>

using gapscope::topK;
using gapscope::topKFloat;

namespace {

// The order topK promises, computed the slow way: value descending, index ascending.
std::vector<std::size_t> referenceTop(const std::vector<double>& v, std::size_t k) {
    std::vector<std::size_t> idx(v.size());
    std::iota(idx.begin(), idx.end(), 0);
    k = std::min(k, v.size());
    std::partial_sort(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(k), idx.end(),
                      [&](std::size_t a, std::size_t b) { return v[a] > v[b] || (v[a] == v[b] && a < b); });
    idx.resize(k);
    return idx;
}

} // namespace

TEST_CASE("topK and topKFloat give partial_sort's order, ties by index, for every k up to 8") {
    std::mt19937 rng(7);
    // Few distinct values, so ties are common; lengths cross the 16-wide AVX2 and
    // 8-wide SSE2 blocks (25 to 31: a 16-block, then an 8-block, then the tail).
    std::uniform_int_distribution<int> value(-5, 5);
    for (std::size_t n : {0u, 1u, 7u, 8u, 9u, 17u, 25u, 26u, 31u, 64u, 100u}) {
        std::vector<float> f(n);
        for (auto& x : f)
            x = static_cast<float>(value(rng)) * 0.25f;
        const std::vector<double> d(f.begin(), f.end());
        for (std::size_t k = 1; k <= 8; ++k) {
            INFO("n " << n << " k " << k);
            const auto expected = referenceTop(d, k);
            std::vector<std::size_t> got(8, 999), gotFloat(8, 999);
            REQUIRE(topK(d.data(), n, k, got.data()) == expected.size());
            REQUIRE(topKFloat(f.data(), n, k, gotFloat.data()));
            CHECK(std::vector<std::size_t>(got.begin(), got.begin() + expected.size()) == expected);
            CHECK(std::vector<std::size_t>(gotFloat.begin(), gotFloat.begin() + expected.size()) == expected);
        }
    }
}

TEST_CASE("topK with k = 0 ranks nothing and writes nothing") {
    const std::vector<double> d{3, 1, 2};
    const std::vector<float> f{3, 1, 2};
    std::size_t out[1] = {42};
    CHECK(topK(d.data(), d.size(), 0, out) == 0);
    CHECK(topKFloat(f.data(), f.size(), 0, out));
    CHECK(out[0] == 42);
    const std::vector<float> withNan{1, NAN, 2};
    CHECK_FALSE(topKFloat(withNan.data(), withNan.size(), 0, out));
}

TEST_CASE("topKFloat refuses a row holding a NaN wherever the NaN sits") {
    for (std::size_t at : {0u, 3u, 12u, 19u}) {
        std::vector<float> f(20, 1.0f);
        f[at] = NAN;
        std::size_t out[8];
        INFO("NaN at " << at);
        CHECK_FALSE(topKFloat(f.data(), f.size(), 3, out));
    }
}

TEST_CASE("topKFloat ranks long rows of distinct values as partial_sort does, record breakers and all") {
    // Rising rows make every block beat the k-th (an offer per value); falling
    // rows, none after the first k; random rows, a few per block early on.
    std::mt19937 rng(11);
    std::normal_distribution<float> normal(0.0f, 3.0f);
    // Peaked rows hold their best values in the last full blocks, before the
    // tail: the last of a long row's masks (partial when its blocks are not a
    // multiple of four).
    for (int shape = 0; shape < 4; ++shape)
        for (std::size_t n : {197u, 384u, 511u, 512u, 1000u, 2048u, 4111u}) {
            std::vector<float> f(n);
            for (std::size_t i = 0; i < n; ++i)
                f[i] = shape == 0 || shape == 3 ? normal(rng)
                                                : (shape == 1 ? 1.0f : -1.0f) * static_cast<float>(i);
            if (shape == 3)
                for (std::size_t j = 0; j < 8; ++j)
                    f[n / 16 * 16 - 1 - 3 * j] = 100.0f + static_cast<float>(j);
            const std::vector<double> d(f.begin(), f.end());
            for (std::size_t k : {1u, 5u, 8u}) {
                INFO("shape " << shape << " n " << n << " k " << k);
                std::vector<std::size_t> got(8, 999);
                REQUIRE(topKFloat(f.data(), n, k, got.data()));
                CHECK(std::vector<std::size_t>(got.begin(), got.begin() + static_cast<std::ptrdiff_t>(k)) ==
                      referenceTop(d, k));
            }
        }
}

TEST_CASE("topKFloat on long rows of ties, zeros of both signs and infinities ranks as partial_sort does") {
    // Rows of 32 values and more take two passes (the maxima of the 16
    // positions of a block bound the k-th value); ties at that bound, and a
    // tail past the last full block, are where they could go wrong.
    std::mt19937 rng(29);
    const float pool[] = {-INFINITY, -2.0f, -0.0f, 0.0f, 0.5f, 1.0f, 3.0f, INFINITY};
    std::uniform_int_distribution<int> pick(0, 7), few(0, 2);
    // Rows of 512 and more offer from masks of 64 values (the last one partial
    // when the row's full blocks are not a multiple of four).
    for (std::size_t n : {16u, 31u, 32u, 33u, 47u, 64u, 127u, 128u, 129u, 143u, 200u, 384u, 511u, 512u, 527u,
                          1000u, 2048u, 4111u})
        for (int round = 0; round < 40; ++round) {
            std::vector<float> f(n);
            for (auto& x : f) // mostly ties among three values, now and then any of the pool
                x = round % 2 ? pool[pick(rng)] : pool[2 + few(rng) + (pick(rng) == 0 ? 3 : 0)];
            const std::vector<double> d(f.begin(), f.end());
            for (std::size_t k = 1; k <= 8; ++k) {
                INFO("n " << n << " round " << round << " k " << k);
                std::vector<std::size_t> got(8, 999);
                REQUIRE(topKFloat(f.data(), n, k, got.data()));
                const auto expected = referenceTop(d, k);
                CHECK(std::vector<std::size_t>(got.begin(), got.begin() + static_cast<std::ptrdiff_t>(k)) ==
                      expected);
            }
            for (std::size_t at : {std::size_t{0}, n / 2, n - 1}) { // in a block, and in the tail
                std::vector<float> g = f;
                g[at] = NAN;
                std::size_t out[8];
                INFO("NaN at " << at << " of " << n);
                CHECK_FALSE(topKFloat(g.data(), n, 5, out));
            }
        }
}

TEST_CASE(
    "isTopKFloat says yes exactly when the given indices are the row's top k, the first as topKFloat ranks") {
    using gapscope::isTopKFloat;
    // Rows of ties, signed zeros and infinities, and rows of distinct values;
    // the indices offered are the row's own top k, or another's (a runtime
    // row that agrees or not), or the top k with one swapped for the next.
    std::mt19937 rng(31);
    const float pool[] = {-INFINITY, -2.0f, -0.0f, 0.0f, 0.5f, 1.0f, 3.0f, INFINITY};
    std::uniform_int_distribution<int> pick(0, 7);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::size_t yes = 0, no = 0;
    for (std::size_t n : {5u, 6u, 17u, 31u, 32u, 33u, 132u, 200u})
        for (int round = 0; round < 60; ++round) {
            std::vector<float> f(n), g(n);
            for (std::size_t i = 0; i < n; ++i) {
                f[i] = round % 3 == 0 ? pool[pick(rng)] : normal(rng);
                g[i] = round % 2 ? f[i] : (round % 3 == 0 ? pool[pick(rng)] : normal(rng));
            }
            const std::vector<double> d(f.begin(), f.end()), e(g.begin(), g.end());
            for (std::size_t k : {1u, 3u, 5u}) {
                INFO("n " << n << " round " << round << " k " << k);
                const auto truth = referenceTop(d, k);
                std::vector<std::size_t> sorted = truth;
                std::sort(sorted.begin(), sorted.end());
                for (const auto& offered : {referenceTop(e, k), referenceTop(d, k + 1)}) {
                    std::vector<std::size_t> indices(offered.begin(),
                                                     offered.begin() + static_cast<std::ptrdiff_t>(k));
                    std::reverse(indices.begin(), indices.end()); // any order in
                    std::vector<std::size_t> mine = indices;
                    std::sort(mine.begin(), mine.end());
                    std::size_t out[8];
                    const bool said = isTopKFloat(f.data(), n, indices.data(), k, out);
                    if (mine == sorted) {
                        // Equal sets: yes, unless ties at the k-th value let an
                        // equal value in (then "rank it" is the honest answer).
                        const float kth = f[truth.back()];
                        const auto reaching =
                            std::count_if(f.begin(), f.end(), [&](float x) { return !(x < kth); });
                        CHECK(said == (static_cast<std::size_t>(reaching) == k));
                    } else {
                        CHECK_FALSE(said);
                    }
                    if (said) {
                        ++yes;
                        std::vector<std::size_t> set(out, out + k);
                        std::sort(set.begin(), set.end());
                        CHECK(out[0] == truth[0]);
                        CHECK(set == sorted);
                    } else {
                        ++no;
                    }
                }
                std::vector<float> h = f;
                h[n / 2] = NAN;
                std::size_t out[8];
                CHECK_FALSE(isTopKFloat(h.data(), n, truth.data(), k, out));
            }
        }
    CHECK(yes > 100); // both answers were given, many times
    CHECK(no > 100);
}

// finitePass ranks the rows each block completes (rankThrough), finish the
// rest: wherever the blocks end (mid-row, twice at one place, past the end),
// and whichever rows hold a NaN (deferred to the decoding path), the counts
// are those of ranking every row at once.
TEST_CASE("TopKAgreement gives the same agreement however its rows are ranked through") {
    using gapscope::GapMetrics;
    using gapscope::Operand;
    using gapscope::OperandTransform;
    using gapscope::ScalarType;
    std::mt19937 rng(5);
    std::uniform_int_distribution<int> few(0, 4); // ties, and rows that agree or not
    const std::int64_t rows = 37, width = 41;
    std::vector<float> a(static_cast<std::size_t>(rows * width)), b(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        a[i] = static_cast<float>(few(rng));
        b[i] = static_cast<float>(few(rng));
    }
    // Two rows hold a NaN, each the same row on both sides: the decoding path
    // ranks them alike, so they count as agreeing, and a row left unranked shows.
    for (const std::int64_t r : {3, 20}) {
        std::copy(a.begin() + r * width, a.begin() + (r + 1) * width, b.begin() + r * width);
        a[static_cast<std::size_t>(r * width + r)] = b[static_cast<std::size_t>(r * width + r)] = NAN;
    }
    const auto total = static_cast<std::uint64_t>(a.size());
    const auto operand = [&](const std::vector<float>& v) {
        return Operand::tensor(ScalarType::Float, {rows, width},
                               {reinterpret_cast<const std::uint8_t*>(v.data()), v.size() * sizeof(float)},
                               total);
    };
    const Operand oa = operand(a), ob = operand(b);
    const OperandTransform none;
    GapMetrics once;
    gapscope::TopKAgreement all(oa, ob, total, {rows, width}, none);
    REQUIRE(all.wanted());
    all.finish(once);
    REQUIRE(once.top1_agreement.has_value());
    REQUIRE(once.top5_agreement.has_value());
    // The expected counts, by sorting every row (NaN rows as the decoding path orders them).
    std::uint64_t top1 = 0, top5 = 0;
    for (std::int64_t r = 0; r < rows; ++r) {
        const auto best = [&](const std::vector<float>& v) {
            std::vector<double> d(v.begin() + r * width, v.begin() + (r + 1) * width);
            return referenceTop(d, 5);
        };
        auto x = best(a), y = best(b);
        top1 += x[0] == y[0];
        std::sort(x.begin(), x.end());
        std::sort(y.begin(), y.end());
        top5 += x == y;
    }
    CHECK(*once.top1_agreement == static_cast<double>(top1) / rows);
    CHECK(*once.top5_agreement == static_cast<double>(top5) / rows);
    for (const std::vector<std::uint64_t>& cuts : {std::vector<std::uint64_t>{1, 40, 41, 41, 100, 4096},
                                                   {width * 3 + 2, width * 21},
                                                   {total},
                                                   {total + 100},
                                                   {0, 0}}) {
        GapMetrics m;
        gapscope::TopKAgreement stepped(oa, ob, total, {rows, width}, none);
        for (const auto end : cuts)
            stepped.rankThrough(end);
        stepped.finish(m);
        CHECK(m.top1_agreement == once.top1_agreement);
        CHECK(m.top5_agreement == once.top5_agreement);
    }
}

// Issue 56: per-channel-quantised logits are dequantised channel by channel.
// Codes equal along a row rank by their channel's scale alone: with channel 0's
// parameters for all, every index would tie and index 0 would win.
TEST_CASE("TopKAgreement dequantises per-channel logits with each channel's parameters") {
    using gapscope::GapMetrics;
    using gapscope::Operand;
    using gapscope::OperandTransform;
    using gapscope::ScalarType;
    const std::int64_t rows = 3, width = 6;
    // Reference: row r peaks at index 5 - r. Runtime: int8 code 10 everywhere, scale per column.
    std::vector<float> ref(static_cast<std::size_t>(rows * width), 0.0f);
    std::vector<std::int8_t> codes(ref.size(), 10);
    OperandTransform tf;
    tf.axis = 1;
    tf.zero_point.assign(static_cast<std::size_t>(width), 0);
    tf.scale = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6}; // column 5 largest: top-1 is index 5 in every row
    for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t c = 0; c < width; ++c)
            ref[static_cast<std::size_t>(r * width + c)] = static_cast<float>(c); // top-1 index 5 too
    const auto total = static_cast<std::uint64_t>(ref.size());
    const Operand a =
        Operand::tensor(ScalarType::Float, {rows, width},
                        {reinterpret_cast<const std::uint8_t*>(ref.data()), ref.size() * 4}, total);
    const Operand b =
        Operand::tensor(ScalarType::Char, {rows, width},
                        {reinterpret_cast<const std::uint8_t*>(codes.data()), codes.size()}, total);
    gapscope::TopKAgreement agreement(a, b, total, {rows, width}, tf);
    REQUIRE(agreement.wanted());
    GapMetrics m;
    agreement.finish(m);
    REQUIRE(m.top1_agreement.has_value());
    CHECK(*m.top1_agreement == 1.0);
    CHECK(*m.top5_agreement == 1.0);
}

// The top-k ranking reads each block while it is in cache only if finitePass
// reports the blocks in element order, on the calling thread: every block of
// a tensor of one to three chunks (one lane group), none of one whose chunks
// go through the lanes together.
TEST_CASE("finitePass reports each block's end in order for tensors of fewer than four chunks") {
    using gapscope::kGapBlock;
    using gapscope::kGapChunk;
    for (const std::uint64_t total :
         {std::uint64_t{10000}, kGapChunk + 5, 2 * kGapChunk + kGapBlock + 1, 4 * kGapChunk}) {
        std::vector<float> a(total, 1.5f), b(total, 1.25f);
        const auto operand = [&](const std::vector<float>& v) {
            return gapscope::Operand::tensor(
                gapscope::ScalarType::Float, {static_cast<std::int64_t>(total)},
                {reinterpret_cast<const std::uint8_t*>(v.data()), v.size() * sizeof(float)}, total);
        };
        std::vector<std::uint64_t> ends;
        const auto caller = std::this_thread::get_id();
        bool elsewhere = false;
        const auto acc = gapscope::finitePass(operand(a), operand(b), total, gapscope::GapOptions{},
                                              [&](std::uint64_t end) {
                                                  elsewhere |= std::this_thread::get_id() != caller;
                                                  ends.push_back(end);
                                              });
        INFO("elements " << total);
        REQUIRE(acc.has_value());
        CHECK_FALSE(elsewhere);
        if (total >= 4 * kGapChunk) {
            CHECK(ends.empty());
            continue;
        }
        REQUIRE(!ends.empty());
        CHECK(ends.back() == total);
        CHECK(ends.front() == std::min<std::uint64_t>(kGapBlock, total));
        for (std::size_t i = 1; i < ends.size(); ++i)
            CHECK((ends[i] > ends[i - 1] && ends[i] - ends[i - 1] <= kGapBlock));
    }
}
