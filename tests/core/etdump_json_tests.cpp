// The JSON document of `gapscope-cli dump --json`, checked on the real fixtures.

#include "core/report/etdump_json.h"
#include "test_support.h"

#include <catch2/catch.hpp>
#include <limits>

using namespace gapscope;
using namespace gapscope::test;

TEST_CASE("dump JSON: runs, events by schema name, tensor stats", "[json]") {
    const auto doc = etdumpToJson(loadFixture("a_fp32_op_chain"));
    REQUIRE(doc["runs"].size() == 1);
    const auto& run = doc["runs"][0];
    CHECK(run["name"] == "Execute");
    CHECK(run["bundled_input_index"] == -1);
    CHECK(run["allocators"].empty());
    REQUIRE(run["events"].size() == 14);

    const auto& first = run["events"][0];
    CHECK(first["kind"] == "debug");
    CHECK(first["chain_index"] == 0);
    CHECK(first["instruction_id"] == 0);
    CHECK(first["delegate_debug_id_int"] == -1);
    CHECK(first["delegate_debug_id_str"].is_null());
    CHECK(first["name"].is_null());
    const auto& v = first["value"];
    CHECK(v["type"] == "tensor");
    CHECK(v["dtype"] == "float32");
    CHECK(v["sizes"] == nlohmann::ordered_json::array({2, 3}));
    CHECK(v["strides"] == nlohmann::ordered_json::array({3, 1}));
    CHECK(v["offset"] == 0);
    CHECK(v["nbytes"] == 24);
    CHECK(v["data"] == "present");
    CHECK(v["output"] == false);
    CHECK(v["stats"]["sum"] == 3.75);
    CHECK(v["stats"]["min"] == -2.5);
    CHECK(v["stats"]["max"] == 3.75);
    CHECK(v["stats"]["mean"] == 0.625);
    CHECK(v["stats"]["nan"] == 0);
    CHECK(v["stats"]["inf"] == 0);

    const auto& profile = run["events"][1];
    CHECK(profile["kind"] == "profile");
    CHECK(profile["name"] == "native_call_add.out");
    CHECK(profile["start_time"] == 300);
    CHECK(profile["end_time"] == 400);
    CHECK(profile["delegate_debug_metadata"].is_null());

    const auto& output = run["events"][13];
    CHECK(output["chain_index"].get<std::uint64_t>() == std::numeric_limits<std::uint64_t>::max());
    CHECK(output["value"]["output"] == true);
}

TEST_CASE("dump JSON: lists, scalars, empty tensors and metadata-only tensors", "[json]") {
    const auto doc = etdumpToJson(loadFixture("c_mixed_dtypes"));
    const auto& events = doc["runs"][0]["events"];
    CHECK(events[11]["value"]["data"] == "empty");
    CHECK(events[11]["value"]["offset"] == -1);
    CHECK_FALSE(events[11]["value"].contains("stats"));
    CHECK(events[12]["value"]["type"] == "tensor_list");
    REQUIRE(events[12]["value"]["tensors"].size() == 3);
    CHECK(events[12]["value"]["tensors"][1]["dtype"] == "int32");
    CHECK(events[12]["value"]["tensors"][1]["stats"]["sum"] == 60.0);
    CHECK(events[13]["value"] ==
          nlohmann::ordered_json({{"type", "int"}, {"value", -9000000000LL}, {"output", false}}));
    CHECK(events[14]["value"]["type"] == "double");
    CHECK(events[14]["value"]["value"] == 2.718281828459045);
    CHECK(events[15]["value"]["value"] == false);
    CHECK(events[9]["value"]["dtype"] == "bits16");
    CHECK(events[5]["value"]["stats"]["sum"] == 3.0);

    const auto bare = etdumpToJson(loadFixture("c_mixed_dtypes", false));
    CHECK(bare["debug_buffer"].is_null());
    CHECK(bare["runs"][0]["events"][0]["value"]["data"] == "none");
    CHECK_FALSE(bare["runs"][0]["events"][0]["value"].contains("stats"));
}

TEST_CASE("dump JSON: delegate ids and metadata of the QNN fixture", "[json]") {
    const auto doc = etdumpToJson(loadFixture("b_qnn_delegate_intermediates"));
    const auto& events = doc["runs"][0]["events"];
    CHECK(events[3]["delegate_debug_id_str"] == "aten_topk_default@1");
    CHECK(events[3]["value"]["dtype"] == "int64");
    CHECK(events[8]["delegate_debug_id_int"] == 3);
    CHECK(events[15]["delegate_debug_id_str"] == "QNN accelerator execute time (cycles)");
    CHECK(events[15]["delegate_debug_metadata"] == nlohmann::ordered_json::array());
    CHECK(events[15]["end_time"] == 123456);
    CHECK(events[4]["value"]["stats"]["sum"] == 5584.0);
    CHECK(doc["warnings"].empty());
}

TEST_CASE("dump JSON: non-finite numbers become strings", "[json]") {
    CHECK(jsonNumber(std::numeric_limits<double>::quiet_NaN()) == "NaN");
    CHECK(jsonNumber(std::numeric_limits<double>::infinity()) == "Infinity");
    CHECK(jsonNumber(-std::numeric_limits<double>::infinity()) == "-Infinity");
    CHECK(jsonNumber(1.5) == 1.5);
}
