// The one way background work starts: a job per request, superseded and
// cancelled by the next; long metric work stops between blocks once cancelled.

#include "core/common/job_tracker.h"
#include "core/metrics/gap_metrics.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <thread>
#include <vector>

using namespace gapscope;

TEST_CASE("a new job supersedes and cancels the running one, and the tracker waits for both",
          "[job_tracker]") {
    JobTracker jobs;
    std::atomic<bool> firstSawCancel{false}, secondRan{false};
    std::atomic<bool> firstStarted{false};
    const auto first = jobs.start([&](std::uint64_t, const std::atomic<bool>& cancelled) {
        firstStarted = true;
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (!cancelled.load() && std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        firstSawCancel = cancelled.load();
    });
    CHECK(jobs.isCurrent(first));
    while (!firstStarted)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    const auto second = jobs.start([&](std::uint64_t generation, const std::atomic<bool>& cancelled) {
        CHECK_FALSE(cancelled.load());
        CHECK(generation != first);
        secondRan = true;
    });
    CHECK_FALSE(jobs.isCurrent(first)); // what the first delivers now is stale
    CHECK(jobs.isCurrent(second));
    jobs.waitForIdle();
    CHECK(firstSawCancel);
    CHECK(secondRan);
    CHECK(jobs.running() == 0);
    jobs.cancel();
    CHECK_FALSE(jobs.isCurrent(second));
}

TEST_CASE("a tracker destroyed with a job running cancels it and waits for it to return", "[job_tracker]") {
    std::atomic<bool> returned{false};
    {
        JobTracker jobs;
        jobs.start([&](std::uint64_t, const std::atomic<bool>& cancelled) {
            while (!cancelled.load())
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            returned = true;
        });
    }
    CHECK(returned);
}

TEST_CASE("computeGap stops on a set cancellation flag and says so instead of returning numbers",
          "[job_tracker][metrics]") {
    std::vector<float> a(3u << 20, 1.0f), b(3u << 20, 1.5f); // several chunks
    const auto operand = [](const std::vector<float>& v) {
        return Operand::tensor(
            ScalarType::Float, {static_cast<std::int64_t>(v.size())},
            ByteSpan{reinterpret_cast<const std::uint8_t*>(v.data()), v.size() * sizeof(float)}, v.size());
    };
    const Operand aot = operand(a), runtime = operand(b);
    GapOptions options;
    REQUIRE(computeGap(aot, runtime, options).metrics); // measurable when nobody cancels
    std::atomic<bool> cancelled{true};
    options.cancelled = &cancelled;
    for (const auto axis : {std::optional<std::int64_t>{}, std::optional<std::int64_t>{0}}) {
        options.breakdown_axis = axis;
        const auto g = computeGap(aot, runtime, options);
        CHECK_FALSE(g.metrics);
        CHECK(g.problem == "cancelled");
    }
}

#include "core/common/side_task.h"

#include <condition_variable>
#include <memory>
#include <mutex>

// A side task joined while every background thread is taken runs on the joiner:
// jobs that each wait for one (a load waiting for its ETRecord digest) cannot
// deadlock, however many hold the threads.
TEST_CASE("a side task runs on the caller when no background thread is free", "[job_tracker][side_task]") {
    struct Gate {
        std::mutex mutex;
        std::condition_variable cv;
        bool open = false;
        int blocked = 0, released = 0;
    };
    auto gate = std::make_shared<Gate>();
    constexpr int kBlockers = 64; // more than there are background threads
    for (int i = 0; i < kBlockers; ++i)
        runInBackground([gate] {
            std::unique_lock<std::mutex> lock(gate->mutex);
            ++gate->blocked;
            gate->cv.notify_all();
            gate->cv.wait(lock, [&] { return gate->open; });
            ++gate->released;
            gate->cv.notify_all();
        });
    {
        // Every thread holds a blocker (the first ones started), the rest queue.
        std::unique_lock<std::mutex> lock(gate->mutex);
        gate->cv.wait(lock, [&] { return gate->blocked >= 3; });
    }
    const auto caller = std::this_thread::get_id();
    SideTask<std::thread::id> side([] { return std::this_thread::get_id(); });
    CHECK(side.get() == caller); // queued behind the blockers: withdrawn and run here
    {
        std::lock_guard<std::mutex> lock(gate->mutex);
        gate->open = true;
    }
    gate->cv.notify_all();
    std::unique_lock<std::mutex> lock(gate->mutex);
    gate->cv.wait(lock, [&] { return gate->released == kBlockers; });
}

TEST_CASE("a side task started on a free thread delivers its result to get()", "[job_tracker][side_task]") {
    SideTask<int> side([] { return 42; });
    CHECK(side.get() == 42);
    int seen = 0;
    {
        SideTask<int> unjoined([&seen] { return seen = 7; }); // the destructor joins
    }
    CHECK(seen == 7);
}
