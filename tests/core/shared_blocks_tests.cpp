// A comparison's rows in blocks that copies share (issue 57): a snapshot
// copies a pointer per block, and a write copies only the block it touches.
#include "core/common/shared_blocks.h"
#include "core/session/session.h"
#include "test_support.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <numeric>
#include <string>

using namespace gapscope;

TEST_CASE("copies share blocks until one is written, and only that block is copied", "[shared_blocks]") {
    SharedBlocks<std::string> a;
    constexpr std::size_t n = 3 * SharedBlocks<std::string>::kBlock + 7;
    for (std::size_t i = 0; i < n; ++i)
        a.push_back(std::to_string(i));
    REQUIRE(a.size() == n);
    const SharedBlocks<std::string> b = a; // a snapshot
    const auto& ca = a;
    for (std::size_t i : {std::size_t{0}, std::size_t{300}, n - 1})
        CHECK(&ca[i] == &b[i]); // the same element, not a copy
    a[300] = "written";         // block 1 only
    CHECK(b[300] == "300");     // the snapshot is unchanged
    CHECK(a[300] == "written");
    CHECK(&ca[300] != &b[300]);
    CHECK(&ca[299] != &b[299]); // the rest of block 1 was copied with it
    CHECK(&ca[0] == &b[0]);     // blocks 0, 2 and 3 are still shared
    CHECK(&ca[600] == &b[600]);
    CHECK(&ca[n - 1] == &b[n - 1]);
    // Writable iteration owns every block first; reading never does.
    std::size_t count = 0;
    for (const auto& s : b)
        count += !s.empty();
    CHECK(count == n);
    for (auto& s : a)
        s += "!";
    CHECK(b[0] == "0");
    CHECK(a[0] == "0!");
    CHECK(std::count_if(b.begin(), b.end(), [](const std::string& s) { return s.back() == '!'; }) == 0);
    CHECK(b.end() - b.begin() == static_cast<std::ptrdiff_t>(n));
    CHECK(std::find(b.begin(), b.end(), "300") - b.begin() == 300);
}

TEST_CASE("resize, clear, at and back behave as a vector's", "[shared_blocks]") {
    SharedBlocks<int> v;
    v.resize(600);
    CHECK(v.size() == 600);
    CHECK(v.back() == 0);
    v[599] = 5;
    const SharedBlocks<int> kept = v;
    v.resize(257);
    CHECK(v.size() == 257);
    CHECK(kept.size() == 600);
    CHECK(kept.back() == 5);
    CHECK_THROWS_AS(v.at(257), std::out_of_range);
    v.clear();
    CHECK(v.empty());
    CHECK(kept.at(599) == 5);
    const SharedBlocks<int> listed{1, 2, 3};
    CHECK(std::accumulate(listed.begin(), listed.end(), 0) == 6);
}

TEST_CASE("a session snapshot shares its rows: a copy made after each batch copies no row",
          "[shared_blocks]") {
    const auto session = loadSession(test::sessionInputsOf(GAPSCOPE_DEMO_DIR));
    REQUIRE(session->comparison);
    const Session snapshot = *session; // what the loader publishes
    const auto& rows = session->comparison->rows;
    REQUIRE(!rows.empty());
    for (std::size_t i = 0; i < rows.size(); ++i)
        CHECK(&rows[i] == &snapshot.comparison->rows[i]);
    // Judged by another threshold: the same rows, another first divergence.
    const Session strict = withThreshold(*session, {Metric::Snr, 400.0});
    CHECK(&strict.comparison->rows[0] == &rows[0]);
}
