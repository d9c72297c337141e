// orderedPipeline: items produced on every core, consumed in order on the
// calling thread, never more than a window ahead; a consumer's "stop" ends it.
#include "core/common/ordered_pipeline.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

using gapscope::orderedPipeline;

TEST_CASE("orderedPipeline consumes every item in order on the calling thread, a window ahead at most") {
    for (const std::size_t window : {1u, 3u, 8u}) {
        INFO("window " << window);
        const std::size_t n = 40;
        std::vector<int> items(n, -1);
        std::vector<std::size_t> order;
        std::atomic<std::size_t> produced{0}, consumed{0}, mostAhead{0};
        const auto caller = std::this_thread::get_id();
        bool onCaller = true;
        const auto total = orderedPipeline(
            n, window,
            [&](std::size_t i) {
                const std::size_t ahead = ++produced - consumed.load();
                for (auto seen = mostAhead.load();
                     ahead > seen && !mostAhead.compare_exchange_weak(seen, ahead);)
                    ;
                // Uneven work: later items are sometimes ready before earlier ones.
                std::this_thread::sleep_for(std::chrono::microseconds(i % 3 == 0 ? 300 : 10));
                items[i] = static_cast<int>(i) * 2;
            },
            [&](std::size_t i) {
                onCaller = onCaller && std::this_thread::get_id() == caller;
                CHECK(items[i] == static_cast<int>(i) * 2); // produced before it is consumed
                order.push_back(i);
                ++consumed;
                return true;
            });
        CHECK(total == n);
        CHECK(onCaller);
        std::vector<std::size_t> expected(n);
        for (std::size_t i = 0; i < n; ++i)
            expected[i] = i;
        CHECK(order == expected);
        CHECK(mostAhead.load() <= window);
    }
}

TEST_CASE("orderedPipeline stops where the consumer says so, and starts nothing past its window") {
    std::atomic<std::size_t> produced{0};
    std::vector<std::size_t> order;
    const auto total = orderedPipeline(
        100, 4, [&](std::size_t) { ++produced; },
        [&](std::size_t i) {
            order.push_back(i);
            return i < 9; // the tenth says stop
        });
    CHECK(total == 10);
    CHECK(order.size() == 10);
    CHECK(produced.load() <= 10 + 4);
    CHECK(orderedPipeline(
              0, 4, [](std::size_t) {}, [](std::size_t) { return true; }) == 0);
}
