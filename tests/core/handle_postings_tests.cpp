#include "core/align/handle_postings.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <vector>

using namespace gapscope;

namespace {

using Tuple = std::vector<std::int64_t>;

// What a map from handle to the tuples holding it gives (the structure the
// flat postings replace): every (tuple, handle) occurrence, tuples ascending.
std::vector<std::size_t> scan(const std::vector<Tuple>& tuples, std::int64_t handle, std::size_t base) {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < tuples.size(); ++i)
        for (auto h : tuples[i])
            if (h == handle)
                out.push_back(base + i);
    return out;
}

void checkAgainstScan(const std::vector<Tuple>& tuples, const std::vector<std::int64_t>& probes,
                      std::size_t base) {
    std::vector<const Tuple*> borrowed;
    for (const auto& t : tuples)
        borrowed.push_back(&t);
    const HandlePostings postings(borrowed, base);
    for (auto h : probes) {
        const auto range = postings.of(h);
        CHECK(std::vector<std::size_t>(range.begin(), range.end()) == scan(tuples, h, base));
    }
}

constexpr auto kMin = std::numeric_limits<std::int64_t>::min();
constexpr auto kMax = std::numeric_limits<std::int64_t>::max();

} // namespace

// Dense handles use a counting sort, sparse ones a sorted key list; both must
// list the same tuples a scan finds, a handle twice in one tuple twice, and
// nothing for a handle outside the range (the extremes of int64 included).
TEST_CASE("handle postings list the tuples holding a handle as a scan does", "[align]") {
    const std::vector<std::int64_t> probes{kMin, kMin + 1, -5, -1,   0,       1,        2,   3,
                                           4,    7,        9,  1000, 1 << 20, kMax - 1, kMax};
    SECTION("dense handles") {
        checkAgainstScan({{3}, {1, 2}, {}, {2, 9}, {1}, {4, 1, 2}, {2, 2}}, probes, 0);
        checkAgainstScan({{3}, {1, 2}, {}, {2, 9}}, probes, 17);
    }
    SECTION("negative and dense") {
        checkAgainstScan({{-5, -1}, {-1}, {0}, {-5}}, probes, 0);
    }
    SECTION("sparse handles") {
        checkAgainstScan({{kMax}, {kMin, 0}, {1 << 20}, {kMax, kMin}, {1000, 1000}}, probes, 3);
    }
    SECTION("dense at the bottom of int64") {
        checkAgainstScan({{kMin}, {kMin + 1}, {kMin}}, probes, 0);
    }
    SECTION("dense at the top of int64") {
        checkAgainstScan({{kMax}, {kMax - 1}, {kMax}}, probes, 0);
    }
    SECTION("no handles at all") {
        checkAgainstScan({{}, {}}, probes, 0);
    }
}
