// The column sort (eight columns of keys sorted at once by a bitonic network)
// against std::sort per column, on the AVX2 path and the scalar one; and the
// closed-form broadcast gap it serves, bit for bit against the per-group radix
// sort it replaces.

#include "core/metrics/broadcast_gap.h"
#include "core/metrics/column_sort.h"

#include <algorithm>
#include <catch2/catch.hpp>
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
    if (!fastColumnSort()) {
        WARN("no AVX2: the closed form sorts group by group on this machine; nothing to compare");
        return;
    }
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
        std::vector<float> a, b;
        for (std::uint64_t i = 0; i < na; ++i)
            a.push_back(i % 7 == 0 ? 0.0f : i % 11 == 0 ? -0.0f : static_cast<float>(normal(rng)));
        for (std::uint64_t i = 0; i < nb; ++i)
            b.push_back(i % 5 == 0 ? 1.0f : static_cast<float>(normal(rng)));
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
