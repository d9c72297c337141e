// Issue 60: the request a device's folder makes of the exporter, the exporter's
// command, and the worker's lines read back (bogus lines included).
#include "core/session/capture_request.h"
#include "core/session/session.h"
#include "test_support.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

using namespace gapscope;

namespace {

std::shared_ptr<Session> loadWithout(const std::string& dir) {
    std::vector<Error> errors;
    const auto inputs =
        sessionInputsFromPaths({dir + "/run.etdp", dir + "/run.debug.bin", dir + "/etrecord.bin"}, errors);
    REQUIRE(errors.empty());
    return loadSessionFiles(sortSessionFiles(inputs));
}

// Sets an environment variable for one scope.
struct Env {
    std::string name;
    std::optional<std::string> old;
    Env(std::string n, const std::optional<std::string>& value) : name(std::move(n)) {
        if (const char* v = std::getenv(name.c_str()))
            old = v;
        if (value)
            ::setenv(name.c_str(), value->c_str(), 1);
        else
            ::unsetenv(name.c_str());
    }
    ~Env() {
        if (old)
            ::setenv(name.c_str(), old->c_str(), 1);
        else
            ::unsetenv(name.c_str());
    }
};

} // namespace

TEST_CASE("a session with an ETRecord and no capture asks for one beside the ETRecord", "[capture-request]") {
    const std::string demo = GAPSCOPE_DEMO_DIR;
    const auto request = captureRequest(*loadWithout(demo));
    REQUIRE(request);
    CHECK(request->etrecord == demo + "/etrecord.bin");
    CHECK(request->output == demo + "/capture.gscap.safetensors");
    CHECK(request->method.empty());
    CHECK(forSessionArguments(*request) == std::vector<std::string>{"for-session", demo + "/etrecord.bin",
                                                                    "-o",
                                                                    demo + "/capture.gscap.safetensors"});
    const auto line = serveRequestLine(*request);
    REQUIRE(line.back() == '\n');
    const auto parsed = nlohmann::json::parse(line);
    CHECK(parsed["etrecord"] == demo + "/etrecord.bin");
    CHECK(parsed["output"] == demo + "/capture.gscap.safetensors");
    CHECK_FALSE(parsed.contains("method"));
    // Another method is named; forward is the default and is not.
    const auto prefill = captureRequestFor("/x/etrecord.bin", "prefill");
    CHECK(forSessionArguments(prefill).back() == "prefill");
    CHECK(nlohmann::json::parse(serveRequestLine(prefill))["method"] == "prefill");
    CHECK(captureRequestFor("/x/etrecord.bin", "forward").method.empty());
    // QNN's reference is made while its debugger is alive: no request (captureAdvice says how).
    CHECK_FALSE(captureRequest(*loadWithout(GAPSCOPE_QNN_DEMO_DIR)));
    // With a capture there is nothing to make.
    std::vector<Error> errors;
    CHECK_FALSE(captureRequest(*loadSessionFiles(sortSessionFiles(sessionInputsFromPaths({demo}, errors)))));
}

TEST_CASE("the exporter is GAPSCOPE_CAPTURE's words, else gapscope-capture on PATH, else why not",
          "[capture-request]") {
    std::string why;
    {
        Env named("GAPSCOPE_CAPTURE", std::string("/opt/venv/bin/python  -m gapscope_capture"));
        CHECK(exporterCommand(why) ==
              std::vector<std::string>{"/opt/venv/bin/python", "-m", "gapscope_capture"});
    }
    const auto dir = std::filesystem::temp_directory_path() / "gapscope-exporter-on-path";
    std::filesystem::create_directories(dir);
    const auto script = dir / "gapscope-capture";
    std::ofstream(script) << "#!/bin/sh\n";
    Env none("GAPSCOPE_CAPTURE", std::nullopt);
    {
        // Not executable: not taken.
        std::filesystem::permissions(script, std::filesystem::perms::owner_read |
                                                 std::filesystem::perms::owner_write);
        Env path("PATH", "/nonexistent:" + dir.string());
        CHECK(exporterCommand(why).empty());
        CHECK_THAT(why, Catch::Contains("pip install"));
        CHECK_THAT(why, Catch::Contains("GAPSCOPE_CAPTURE"));
    }
    {
        std::filesystem::permissions(script, std::filesystem::perms::owner_all);
        Env path("PATH", "/nonexistent:" + dir.string());
        CHECK(exporterCommand(why) == std::vector<std::string>{script.string()});
    }
    std::filesystem::remove_all(dir);
}

TEST_CASE("the worker's lines are read, and a bogus line is Unknown, never an error",
          "[capture-request][bogus]") {
    auto e = parseWorkerEvent(R"({"event": "ready", "startup_cpu_seconds": 4.1})");
    CHECK(e.kind == WorkerEvent::Kind::Ready);
    e = parseWorkerEvent(R"({"event": "progress", "stage": "running the reference graph", "fraction": 0.5})");
    CHECK(e.kind == WorkerEvent::Kind::Progress);
    CHECK(e.stage == "running the reference graph");
    CHECK(e.fraction == 0.5);
    CHECK(parseWorkerEvent(R"({"event": "progress", "fraction": 7})").fraction == 1.0); // clamped
    CHECK(parseWorkerEvent(R"({"event": "progress", "fraction": -1})").fraction == 0.0);
    CHECK(parseWorkerEvent(R"({"event": "progress", "fraction": "half"})").fraction == 0.0);
    e = parseWorkerEvent(R"({"event": "done", "output": "/d/capture.gscap.safetensors", "records": 406})");
    CHECK(e.kind == WorkerEvent::Kind::Done);
    CHECK(e.output == "/d/capture.gscap.safetensors");
    CHECK(e.records == 406);
    CHECK(parseWorkerEvent(R"({"event": "done", "records": 2.5})").records == 0); // not a count
    e = parseWorkerEvent(R"({"event": "error", "message": "no representative inputs"})");
    CHECK(e.kind == WorkerEvent::Kind::Error);
    CHECK(e.message == "no representative inputs");
    for (const char* bogus : {"", "W1207 a torch warning on stdout", "{not json", "[1, 2]", R"({"event": 3})",
                              R"({"no": "event"})", R"({"event": "dance"})", "\xff\xfe\x00garbage",
                              R"({"event": "done", "records": 1e400})"}) {
        const auto b = parseWorkerEvent(bogus);
        INFO(bogus);
        CHECK(b.kind == WorkerEvent::Kind::Unknown);
        CHECK(b.message == bogus); // said as it came, for the log
    }
}
