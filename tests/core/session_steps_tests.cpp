// One way to walk a decode loop's steps (issue 57): the app's steps view
// (compareSteps) and `compare --all-runs` both go through forEachStep, which
// compares a window of steps in parallel and hands them over in step order.
// On a real six-step loop written by ExecuTorch (tests/data/decode_loop_portable).
#include "core/compare/run_checks.h"
#include "core/session/session_steps.h"
#include "core/session/workspace.h"
#include "test_support.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>

using namespace gapscope;

namespace {

const std::string kLoop = GAPSCOPE_TEST_DATA_DIR "/decode_loop_portable";

std::unique_ptr<Session> openLoop(SessionOptions& options) {
    options.workspace = std::make_shared<Workspace>(test::sessionInputsOf(kLoop.c_str()));
    return loadSession(options.workspace->fileSet(0)->inputs, options);
}

std::string stepOf(const Session& s) {
    return std::filesystem::path(s.capture_file->path()).filename().string();
}

} // namespace

TEST_CASE(
    "every step is visited in order, each against its own step capture, as a session opened at that run",
    "[steps]") {
    SessionOptions options;
    const auto first = openLoop(options);
    REQUIRE(first->comparison);
    const SessionFiles files = stepFiles(*first, options);
    std::vector<std::size_t> seen;
    std::vector<const Session*> reused;
    const auto walk = forEachStep(
        *first, files, options,
        [&](std::size_t k, std::size_t run, const Session& step) {
            CHECK(k == seen.size());
            seen.push_back(run);
            if (&step == first.get())
                reused.push_back(&step);
            char name[64];
            std::snprintf(name, sizeof name, "capture.forward.step-%03zu.gscap.safetensors", k);
            CHECK(stepOf(step) == name);
            // The step is exactly the session opened at that run alone.
            SessionOptions alone;
            alone.comparison.run = run;
            const auto fresh = loadSession(test::sessionInputsOf(kLoop.c_str()), alone);
            CHECK(test::reportJsonOf(step) == test::reportJsonOf(*fresh));
            return true;
        },
        first.get());
    CHECK(walk.visited == 6);
    CHECK_FALSE(walk.cancelled);
    CHECK(seen == walk.runs);
    // The session given serves its own run: compared once, not again.
    CHECK(reused.size() == 1);
}

TEST_CASE("a walk stops where its visitor says, and a cancelled walk visits nothing", "[steps]") {
    SessionOptions options;
    const auto first = openLoop(options);
    const SessionFiles files = stepFiles(*first, options);
    std::size_t calls = 0;
    const auto stopped = forEachStep(*first, files, options, [&](std::size_t k, std::size_t, const Session&) {
        ++calls;
        return k < 1;
    });
    CHECK(calls == 2);
    CHECK(stopped.visited == 2);
    std::atomic<bool> cancelled{true};
    calls = 0;
    const auto none = forEachStep(
        *first, files, options,
        [&](std::size_t, std::size_t, const Session&) {
            ++calls;
            return true;
        },
        nullptr, &cancelled);
    CHECK(calls == 0);
    CHECK(none.cancelled);
    // The steps view says why it has none.
    CHECK(compareSteps(*first, options, &cancelled).error == "cancelled");
}

TEST_CASE("the steps view's summaries are the walk's steps, labelled by their capture", "[steps]") {
    SessionOptions options;
    const auto first = openLoop(options);
    const auto steps = compareSteps(*first, options);
    REQUIRE(steps.error.empty());
    REQUIRE(steps.steps.size() == 6);
    CHECK(steps.runs ==
          executionsOf(*first->dump, first->comparison->method, first->comparison->run_methods));
    CHECK(steps.steps[2].label == "step 2 (capture.forward.step-002.gscap.safetensors)");
    CHECK(steps.steps[2].rows.size() == first->comparison->rows.size());
}
