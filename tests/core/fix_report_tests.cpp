// gapscope-capture fix's report (issue 59), as the exporter wrote it
// (tests/data/fix_report), and bogus ones: every refusal names the file and
// the field or byte at fault; a fixed session never points outside the
// report's folder.
#include "core/report/fix_report.h"
#include "test_support.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>

using namespace gapscope;

namespace {

const std::string kReport = GAPSCOPE_TEST_DATA_DIR "/fix_report/fix.json";

Result<FixReport> readText(const std::string& text, const std::string& name = "fix.json") {
    const auto dir = std::filesystem::temp_directory_path() / "gapscope_fix_report_tests";
    std::filesystem::create_directories(dir);
    const auto path = (dir / name).string();
    {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out << text;
    }
    auto file = MappedFile::open(path);
    REQUIRE(file);
    return readFixReport(*file.value());
}

std::string minimal(const std::string& candidates = "[]", const std::string& fixed = "null") {
    return R"({"recipe": "xnnpack-int8", "target": "snr=35", "met": true,
              "baseline": {"keep_float": [], "output_snr_db": 23.3, "size_bytes": 10},
              "candidates": )" +
           candidates + R"(, "fixed_session": )" + fixed + "}";
}

} // namespace

TEST_CASE("the exporter's fix report reads whole", "[fix]") {
    auto read = loadFixReport(kReport);
    REQUIRE(read);
    const FixReport& r = read.value();
    CHECK(r.recipe == "xnnpack-int8");
    CHECK(r.target == "snr=35");
    CHECK(r.met);
    REQUIRE(r.baseline.output_snr_db);
    CHECK(*r.baseline.output_snr_db == Approx(23.304).margin(0.001));
    REQUIRE(r.best);
    CHECK(r.best->keep_float == std::vector<std::string>{"culprit"});
    CHECK(r.candidates.size() == 7); // six modules and the pool outside them
    const auto culprit = std::find_if(r.candidates.begin(), r.candidates.end(),
                                      [](const FixCandidate& c) { return c.module == "culprit"; });
    REQUIRE(culprit != r.candidates.end());
    REQUIRE(culprit->recovered_db);
    CHECK(*culprit->recovered_db > 30);
    REQUIRE(culprit->trial);
    CHECK(culprit->trial->size_bytes > r.baseline.size_bytes); // float weights cost bytes
    CHECK(r.snippet.find("get_module_name_filter") != std::string::npos);
    CHECK(r.fixed_session ==
          (std::filesystem::path(kReport).parent_path() / "fixed").lexically_normal().string());
    REQUIRE(r.fixed_output_snr_db);
    CHECK(*r.fixed_output_snr_db > 35);
}

TEST_CASE("a fix report's non-finite numbers are the exporter's strings", "[fix]") {
    auto read = readText(minimal(
        R"([{"module": "m", "why": "w", "recovered_db": "inf", "trial": {"keep_float": ["m"], "output_snr_db": "inf"}}])"));
    REQUIRE(read);
    CHECK(std::isinf(*read.value().candidates.front().recovered_db));
    CHECK(std::isinf(*read.value().candidates.front().trial->output_snr_db));
}

TEST_CASE("a bogus fix report is refused with the file and the field or byte", "[fix][bogus]") {
    SECTION("empty") {
        auto r = readText("");
        REQUIRE_FALSE(r);
        CHECK(r.error().code == ErrorCode::Empty);
    }
    SECTION("not JSON, at its byte") {
        auto r = readText("{\"recipe\": ");
        REQUIRE_FALSE(r);
        CHECK(r.error().where.file.find("fix.json") != std::string::npos);
        CHECK(r.error().where.byteOffset >= 0);
    }
    SECTION("a number past double's range (fuzz_fix_report's finding)") {
        auto r = readText(minimal(R"([{"module": "a", "recovered_db": 54.1831e10840229922794}])"));
        REQUIRE_FALSE(r);
        CHECK(r.error().code == ErrorCode::Malformed);
        CHECK(r.error().message.find("number overflow") != std::string::npos);
    }
    SECTION("a count past an integer's range (fuzz_fix_report's finding)") {
        for (const char* n : {"1.8446744073709552e19", "-3", "2.5", "\"12\""}) {
            auto r = readText(minimal(
                std::string(R"([{"module": "a", "trial": {"keep_float": [], "size_bytes": )") + n + "}}]"));
            REQUIRE_FALSE(r);
            CHECK(r.error().where.field == "candidates[0].trial.size_bytes");
        }
    }
    SECTION("nested past the limit") {
        auto r = readText(std::string(100000, '[') + std::string(100000, ']'));
        REQUIRE_FALSE(r);
        CHECK(r.error().message.find("too deep") != std::string::npos);
    }
    SECTION("not an object") {
        auto r = readText("[1, 2]");
        REQUIRE_FALSE(r);
        CHECK(r.error().message.find("not a gapscope-capture fix report") != std::string::npos);
    }
    SECTION("a candidate without its module") {
        auto r = readText(minimal(R"([{"module": "a"}, {"why": "x"}])"));
        REQUIRE_FALSE(r);
        CHECK(r.error().where.field == "candidates[1].module");
    }
    SECTION("a number that is text") {
        auto r = readText(minimal(R"([{"module": "a", "recovered_db": "lots"}])"));
        REQUIRE_FALSE(r);
        CHECK(r.error().where.field == "candidates[0].recovered_db");
    }
    SECTION("met that is not a boolean") {
        auto r = readText(
            R"({"recipe": "r", "target": "t", "met": 1, "baseline": {"keep_float": []}, "candidates": []})");
        REQUIRE_FALSE(r);
        CHECK(r.error().where.field == "met");
    }
    SECTION("a fixed session outside the report's folder") {
        for (const char* path : {"\"../elsewhere\"", "\"/etc\"", "\"fixed/../../x\"", "\".\"", "\"\""}) {
            auto r = readText(minimal("[]", std::string(R"({"path": )") + path + "}"));
            REQUIRE_FALSE(r);
            CHECK(r.error().where.field == "fixed_session.path");
        }
    }
}
