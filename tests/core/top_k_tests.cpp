#include "core/metrics/top_k.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <numeric>
#include <random>
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
    // Few distinct values, so ties are common; lengths cross the 8-wide SSE2 blocks.
    std::uniform_int_distribution<int> value(-5, 5);
    for (std::size_t n : {0u, 1u, 7u, 8u, 9u, 17u, 64u, 100u}) {
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
