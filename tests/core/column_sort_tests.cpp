// The column sort (eight columns of keys sorted at once by a bitonic network)
// against std::sort per column, on the AVX2 path and the scalar one; and the
// closed-form broadcast gap it serves, bit for bit against the per-group radix
// sort it replaces.

#include "core/metrics/broadcast_gap.h"
#include "core/metrics/column_sort.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <vector>

using namespace gapscope;

namespace {

struct ColumnSortPath {
    explicit ColumnSortPath(bool fast) { allowFastColumnSort(fast); }
    ~ColumnSortPath() { allowFastColumnSort(true); }
};

} // namespace

TEST_CASE("eight columns sorted at once equal std::sort of each column", "[metrics][column-sort]") {
    std::mt19937 rng(5);
    for (const bool fast : {true, false}) {
        const ColumnSortPath path(fast);
        for (const std::size_t rows : {2u, 4u, 8u, 64u, 256u, 1024u}) {
            INFO((fast ? "fast path" : "scalar path") << ", " << rows << " rows");
            std::vector<std::uint32_t> keys(rows * kSortColumns);
            // Columns of few distinct keys (ties), the full range, and the extremes.
            std::uniform_int_distribution<std::uint32_t> few(0, 5), any;
            for (std::size_t i = 0; i < keys.size(); ++i) {
                const std::size_t column = i % kSortColumns;
                keys[i] = column < 3 ? few(rng) : column == 7 ? (i % 3 ? 0u : UINT32_MAX) : any(rng);
            }
            std::vector<std::vector<std::uint32_t>> expected(kSortColumns);
            for (std::size_t i = 0; i < keys.size(); ++i)
                expected[i % kSortColumns].push_back(keys[i]);
            for (auto& column : expected)
                std::sort(column.begin(), column.end());
            sortColumns(keys.data(), rows);
            for (std::size_t c = 0; c < kSortColumns; ++c) {
                std::vector<std::uint32_t> got;
                for (std::size_t r = 0; r < rows; ++r)
                    got.push_back(keys[r * kSortColumns + c]);
                CHECK(got == expected[c]);
            }
        }
    }
}

TEST_CASE("the closed-form broadcast gap is bit-identical with the column sort and without",
          "[metrics][broadcast][column-sort]") {
#if defined(__x86_64__)
    // A pass must mean the AVX2 path was compared: an x86-64 machine without AVX2
    // cannot run this test, and says so by failing rather than passing empty.
    INFO("this x86-64 CPU has no AVX2: the column sort's AVX2 path cannot be tested here");
    REQUIRE(fastColumnSort());
#else
    if (!fastColumnSort())
        return; // no AVX2 path exists on this architecture: nothing to compare
#endif
    std::mt19937 rng(9);
    std::normal_distribution<double> normal(-0.2, 3.0);
    // [G, P, 1] against [G, 1, Q]-like layouts: groups innermost or outermost,
    // group counts off the tile of eight, P and Q off powers of two, ties, zeros
    // of both signs, and a side longer than the network takes (radix on both).
    const std::vector<std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>>> cases = {
        {{197, 1, 13}, {1, 197, 13}}, {{3, 9, 1, 5}, {3, 1, 9, 5}}, {{2, 1}, {1, 2}},
        {{17, 1, 8}, {1, 31, 8}},     {{600, 1, 3}, {1, 4, 3}},     {{5, 33, 1}, {5, 1, 2}},
    };
    for (const auto& [as, bs] : cases) {
        std::uint64_t na = 1, nb = 1;
        for (auto d : as)
            na *= static_cast<std::uint64_t>(d);
        for (auto d : bs)
            nb *= static_cast<std::uint64_t>(d);
        // Magnitudes from 1e-3 to 1e6 side by side: the sums' compensations
        // carry bits the result shows.
        std::uniform_int_distribution<int> exponent(-3, 6);
        const auto value = [&] { return static_cast<float>(normal(rng) * std::pow(10.0, exponent(rng))); };
        std::vector<float> a, b;
        for (std::uint64_t i = 0; i < na; ++i)
            a.push_back(i % 7 == 0 ? 0.0f : i % 11 == 0 ? -0.0f : value());
        for (std::uint64_t i = 0; i < nb; ++i)
            b.push_back(i % 5 == 0 ? 1.0f : value());
        const auto ao = Operand::tensor(ScalarType::Float, as,
                                        {reinterpret_cast<const std::uint8_t*>(a.data()), a.size() * 4}, na);
        const auto bo = Operand::tensor(ScalarType::Float, bs,
                                        {reinterpret_cast<const std::uint8_t*>(b.data()), b.size() * 4}, nb);
        const auto columns = executorchBroadcastGap(ao, bo);
        std::optional<BroadcastSums> radix;
        {
            const ColumnSortPath path(false);
            radix = executorchBroadcastGap(ao, bo);
        }
        INFO("reference elements " << na << ", runtime elements " << nb);
        REQUIRE(columns);
        REQUIRE(radix);
        CHECK(columns->mse == radix->mse);
        CHECK(columns->l1 == radix->l1);
        CHECK(columns->snr == radix->snr);
    }
}

#include "core/metrics/compensated_sum.h"
#include "core/metrics/lane_sums.h"

#include <cstring>

// Eight sums at once (TwoSum in AVX2 lanes) hold exactly what Sum::add holds,
// compensation included, on values whose magnitudes span 1e-30 to 1e30 (each
// addition loses bits the compensation keeps), with zeros of both signs.
TEST_CASE("lane sums equal Sum::add bit for bit, compensation included", "[metrics][column-sort]") {
#if defined(__x86_64__)
    INFO("this x86-64 CPU has no AVX2: the AVX2 lane sums cannot be tested here");
    REQUIRE(haveLaneSums());
#endif
    // The dispatched lanes (AVX2 where the CPU has it) and the scalar ones, which
    // are compiled everywhere and must hold the same bits.
    const auto scalar = GENERATE(false, true);
    std::mt19937 rng(3);
    std::normal_distribution<double> normal;
    std::uniform_int_distribution<int> exponent(-30, 30);
    for (const std::size_t n : {1u, 2u, 7u, 197u, 1000u}) {
        std::vector<double> rows(n * 8);
        for (std::size_t i = 0; i < rows.size(); ++i)
            rows[i] =
                i % 13 == 0 ? -0.0
                : i % 17 == 0
                    ? 0.0
                    : static_cast<double>(static_cast<float>(normal(rng) * std::pow(10.0, exponent(rng))));
        Sum sum[8], square[8];
        (scalar ? laneSumsScalar : laneSums)(rows.data(), n, sum, square);
        bool compensated = false;
        for (std::size_t j = 0; j < 8; ++j) {
            Sum s, s2;
            for (std::size_t p = 0; p < n; ++p)
                s.add(rows[p * 8 + j]), s2.add(rows[p * 8 + j] * rows[p * 8 + j]);
            INFO((scalar ? "scalar" : "dispatched") << " lanes, " << n << " values, lane " << j);
            CHECK(std::memcmp(&sum[j].s, &s.s, sizeof(double)) == 0);
            CHECK(std::memcmp(&sum[j].c, &s.c, sizeof(double)) == 0);
            CHECK(std::memcmp(&square[j].s, &s2.s, sizeof(double)) == 0);
            CHECK(std::memcmp(&square[j].c, &s2.c, sizeof(double)) == 0);
            compensated = compensated || s.c != 0;
        }
        if (n > 2)
            CHECK(compensated); // the data exercised the compensation
    }
}
