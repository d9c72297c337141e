// Issue 55, class 8: reports written piece by piece. A 200,000-row diff or a
// 20,000-run --all-runs report is rendered one pair or one run at a time into
// a file that appears whole when finished: the text must be exactly what
// rendering the whole document gives, and an unfinished file must never appear.

#include "core/common/atomic_file_writer.h"
#include "core/report/json_stream.h"
#include "core/report/json_text.h"
#include "zip_writer.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace gapscope;
using namespace gapscope::test;
using json = nlohmann::ordered_json;

namespace {

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void spit(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

} // namespace

TEST_CASE("a JSON document streamed piece by piece is the document rendered whole", "[report][stream]") {
    const json row1 = {{"row", 0}, {"ops", {"conv", "relu"}}, {"metrics", {{"snr", 41.5}, {"mse", nullptr}}}};
    const json row2 = {
        {"row", 1}, {"ops", json::array()}, {"note", "caf\xc3\xa9"}, {"empty", json::object()}};
    json whole = {{"format", "gapscope.diff"},
                  {"counts", {{"matched", 2}}},
                  {"pairs", {row1, row2}},
                  {"nothing", json::array()},
                  {"executions", {{{"a", 1}, {"inner", {1, 2}}}}}};
    std::string streamed;
    JsonStream out([&](std::string_view piece) { streamed.append(piece); });
    out.beginObject();
    out.member("format", "gapscope.diff");
    out.member("counts", {{"matched", 2}});
    out.key("pairs");
    out.beginArray();
    out.value(row1);
    out.value(row2);
    out.end();
    out.key("nothing");
    out.beginArray();
    out.end();
    out.key("executions");
    out.beginArray();
    out.beginObject();
    out.member("a", 1);
    out.key("inner");
    out.beginArray();
    out.value(1);
    out.value(2);
    out.end();
    out.end();
    out.end();
    out.end();
    CHECK(streamed == renderJson(whole).text);
    CHECK_FALSE(out.replaced());

    SECTION("invalid UTF-8 is replaced as in the whole document, and said") {
        std::string bad;
        JsonStream s([&](std::string_view piece) { bad.append(piece); });
        s.beginObject();
        s.member("name\xff", "value\xfe");
        s.end();
        CHECK(s.replaced());
        CHECK(nlohmann::json::parse(bad).begin().key() == "name\xef\xbf\xbd");
    }
}

TEST_CASE("a file written piece by piece appears whole or not at all", "[report][stream][outputs]") {
    namespace fs = std::filesystem;
    const auto dir = tempPath("streamed-output");
    fs::remove_all(dir);
    fs::create_directories(dir);
    const auto path = dir + "/report.json";
    const auto others = [&] {
        std::size_t n = 0;
        for (const auto& entry : fs::directory_iterator(dir))
            n += entry.path().string() != path;
        return n;
    };
    SECTION("committed: every piece, small and large, in order") {
        std::string expected;
        {
            AtomicFileWriter w(path);
            for (int i = 0; i < 20000; ++i) {
                const std::string piece = std::to_string(i) + ",";
                w.write(piece);
                expected += piece;
            }
            const std::string large(200000, 'x'); // past the buffer: written through
            w.write(large);
            expected += large;
            CHECK_FALSE(fs::exists(path)); // nothing in place before commit
            REQUIRE_FALSE(w.commit());
        }
        CHECK(slurp(path) == expected);
        CHECK(others() == 0);
    }
    SECTION("abandoned: the old file stays and no temporary is left") {
        spit(path, "old report");
        {
            AtomicFileWriter w(path);
            w.write("half a report");
        }
        CHECK(slurp(path) == "old report");
        CHECK(others() == 0);
    }
    SECTION("a directory is refused before anything is written") {
        AtomicFileWriter w(dir);
        REQUIRE(w.error());
        CHECK(w.error()->message == "is a directory, not a regular file: refusing to replace it");
        w.write("ignored");
        CHECK(w.commit());
        CHECK(others() == 0); // no temporary file was made
    }
}
