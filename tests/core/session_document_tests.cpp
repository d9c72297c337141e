// The saved session's document (core/session/session_document.h): what reads,
// what is refused and why, and that what is written reads back the same.
#include "core/session/session_document.h"

#include <catch2/catch.hpp>
#include <string>

using namespace gapscope;

namespace {

std::string refusal(const std::string& text) {
    const auto d = parseSessionDocument(text);
    REQUIRE_FALSE(d);
    return d.error().message;
}

std::string withRun(const std::string& run) {
    return R"({"gapscope_session": 1, "files": ["run.etdp"], "run": )" + run + "}";
}

} // namespace

TEST_CASE("a full session document reads and is written back to the same document", "[session-document]") {
    const auto d = parseSessionDocument(R"({"gapscope_session": 1, "files": ["/a/run.etdp", "etrecord.bin"],
        "run": 2, "method": "prefill", "capture": "c.gscap.safetensors", "debug_buffer": "../run.debug.bin",
        "threshold": {"metric": "rel_l2", "value": 0.25}, "filter": "conv",
        "selected_op": {"row": 4, "name": "aten_convolution_default"}})");
    REQUIRE(d);
    const SessionDocument& s = d.value();
    CHECK(s.files == std::vector<std::string>{"/a/run.etdp", "etrecord.bin"}); // as written: the app resolves
    CHECK(s.run == 2);
    CHECK(s.method == "prefill");
    CHECK(s.debug_buffer == "../run.debug.bin");
    REQUIRE(s.threshold);
    CHECK(s.threshold->metric == Metric::RelL2);
    CHECK(s.threshold->value == 0.25);
    CHECK(s.selected_row == 4);
    CHECK(s.selected_op == "aten_convolution_default");
    const auto again = parseSessionDocument(sessionDocumentText(s));
    REQUIRE(again);
    CHECK(again.value() == s);
    SessionDocument other = s;
    other.selected_op = "aten_relu_default";
    CHECK_FALSE(other == s); // the comparison the fuzz target relies on sees a field change
}

TEST_CASE("a session document's run is a whole number from 0 or nothing", "[session-document]") {
    CHECK(parseSessionDocument(withRun("0")).value().run == 0);
    CHECK(parseSessionDocument(withRun("3.0")).value().run == 3);
    CHECK_FALSE(parseSessionDocument(withRun("null")).value().run);
    CHECK(refusal(withRun("0.5")) == "\"run\": 0.5 is not a run number (a whole number from 0)");
    CHECK(refusal(withRun("1e10")) == "\"run\": 10000000000.0 is not a run number (a whole number from 0)");
    CHECK(refusal(withRun("-1")) == "\"run\": -1 is not a run number (a whole number from 0)");
    CHECK(refusal(withRun("\"2\"")) == "\"run\": \"2\" is not a run number (a whole number from 0)");
}

TEST_CASE("a session document's structure is checked before it is built", "[session-document]") {
    CHECK(refusal(R"({"gapscope_session": 1, "files": ["a"], "run": 1, "run": 2})") ==
          "the key \"run\" appears twice in one object");
    CHECK(refusal(std::string(33, '[') + std::string(33, ']')) == "nested deeper than 32 levels");
    CHECK(refusal("{\"gapscope_session\": 1,").rfind("not JSON at byte 24", 0) == 0);
    CHECK(refusal(std::string(kMaxSessionDocument + 1, ' ')) ==
          "1048577 bytes, over the 1 MiB a session file can be");
    CHECK(refusal("[1]") == "not a JSON object");
    CHECK(refusal(R"({"gapscope_session": 2, "files": ["a"]})") ==
          "not a Gapscope session file (no \"gapscope_session\": 1)");
    CHECK(refusal(R"({"gapscope_session": 1, "files": []})") ==
          "the session lists no files (\"files\" is empty)");
    CHECK(refusal(R"({"gapscope_session": 1, "files": ["a", 7]})") == "\"files\"[1]: 7 is not a path");
    CHECK(refusal(R"({"gapscope_session": 1, "files": ["a"], "threshold": {"metric": "snr"}})") ==
          "\"threshold\": {\"metric\":\"snr\"} has no finite \"value\"");
    CHECK(refusal(R"({"gapscope_session": 1, "files": ["a"], "selected_op": {"name": "x"}})") ==
          "\"selected_op\": {\"name\":\"x\"} has no row number");
    CHECK(refusal(R"({"gapscope_session": 1, "files": ["a"], "selected_op": {"row": 1, "name": 5}})") ==
          "\"selected_op\": \"name\": 5 is not a string");
}
