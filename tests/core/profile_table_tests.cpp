// The timing table (issue 26, docs/profiling.md): ExecuTorch's Inspector's
// to_dataframe() rule for rule. Expected values are ExecuTorch's own: numpy's
// percentiles and mean printed by numpy, and the Inspector's table of the real
// ETDump fixtures (../shared/fixtures/etdump, written by ETDumpGen), read with
// ExecuTorch 1.5.1's Inspector. tests/e2e/check_profile.py compares whole
// sessions with the Inspector itself.
#include "core/etdump/etdump_reader.h"
#include "core/etrecord/etrecord_reader.h"
#include "core/profile/perf_stats.h"
#include "core/profile/profile_table.h"
#include "core/profile/time_scale.h"
#include "core/report/profile_report.h"
#include "test_support.h"

#include <catch2/catch.hpp>
#include <set>

using namespace gapscope;

TEST_CASE("percentiles and mean as numpy computes them", "[profile]") {
    const auto s = perfStats({0.3, 0.1, 0.2, 0.7});
    CHECK(s.p10 == Approx(0.13).epsilon(1e-15));
    CHECK(s.p50 == Approx(0.25).epsilon(1e-15));
    CHECK(s.p90 == Approx(0.5800000000000001).epsilon(1e-15));
    CHECK(s.avg == Approx(0.325).epsilon(1e-15));
    CHECK(s.min == 0.1);
    CHECK(s.max == 0.7);
    const auto two = perfStats({1.0, 2.0});
    CHECK(two.p10 == Approx(1.1).epsilon(1e-15));
    CHECK(two.p90 == Approx(1.9).epsilon(1e-15));
    const auto seven = perfStats({5e-4, 1.2e-3, 9e-4, 7e-4, 1.1e-3, 8e-4, 6e-4});
    CHECK(seven.p10 == Approx(0.00056).epsilon(1e-12));
    CHECK(seven.p50 == Approx(0.0008).epsilon(1e-12));
    CHECK(seven.p90 == Approx(0.00114).epsilon(1e-12));
    CHECK(seven.avg == Approx(0.0008285714285714286).epsilon(1e-12));
    const auto one = perfStats({3.0});
    CHECK((one.p10 == 3.0 && one.p50 == 3.0 && one.p90 == 3.0 && one.avg == 3.0));
}

TEST_CASE("time scales as the Inspector converts them", "[profile]") {
    CHECK(timeScaleFactor(TimeScale::Ns, TimeScale::Ms) == 1e6);
    CHECK(timeScaleFactor(TimeScale::Us, TimeScale::Ms) == 1e3);
    CHECK(timeScaleFactor(TimeScale::Ms, TimeScale::Ns) == 1e-6);
    CHECK(timeScaleFactor(TimeScale::Cycles, TimeScale::Cycles) == 1);
    CHECK_FALSE(timeScalesCompatible(TimeScale::Cycles, TimeScale::Ms));
    CHECK(timeScalesCompatible(TimeScale::Ns, TimeScale::S));
    CHECK(parseTimeScale("us") == TimeScale::Us);
    CHECK_FALSE(parseTimeScale("minutes"));
}

TEST_CASE("an operator chain: the Inspector's events, names and durations", "[profile][fixtures]") {
    const auto dump = test::loadFixture("a_fp32_op_chain", false);
    const auto table = profileTable(dump);
    REQUIRE(table.blocks.size() == 1);
    const auto& b = table.blocks[0];
    CHECK(b.name == "Execute");
    CHECK(b.runs == std::vector<std::size_t>{0});
    // The Inspector: native_call_X 0.0001 ms and OPERATOR_CALL 0.0003 ms for add,
    // mul, relu and view_copy, then Method::execute 0.0017 ms.
    REQUIRE(b.events.size() == 9);
    const char* const names[] = {
        "native_call_add.out",  "OPERATOR_CALL", "native_call_mul.out",       "OPERATOR_CALL",
        "native_call_relu.out", "OPERATOR_CALL", "native_call_view_copy.out", "OPERATOR_CALL",
        "Method::execute"};
    const double raw[] = {0.0001, 0.0003, 0.0001, 0.0003, 0.0001, 0.0003, 0.0001, 0.0003, 0.0017};
    for (std::size_t i = 0; i < 9; ++i) {
        INFO(i);
        CHECK(b.events[i].name == names[i]);
        REQUIRE(b.events[i].raw.size() == 1);
        CHECK(b.events[i].raw[0] == Approx(raw[i]).epsilon(1e-12));
        CHECK_FALSE(b.events[i].is_delegated_op);
    }
    CHECK(b.events[8].framework);
    CHECK_FALSE(b.events[1].framework);
}

TEST_CASE("a QNN delegate: delegate ids as names, debug-only events, converted delegate times",
          "[profile][fixtures]") {
    const auto dump = test::loadFixture("b_qnn_delegate_intermediates", false);
    const auto table = profileTable(dump);
    REQUIRE(table.blocks.size() == 1);
    const auto& events = table.blocks[0].events;
    REQUIRE(events.size() == 20);
    // The Inspector's rows 0, 8, 15-19.
    CHECK(events[0].name == "aten_convolution_default@0");
    CHECK(events[0].is_delegated_op);
    CHECK(events[0].delegate_id_str == std::optional<std::string>("aten_convolution_default@0"));
    CHECK(events[0].raw.empty()); // an intermediate output, no profiling: None in the Inspector
    CHECK_FALSE(events[0].perf);
    CHECK(events[8].name == "3");
    CHECK(events[8].delegate_id_int == std::optional<std::int64_t>(3));
    CHECK(events[15].name == "QNN accelerator execute time (cycles)");
    REQUIRE(events[15].raw.size() == 1);
    // A delegate's start and end each divided by 10⁶ (ns → ms), then subtracted.
    CHECK(events[15].raw[0] == Approx(0.123456).epsilon(1e-12));
    CHECK(events[16].raw[0] == Approx(0.002345).epsilon(1e-12));
    CHECK(events[17].raw[0] == Approx(0.000345).epsilon(1e-12));
    CHECK(events[18].name == "DELEGATE_CALL");
    CHECK_FALSE(events[18].is_delegated_op);
    CHECK(events[18].raw[0] == Approx(0.0001).epsilon(1e-12));
    CHECK(events[19].name == "Method::execute");
    CHECK(events[19].raw[0] == Approx(0.0003).epsilon(1e-12));

    // The JSON carries the Inspector's column names; null where it has None.
    const auto json = profileToJson(table);
    CHECK(json["time_scale"] == "ms");
    REQUIRE(json["events"].size() == 20);
    CHECK(json["events"][0]["raw"].is_null());
    CHECK(json["events"][0]["p50"].is_null());
    CHECK(json["events"][8]["delegate_debug_identifier"] == 3);
    CHECK(json["events"][15]["event_block_name"] == "Execute");
    CHECK(json["events"][19]["framework"] == true);
}

TEST_CASE("runs of one signature form one block, in another target scale", "[profile]") {
    // Three runs: two alike, one with an extra event (another block), as the
    // Inspector groups them.
    auto op = [](const char* name, std::int32_t instruction, std::uint64_t start, std::uint64_t end) {
        ProfileEvent p;
        p.name = name;
        p.instruction_id = instruction;
        p.start_time = start;
        p.end_time = end;
        return Event(p);
    };
    EtDump dump;
    for (int r = 0; r < 3; ++r) {
        RunData run;
        run.name = "Execute";
        run.events = {op("OPERATOR_CALL", 1, 0, 1000u + 1000u * static_cast<unsigned>(r)),
                      op("Method::execute", 0, 0, 5000)};
        if (r == 2)
            run.events.insert(run.events.begin(), op("native_call_add.out", 1, 0, 400));
        dump.runs.push_back(run);
    }
    // An event that is neither profiling nor debugging (an allocation, an empty table).
    dump.runs[1].events.push_back(Event(EmptyEvent{}));
    ProfileOptions options;
    options.target = TimeScale::Us;
    const auto table = profileTable(dump, options);
    REQUIRE(table.blocks.size() == 2);
    CHECK(table.blocks[0].runs == std::vector<std::size_t>{0, 1});
    CHECK(table.blocks[0].events[0].raw == std::vector<double>{1.0, 2.0}); // ns → µs
    CHECK(table.blocks[0].events[0].perf->p50 == Approx(1.5));
    CHECK(table.blocks[1].runs == std::vector<std::size_t>{2});
    // Run 1's empty event: the Inspector raises on it; Gapscope says so and leaves it out.
    REQUIRE(table.notes.size() == 1);
    CHECK_THAT(table.notes[0], Catch::Contains("run 1") && Catch::Contains("Inspector raises"));
}

#include "core/report/trace_export.h"

TEST_CASE(
    "the Chrome trace: a process per kind of run, operators nested in Method::execute, a track per delegate",
    "[profile][fixtures]") {
    // Fixture a's ticks are 100 ns apart: Method::execute spans every operator call.
    const auto a = traceToJson(test::loadFixture("a_fp32_op_chain", false));
    const auto& events = a["traceEvents"];
    double executeStart = -1, executeEnd = -1;
    std::size_t complete = 0;
    for (const auto& e : events) {
        REQUIRE(e.contains("ph"));
        REQUIRE(e.contains("pid"));
        REQUIRE(e.contains("tid"));
        if (e["ph"] != "X")
            continue;
        ++complete;
        REQUIRE((e["ts"].is_number() && e["dur"].is_number() && e["dur"].get<double>() >= 0));
        if (e["name"] == "Method::execute") {
            executeStart = e["ts"].get<double>();
            executeEnd = executeStart + e["dur"].get<double>();
        }
    }
    CHECK(complete == 9);                            // the Inspector's 9 events, as complete events
    CHECK(executeEnd - executeStart == Approx(1.7)); // 1,700 ns in µs
    for (const auto& e : events)
        if (e["ph"] == "X") {
            CHECK(e["tid"] == 0);
            CHECK(e["ts"].get<double>() >= executeStart);
            CHECK(e["ts"].get<double>() + e["dur"].get<double>() <= executeEnd + 1e-9);
        }
    CHECK(a["otherData"]["timestamps"] == "microseconds");

    // Fixture b: QNN's own events on a track of their own, named as the delegate's clock.
    const auto b = traceToJson(test::loadFixture("b_qnn_delegate_intermediates", false));
    std::size_t delegated = 0;
    bool named = false;
    for (const auto& e : b["traceEvents"]) {
        if (e["ph"] == "M" && e["tid"] == 1)
            named =
                e["args"]["name"].get<std::string>().find("the delegate's own clock") != std::string::npos;
        if (e["ph"] == "X" && e["cat"] == "delegate") {
            CHECK(e["tid"] == 1);
            ++delegated;
        }
    }
    CHECK(delegated == 3);
    CHECK(named);
}

// Issue 56: operator calls carried no op name or handle; each decode step was
// a process of its own; XNNPACK's tracks said "the delegate's own clock".
TEST_CASE("the Chrome trace names each operator call, keeps a decode loop in one process, and says whose "
          "clock a delegate logs on",
          "[profile][trace]") {
    const std::string loopDir = GAPSCOPE_TEST_DATA_DIR "/decode_loop_portable";
    auto loopDump = loadEtdump(loopDir + "/run.etdp", loopDir + "/run.debug.bin");
    auto loopRecord = loadEtRecord(loopDir + "/etrecord.bin");
    REQUIRE(loopDump);
    REQUIRE(loopRecord);
    TraceOptions options;
    options.etrecord = &loopRecord.value();
    const auto trace = traceToJson(loopDump.value(), options);
    std::set<int> executePids;
    std::size_t named = 0, calls = 0, handled = 0;
    for (const auto& e : trace["traceEvents"]) {
        if (e["ph"] != "X")
            continue;
        const std::string name = e["name"];
        if (name.find("OPERATOR_CALL") != std::string::npos) {
            ++calls;
            named += name != "OPERATOR_CALL";
            handled += e["args"].contains("debug_handles");
        }
        if (e["args"]["run"].get<std::size_t>() >= 1)
            executePids.insert(e["pid"].get<int>());
    }
    CHECK(calls > 0);
    CHECK(named == calls);            // each names its kernel
    CHECK(handled * 10 >= calls * 9); // and, where the ETRecord maps its instruction, its handles
    CHECK(executePids.size() == 1);   // six steps, one process

    const std::string xnnpackDir = GAPSCOPE_TEST_DATA_DIR "/xnnpack_wav2vec2_fp32";
    auto xnnpackDump = loadEtdump(xnnpackDir + "/run.etdp", xnnpackDir + "/run.debug.bin");
    auto xnnpackRecord = loadEtRecord(xnnpackDir + "/etrecord.bin");
    REQUIRE(xnnpackDump);
    REQUIRE(xnnpackRecord);
    options.etrecord = &xnnpackRecord.value();
    std::size_t runtimeClock = 0, ownClock = 0;
    const auto xnnpackTrace = traceToJson(xnnpackDump.value(), options); // held: the loop reads into it
    for (const auto& e : xnnpackTrace["traceEvents"])
        if (e["ph"] == "M" && e["name"] == "thread_name") {
            const std::string track = e["args"]["name"];
            runtimeClock +=
                track.find("XnnpackBackend") == 0 && track.find("the runtime's clock") != std::string::npos;
            ownClock += track.find("own clock") != std::string::npos;
        }
    CHECK(runtimeClock > 0);
    CHECK(ownClock == 0);
}
