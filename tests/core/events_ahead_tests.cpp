// Opening builds the plan's Inspector events beside the capture read when the
// ETDump and the ETRecord alone decide the run and the maps (issue 29): the
// plan takes them only when they are of its own run and maps, and the session
// is then exactly the one planned without them.
#include "core/align/events_ahead.h"
#include "core/compare/comparison.h"
#include "core/etdump/etdump_reader.h"
#include "core/etrecord/etrecord_reader.h"
#include "core/session/session.h"
#include "core/session/workspace.h"
#include "test_support.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <limits>
#include <unistd.h>

using namespace gapscope;

namespace {

// The session as it is planned with no events built ahead: the sort is not
// told which comparison follows it.
std::unique_ptr<Session> loadedInTurn(const SessionInputs& inputs, const SessionOptions& given) {
    SessionOptions options = given;
    options.workspace = std::make_shared<Workspace>();
    const SessionFiles files =
        sortSessionFiles(inputs, options.comparison.method, {}, {}, options.workspace.get(), {});
    auto session = loadSessionFiles(files, options);
    CHECK(options.workspace->eventsAhead().taken() == 0);
    return session;
}

const std::string kMulti = GAPSCOPE_TEST_DATA_DIR "/multimethod_portable";
const std::string kLoop = GAPSCOPE_TEST_DATA_DIR "/decode_loop_portable";

} // namespace

TEST_CASE("events built ahead are the plan's own: taken once, and the session is unchanged",
          "[events_ahead][workspace]") {
    struct Case {
        std::string dir;
        std::optional<std::size_t> run;
        std::string method;
        std::size_t taken;
        std::size_t runtimeTaken; // the runtime side too: the guessed op graph was the plan's
    };
    // The demo (XNNPACK, one method), the QNN demo, a decode loop with a run
    // asked for, and the two-method program: with no run asked, its default run
    // depends on the capture's method, so nothing is built ahead; with a run
    // and method asked, it is. QNN's delegate handles are those of the graph
    // its captures are taken of (edge_after_transform), which the sort guesses;
    // the multi-output session's plan regroups events by tensor name, so it
    // merges its own runtime entries.
    const Case cases[] = {{GAPSCOPE_DEMO_DIR, std::nullopt, "", 1, 1},
                          {GAPSCOPE_QNN_DEMO_DIR, std::nullopt, "", 1, 1},
                          {GAPSCOPE_TEST_DATA_DIR "/qnn_multiout_8a8w", std::nullopt, "", 1, 0},
                          {kLoop, std::size_t{2}, "", 1, 1},
                          {kMulti, std::nullopt, "forward", 0, 0},
                          {kMulti, std::size_t{1}, "prefill", 1, 1}};
    for (const auto& c : cases) {
        INFO(c.dir << " run " << (c.run ? std::to_string(*c.run) : "default") << " method '" << c.method
                   << "'");
        const SessionInputs inputs = test::sessionInputsOf(c.dir);
        SessionOptions options;
        options.workspace = std::make_shared<Workspace>();
        options.comparison.run = c.run;
        options.comparison.method = c.method;
        const auto session = loadSession(inputs, options);
        CHECK(options.workspace->eventsAhead().taken() == c.taken);
        CHECK(options.workspace->eventsAhead().runtimeTaken() == c.runtimeTaken);
        CHECK(test::reportJsonOf(*session) == test::reportJsonOf(*loadedInTurn(inputs, options)));
        // Nothing is left behind for a later plan to take.
        CHECK_FALSE(options.workspace->eventsAhead().take(
            &session->dump->runs[session->comparison->run],
            session->etrecord ? session->etrecord->maps(session->comparison->method) : nullptr));
    }
}

TEST_CASE("the run and maps known before the capture are the ones planComparison takes", "[events_ahead]") {
    auto dump = loadEtdump(kMulti + "/run.etdp", kMulti + "/run.debug.bin");
    auto record = loadEtRecord(kMulti + "/etrecord.bin");
    REQUIRE(dump);
    REQUIRE(record);
    ComparisonOptions options;
    // Two methods and no run asked for: the capture's method picks the run.
    CHECK_FALSE(planKeyBeforeCapture(dump.value(), &record.value(), options));
    options.method = "prefill";
    CHECK_FALSE(planKeyBeforeCapture(dump.value(), &record.value(), options));
    options.run = 1;
    const auto key = planKeyBeforeCapture(dump.value(), &record.value(), options);
    REQUIRE(key);
    CHECK(key->run == &dump.value().runs[1]);
    CHECK(key->maps == record.value().maps("prefill"));
    options.run = dump.value().runs.size(); // no such run: planComparison refuses it
    CHECK_FALSE(planKeyBeforeCapture(dump.value(), &record.value(), options));

    // One method: the first run with debug events, and that method's maps,
    // whether the method is named or not; without an ETRecord, no maps.
    auto demo = loadEtdump(GAPSCOPE_DEMO_DIR "/run.etdp", GAPSCOPE_DEMO_DIR "/run.debug.bin");
    auto demoRecord = loadEtRecord(GAPSCOPE_DEMO_DIR "/etrecord.bin");
    REQUIRE(demo);
    REQUIRE(demoRecord);
    REQUIRE(demoRecord.value().methods.size() == 1);
    const std::string method = demoRecord.value().methods.begin()->first;
    ComparisonOptions none;
    const std::vector<const EtRecord*> records{&demoRecord.value(), nullptr};
    for (const EtRecord* r : records) {
        const auto k = planKeyBeforeCapture(demo.value(), r, none);
        REQUIRE(k);
        CHECK(k->maps == (r ? r->maps(method) : nullptr));
        const auto plan = compareSession(
            demo.value(), r, loadAotCapture(GAPSCOPE_DEMO_DIR "/capture.gscap.safetensors").value(), none);
        REQUIRE(plan);
        CHECK(k->run == &demo.value().runs[plan.value().run]);
    }
}

TEST_CASE("events built ahead go only to the plan of their run and maps", "[events_ahead]") {
    auto dump = loadEtdump(kLoop + "/run.etdp", kLoop + "/run.debug.bin");
    REQUIRE(dump);
    REQUIRE(dump.value().runs.size() >= 3);
    // Run 0 is the method-load block; 1 and 2 are steps of the loop.
    const RunData* first = &dump.value().runs[1];
    const RunData* second = &dump.value().runs[2];
    const MethodMaps maps;
    auto record = loadEtRecord(kLoop + "/etrecord.bin");
    REQUIRE(record);
    const MethodMaps* forward = record.value().maps("forward");
    REQUIRE(forward);

    // The two steps agree with building in one: the op types marked after.
    // Every other event's handles count as ops, so both answers occur.
    auto inTwo = buildInspectorEvents(*first, forward);
    std::vector<std::int64_t> every;
    for (std::size_t i = 0; i < inTwo.size(); i += 2)
        every.insert(every.end(), inTwo[i].resolved.handles.begin(), inTwo[i].resolved.handles.end());
    const OpHandles handles(every);
    for (const auto& e : inTwo)
        CHECK_FALSE(e.has_op_types);
    markOpTypes(inTwo, handles);
    const auto inOne = buildInspectorEvents(*first, forward, handles);
    REQUIRE(inTwo.size() == inOne.size());
    std::size_t marked = 0;
    for (std::size_t i = 0; i < inOne.size(); ++i) {
        CHECK(inTwo[i].name == inOne[i].name);
        CHECK(inTwo[i].has_op_types == inOne[i].has_op_types);
        marked += inOne[i].has_op_types ? 1 : 0;
    }
    CHECK(marked > 0);
    CHECK(marked < inOne.size());

    EventsAhead ahead;
    CHECK_FALSE(ahead.take(first, nullptr)); // nothing put
    ahead.put(first, nullptr, buildInspectorEvents(*first, nullptr));
    CHECK_FALSE(ahead.take(second, nullptr)); // another run: dropped
    CHECK_FALSE(ahead.take(first, nullptr));  // and gone
    ahead.put(first, nullptr, buildInspectorEvents(*first, nullptr));
    CHECK_FALSE(ahead.take(first, &maps)); // other maps: dropped
    CHECK_FALSE(ahead.take(first, nullptr));
    ahead.put(first, nullptr, buildInspectorEvents(*first, nullptr));
    const auto taken = ahead.take(first, nullptr);
    REQUIRE(taken);
    CHECK(taken->events.size() == inOne.size());
    CHECK_FALSE(taken->runtime);             // none came along
    CHECK_FALSE(ahead.take(first, nullptr)); // once
    CHECK(ahead.taken() == 1);
}

TEST_CASE("events built for a plan that fails first are not kept", "[events_ahead]") {
    // A method the ETRecord lacks: the sort builds ahead (the dump and the
    // ETRecord decide its run and maps), and planning refuses the method
    // before it asks for the events.
    SessionOptions options;
    options.workspace = std::make_shared<Workspace>();
    options.comparison.method = "no_such_method";
    const auto session = loadSession(test::sessionInputsOf(GAPSCOPE_DEMO_DIR), options);
    CHECK_FALSE(session->comparison);
    REQUIRE(session->dump);
    CHECK(options.workspace->eventsAhead().taken() == 0);
    const auto key = planKeyBeforeCapture(*session->dump, session->etrecord.get(), options.comparison);
    REQUIRE(key);
    CHECK_FALSE(options.workspace->eventsAhead().take(key->run, key->maps));
}

TEST_CASE("the op graph's handles are found whatever their order and repeats", "[events_ahead][align]") {
    constexpr auto kMin = std::numeric_limits<std::int64_t>::min();
    constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
    // Sparse (sorted and bisected), then dense (a bit per handle of the span).
    for (const bool sparse : {true, false}) {
        INFO((sparse ? "sparse" : "dense"));
        std::vector<std::int64_t> held{7, -3, 7, 0, 42, -3};
        if (sparse)
            held.push_back(9000000000);
        const OpHandles handles(held);
        for (std::int64_t h : held)
            CHECK(handles.contains(h));
        for (std::int64_t h : std::vector<std::int64_t>{1, -4, 8, 43, 8999999999, kMin, kMax})
            CHECK_FALSE(handles.contains(h));
    }
    CHECK(OpHandles({kMin, kMax}).contains(kMax));
    CHECK_FALSE(OpHandles({kMin, kMax}).contains(0));
    CHECK_FALSE(OpHandles().contains(0));
}

TEST_CASE("events are built only when a plan can follow, and none is kept when none took them",
          "[events_ahead]") {
    namespace fs = std::filesystem;
    const fs::path demo = GAPSCOPE_DEMO_DIR;
    const std::vector<std::string> named{(demo / "run.etdp").string(), (demo / "run.debug.bin").string(),
                                         (demo / "etrecord.bin").string()};
    // No capture among the files: no plan follows, so nothing is built.
    std::vector<Error> errors;
    SessionOptions options;
    options.workspace = std::make_shared<Workspace>();
    const auto noCapture = loadSession(sessionInputsFromPaths(named, errors), options);
    REQUIRE(errors.empty());
    REQUIRE(noCapture->dump);
    CHECK_FALSE(noCapture->comparison);
    CHECK(options.workspace->eventsAhead().puts() == 0);

    // A capture whose document is bad: the events are built beside it, no plan
    // takes them, and the workspace does not keep them.
    const fs::path dir = fs::temp_directory_path() / ("gapscope-events-ahead-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const auto bytes = test::safetensorsBytes(
        R"({"__metadata__":{"gapscope.aot_capture":"{\"format\":\"gapscope.aot_capture\",\"version\":1,\"records\":7}"}})");
    {
        std::ofstream out(dir / "capture.gscap.safetensors", std::ios::binary);
        out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    }
    std::vector<std::string> withBad = named;
    withBad.push_back((dir / "capture.gscap.safetensors").string());
    SessionOptions second;
    second.workspace = std::make_shared<Workspace>();
    const auto badCapture = loadSession(sessionInputsFromPaths(withBad, errors), second);
    REQUIRE(errors.empty());
    CHECK_FALSE(badCapture->comparison);
    CHECK_FALSE(badCapture->errors.empty());
    CHECK(second.workspace->eventsAhead().puts() == 1);
    CHECK(second.workspace->eventsAhead().taken() == 0);
    const auto key = planKeyBeforeCapture(*badCapture->dump, badCapture->etrecord.get(), second.comparison);
    REQUIRE(key);
    CHECK_FALSE(second.workspace->eventsAhead().take(key->run, key->maps));
    fs::remove_all(dir);
}

#include "session_builder.h"

namespace {

// What the runtime side decides, as a plan shows it: the runtime entries, the
// op names per key, and what coverage says of every event.
std::vector<std::string> runtimeSideSeenIn(const Comparison& c) {
    std::vector<std::string> seen;
    const auto handles = [](const HandleTuple& t) {
        std::string s;
        for (auto h : t)
            s += std::to_string(h) + ",";
        return s;
    };
    for (const auto& r : c.alignment().runtime)
        seen.push_back("entry " + handles(r.handles) + " " + r.event->name);
    for (const auto& [key, name] : c.alignment().runtime_op_names)
        seen.push_back("name " + handles(*key) + " " + *name);
    for (const auto& item : c.coverage)
        seen.push_back("coverage " + std::string(coverageKindName(item.kind)) + " " + item.what + " " +
                       handles(item.handles));
    seen.push_back("rows " + std::to_string(c.rows.size()));
    return seen;
}

} // namespace

TEST_CASE("the runtime side built ahead is used only where the plan's op types are the guessed ones",
          "[events_ahead][align]") {
    // No ETRecord: the sort guesses that every handle is an op's, and the
    // capture's handles decide. Event 3 has no reference record in the second
    // case, so it is no op there: the guess is wrong, and the runtime side
    // built on it (which would list event 3 as a runtime entry without a
    // reference) must not be used.
    for (const bool recordThree : {true, false}) {
        INFO("a reference record for handle 3: " << recordThree);
        test::SessionBuilder b;
        b.debug(0, b.tensor({1, 2}, {2}), -1, "conv__debugID_1");
        b.debug(1, b.tensor({0, 2}, {2}), -1, "relu__debugID_2");
        b.debug(2, b.tensor({4, 4}, {2}), -1, "extra__debugID_3");
        b.record({1}, {"conv2d"}, {{{1, 2}, {2}}});
        b.record({2}, {"relu"}, {{{0, 3}, {2}}});
        if (recordThree)
            b.record({3}, {"extra"}, {{{4, 4}, {2}}});
        b.compare(std::nullopt, false);
        const EtDump& dump = b.builtDump();
        const AotCapture& capture = b.builtCapture();

        const auto inTurn = planComparison(dump, nullptr, capture, {});
        REQUIRE(inTurn);

        EventsAhead ahead;
        auto events = buildInspectorEvents(dump.runs.front(), nullptr);
        markOpTypes(events, OpHandles::every());
        auto runtime = runtimeSideOf(events);
        CHECK(runtime.entries.size() == 3);
        ahead.put(&dump.runs.front(), nullptr, std::move(events), std::move(runtime));
        ComparisonOptions options;
        options.events_ahead = &ahead;
        const auto withAhead = planComparison(dump, nullptr, capture, options);
        REQUIRE(withAhead);
        CHECK(ahead.taken() == 1);
        CHECK(ahead.runtimeTaken() == (recordThree ? 1u : 0u));
        CHECK(runtimeSideSeenIn(withAhead.value().comparison) ==
              runtimeSideSeenIn(inTurn.value().comparison));
        CHECK(inTurn.value().comparison.alignment().runtime.size() == (recordThree ? 3u : 2u));
    }
}

TEST_CASE("marking op types says how many events it changed", "[events_ahead][align]") {
    auto dump = loadEtdump(kLoop + "/run.etdp", kLoop + "/run.debug.bin");
    auto record = loadEtRecord(kLoop + "/etrecord.bin");
    REQUIRE(dump);
    REQUIRE(record);
    auto events = buildInspectorEvents(dump.value().runs[1], record.value().maps("forward"));
    std::size_t withHandles = 0;
    for (const auto& e : events)
        if (!e.resolved.handles.empty() && !isFrameworkEventName(e.name))
            ++withHandles;
    REQUIRE(withHandles > 0);
    CHECK(markOpTypes(events, OpHandles::every()) == withHandles);
    CHECK(markOpTypes(events, OpHandles::every()) == 0);
    CHECK(markOpTypes(events, OpHandles()) == withHandles);
    CHECK(markOpTypes(events, OpHandles()) == 0);
}
