// The read stage builds the plan's Inspector events on its second core while
// the captures are read (issue 29's speed-up), and hands them to the plan
// stage as a value (issue 57: no slot in the workspace, no pointer in the
// options). The plan takes them only when they are of its own run and maps,
// and the session is then exactly the one planned without them.
#include "core/compare/comparison.h"
#include "core/compare/events_built.h"
#include "core/etdump/etdump_reader.h"
#include "core/etrecord/etrecord_reader.h"
#include "core/session/session.h"
#include "core/session/workspace.h"
#include "test_support.h"

#include <catch2/catch.hpp>

using namespace gapscope;

namespace {

const std::string kMulti = GAPSCOPE_TEST_DATA_DIR "/multimethod_portable";
const std::string kLoop = GAPSCOPE_TEST_DATA_DIR "/decode_loop_portable";

} // namespace

TEST_CASE("events built before the capture are the plan's own, and the session is unchanged",
          "[events_built]") {
    struct Case {
        std::string dir;
        std::optional<std::size_t> run;
        std::string method;
        bool built;
        bool runtime; // the runtime side too: the guessed op graph was the plan's
    };
    // The demo (XNNPACK, one method), the QNN demo, a decode loop with a run
    // asked for, and the two-method program: with no run asked, its default run
    // depends on the capture's method, so nothing is built before; with a run
    // and method asked, it is. The multi-output session's plan regroups events
    // by tensor name, so it merges its own runtime entries.
    const Case cases[] = {{GAPSCOPE_DEMO_DIR, std::nullopt, "", true, true},
                          {GAPSCOPE_QNN_DEMO_DIR, std::nullopt, "", true, true},
                          {GAPSCOPE_TEST_DATA_DIR "/qnn_multiout_8a8w", std::nullopt, "", true, false},
                          {kLoop, std::size_t{2}, "", true, true},
                          {kMulti, std::nullopt, "forward", false, false},
                          {kMulti, std::size_t{1}, "prefill", true, true}};
    for (const auto& c : cases) {
        INFO(c.dir << " run " << (c.run ? std::to_string(*c.run) : "default") << " method '" << c.method
                   << "'");
        const SessionInputs inputs = test::sessionInputsOf(c.dir);
        SessionOptions options;
        options.workspace = std::make_shared<Workspace>();
        options.comparison.run = c.run;
        options.comparison.method = c.method;
        std::optional<EventsBuilt> events;
        const SessionFiles files = sortSessionFiles(inputs, c.method, {}, {}, options.workspace.get(), {},
                                                    &options.comparison, &events);
        CHECK(events.has_value() == c.built);
        // The plan stage, given them, and without them.
        const auto dump = options.workspace->etdump(files.etdump, files.debug_buffer, {});
        REQUIRE(dump);
        std::shared_ptr<const EtRecord> etrecord;
        if (files.etrecord) {
            const auto read = options.workspace->etrecord(files.etrecord);
            REQUIRE(read);
            etrecord = read.value();
        }
        REQUIRE(files.parsed_capture);
        auto with = planComparison(*dump.value(), etrecord.get(), *files.parsed_capture, options.comparison,
                                   std::move(events));
        REQUIRE(with);
        CHECK(with.value().events_taken == c.built);
        CHECK(with.value().runtime_taken == c.runtime);
        // The whole open, with and without them: the same report.
        std::optional<EventsBuilt> again;
        sortSessionFiles(inputs, c.method, {}, {}, options.workspace.get(), {}, &options.comparison, &again);
        const auto session = loadSessionFiles(files, options, std::move(again));
        CHECK(test::reportJsonOf(*session) == test::reportJsonOf(*loadSessionFiles(files, options)));
    }
}

TEST_CASE("the run and maps known before the capture are the ones planComparison takes", "[events_built]") {
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
}

TEST_CASE("events built for another run or other maps are not taken", "[events_built]") {
    auto dump = loadEtdump(kLoop + "/run.etdp", kLoop + "/run.debug.bin");
    auto record = loadEtRecord(kLoop + "/etrecord.bin");
    auto capture = loadAotCapture(kLoop + "/capture.forward.step-001.gscap.safetensors");
    REQUIRE(dump);
    REQUIRE(record);
    REQUIRE(capture);
    ComparisonOptions atTwo;
    atTwo.run = 2;
    ComparisonOptions atOne;
    atOne.run = 1;
    auto built = buildEventsBeforeCapture(dump.value(), &record.value(), atTwo);
    REQUIRE(built);
    const auto other =
        planComparison(dump.value(), &record.value(), capture.value(), atOne, std::move(built));
    REQUIRE(other);
    CHECK_FALSE(other.value().events_taken); // run 2's events, plan of run 1
    const auto plain = planComparison(dump.value(), &record.value(), capture.value(), atOne);
    REQUIRE(plain);
    CHECK(other.value().comparison.rows.size() == plain.value().comparison.rows.size());
    // Without the ETRecord's maps the key differs too.
    auto noMaps = buildEventsBeforeCapture(dump.value(), nullptr, atOne);
    REQUIRE(noMaps);
    const auto mapsDiffer =
        planComparison(dump.value(), &record.value(), capture.value(), atOne, std::move(noMaps));
    REQUIRE(mapsDiffer);
    CHECK_FALSE(mapsDiffer.value().events_taken);
}

TEST_CASE("marking op types says how many events it changed", "[events_built][align]") {
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
