// The ETRecord reader on ExecuTorch's own sample (legacy layout) and on archives
// shaped like the current layout, plus bad input.

#include "core/common/json_depth.h"
#include "core/etrecord/etrecord_reader.h"
#include "test_support.h"
#include "zip_writer.h"

#include <catch2/catch.hpp>
#include <fstream>

using namespace gapscope;
using namespace gapscope::test;

namespace {

// A node in the current torch.export encoding (single-key unions).
std::string node(const std::string& name, const std::string& target, const std::string& input,
                 const std::vector<std::string>& outputs, const std::string& handle) {
    std::string outs;
    for (const auto& o : outputs)
        outs += std::string(outs.empty() ? "" : ",") + R"({"as_tensor":{"name":")" + o + R"("}})";
    return R"({"name":")" + name + R"(","target":")" + target +
           R"(","inputs":[{"name":"self","arg":{"as_tensor":{"name":")" + input +
           R"("}}},{"name":"k","arg":{"as_int":3}}],"outputs":[)" + outs +
           R"(],"metadata":{"debug_handle":")" + handle + R"(","stack_trace":"File \"m.py\", line 3"}})";
}

std::string program(const std::vector<std::string>& nodes, const std::string& output) {
    std::string joined;
    for (const auto& n : nodes)
        joined += (joined.empty() ? "" : ",") + n;
    return R"({"graph_module":{"graph":{"inputs":[{"as_tensor":{"name":"x"}}],"outputs":[{"as_tensor":{"name":")" +
           output + R"("}}],"nodes":[)" + joined + R"(]}},"schema_version":{"major":8,"minor":1}})";
}

std::vector<std::pair<std::string, std::string>> currentLayout() {
    const std::string edge = program(
        {node("aten_convolution_default", "executorch.exir.dialects.edge.ops.aten.convolution.default", "x",
              {"aten_convolution_default"}, "1"),
         node("aten_relu_default", "executorch.exir.dialects.edge.ops.aten.relu.default",
              "aten_convolution_default", {"aten_relu_default"}, "2"),
         node("aten_topk_default", "executorch.exir.dialects.edge.ops.aten.topk.default", "aten_relu_default",
              {"getitem", "getitem_1"}, "3")},
        "getitem");
    return {
        {"ETRECORD_V0", ""},
        {"edge_dialect_exported_program/forward", edge},
        {"edge_dialect_exported_program/forward_state_dict", "\x80pickle-not-read"},
        {"edge_after_transform/forward", edge},
        {"debug_handle_map", R"({"forward": {"0": [1, 2], "1": 3}})"},
        {"delegate_map",
         R"({"forward": {"0": {"name": "QnnBackend", "delegate_map": {"aten_relu_default@0": [2], "aten_convolution_default@0": [1], "7": [1, 2]}}}})"},
        {"instruction_id_to_num_outs_map", R"({"forward": {"0": 1}})"},
        {"representative_inputs", "\x80pickle-not-read"},
        {"export_graph_id", "140230123456"}};
}

Result<EtRecord> readZip(const std::string& name,
                         const std::vector<std::pair<std::string, std::string>>& entries,
                         bool deflate = false) {
    const auto path = tempPath(name);
    writeZip(path, entries, deflate);
    return loadEtRecord(path);
}

} // namespace

TEST_CASE("ExecuTorch's sample ETRecord: legacy single-method layout", "[etrecord][fixture]") {
    auto r = loadEtRecord(fixturePath("executorch-samples/etrecord.bin"));
    if (!r)
        FAIL(r.error().describe());
    const auto& rec = r.value();
    CHECK(rec.legacy_layout);
    CHECK(rec.entries.size() == 7);
    CHECK_FALSE(rec.exported_program);
    CHECK_FALSE(rec.has_representative_inputs);
    CHECK(rec.methods.empty()); // debug_handle_map and delegate_map are {}

    const auto* edge = rec.edgeProgram("forward");
    REQUIRE(edge);
    CHECK(edge->key == "edge_dialect_exported_program");
    REQUIRE(edge->nodes.size() == 1);
    // 2023 nodes carry no name: the output tensor's name stands in.
    CHECK(edge->nodes[0].name == "aten_mul_tensor");
    CHECK(edge->nodes[0].target == "executorch.exir.dialects.edge.ops.aten.mul.Tensor");
    CHECK(edge->nodes[0].debug_handles == std::vector<std::int64_t>{2});
    CHECK(edge->nodes[0].input_tensors == std::vector<std::string>{"arg0_1", "arg1_1"});
    REQUIRE(edge->nodes[0].stack_trace);
    CHECK(edge->graph_outputs == std::vector<std::string>{"aten_mul_tensor"});

    REQUIRE(rec.graph_map.count("aten_dialect_output/forward") == 1);
    const auto& aten = rec.graph_map.at("aten_dialect_output/forward");
    REQUIRE(aten.nodes.size() == 1);
    CHECK(aten.nodes[0].name == "mul");
    CHECK(aten.nodes[0].target == "torch.ops.aten.mul.Tensor");
    CHECK(aten.nodes[0].debug_handles.empty());
}

TEST_CASE("current layout: maps, delegate identifiers in order, graphs, companions unread", "[etrecord]") {
    for (bool deflate : {false, true}) {
        INFO("deflate " << deflate);
        auto r = readZip(deflate ? "current-deflate.etrecord" : "current.etrecord", currentLayout(), deflate);
        if (!r)
            FAIL(r.error().describe());
        const auto& rec = r.value();
        CHECK_FALSE(rec.legacy_layout);
        CHECK(rec.has_representative_inputs);
        CHECK(rec.export_graph_id == std::optional<std::int64_t>(140230123456));
        const auto* maps = rec.maps("forward");
        REQUIRE(maps);
        REQUIRE(maps->debug_handle_map.size() == 2);
        CHECK(maps->debug_handle_map.at(0).is_list);
        CHECK(maps->debug_handle_map.at(0).handles == std::vector<std::int64_t>{1, 2});
        CHECK_FALSE(maps->debug_handle_map.at(1).is_list);
        CHECK(maps->debug_handle_map.at(1).handles == std::vector<std::int64_t>{3});
        const auto& d = maps->delegate_map.at(0);
        CHECK(d.backend == "QnnBackend");
        REQUIRE(d.identifiers.size() == 3);
        CHECK(d.identifiers[0].first == "aten_relu_default@0"); // JSON order kept
        CHECK(d.identifiers[2].first == "7");
        CHECK(d.identifiers[2].second == std::vector<std::int64_t>{1, 2});
        CHECK(maps->numOutputs(0) == 1);
        CHECK(maps->numOutputs(5) == 1); // default

        const auto* edge = rec.edgeProgram("forward");
        REQUIRE(edge);
        REQUIRE(edge->nodes.size() == 3);
        CHECK(edge->nodes[2].output_tensors == std::vector<std::string>{"getitem", "getitem_1"});
        CHECK(edge->producerOf("aten_relu_default") == 1);
        CHECK(edge->producerOf("x") == -1);
        CHECK(edge->allDebugHandles() == std::vector<std::int64_t>{1, 2, 3});
        CHECK(rec.graph_map.count("edge_after_transform/forward") == 1);
        CHECK(rec.graph_map.count("edge_dialect_exported_program/forward_state_dict") == 0);
    }
}

TEST_CASE("2024 union encoding: the one non-null member is used", "[etrecord]") {
    const std::string old =
        R"({"graph_module":{"graph":{"inputs":[],"outputs":[],"nodes":[{"name":"n","target":"t",
      "inputs":[{"name":"self","arg":{"as_none":null,"as_tensor":{"name":"a"},"as_tensors":null,"as_int":null}}],
      "outputs":[{"as_none":null,"as_tensor":null,"as_tensors":[{"name":"o0"},{"name":"o1"}]}],
      "metadata":{"debug_handle":"0"}}]}}})";
    auto r =
        readZip("old-union.etrecord",
                {{"ETRECORD_V0", ""}, {"edge_dialect_exported_program", old}, {"debug_handle_map", "{}"}});
    REQUIRE(r);
    const auto& n = r.value().edgeProgram()->nodes.at(0);
    CHECK(n.input_tensors == std::vector<std::string>{"a"});
    CHECK(n.output_tensors == std::vector<std::string>{"o0", "o1"});
    CHECK(n.debug_handles.empty()); // "0" means unset
}

TEST_CASE("ETRecord bad input: each gives a specific error", "[etrecord][bogus]") {
    SECTION("not a zip") {
        auto r = loadEtRecord(fixturePath("etdump/a_fp32_op_chain.etdp"));
        REQUIRE_FALSE(r);
        CHECK(r.error().code == ErrorCode::BadMagic);
        CHECK_THAT(r.error().describe(),
                   Catch::Contains("a_fp32_op_chain.etdp") && Catch::Contains("not an ETRecord"));
    }
    SECTION("empty file") {
        const auto path = tempPath("empty.etrecord");
        std::ofstream(path).close();
        auto r = loadEtRecord(path);
        REQUIRE_FALSE(r);
        CHECK(r.error().code == ErrorCode::Empty);
    }
    SECTION("a zip without ETRECORD_V0") {
        auto entries = currentLayout();
        entries.erase(entries.begin());
        auto r = readZip("nomarker.etrecord", entries);
        REQUIRE_FALSE(r);
        CHECK(r.error().code == ErrorCode::BadMagic);
        CHECK_THAT(r.error().message, Catch::Contains("ETRECORD_V0"));
    }
    SECTION("no edge program") {
        auto r = readZip("noedge.etrecord", {{"ETRECORD_V0", ""}, {"debug_handle_map", "{}"}});
        REQUIRE_FALSE(r);
        CHECK_THAT(r.error().message, Catch::Contains("edge_dialect_exported_program"));
    }
    SECTION("broken graph JSON is a warning naming the entry and the byte; the maps are kept") {
        auto entries = currentLayout();
        entries[1].second = R"({"graph_module": {"graph": {"nodes": [)";
        auto r = readZip("badjson.etrecord", entries);
        REQUIRE(r);
        REQUIRE(r.value().warnings.size() == 1);
        const auto& w = r.value().warnings.front();
        CHECK(w.code == WarningCode::UnreadableEntry);
        CHECK(w.where.field == "edge_dialect_exported_program/forward");
        CHECK(w.where.byteOffset > 0);
        CHECK_FALSE(r.value().edgeProgram("forward"));
        CHECK(r.value().graph_map.count("edge_after_transform/forward") == 1);
        REQUIRE(r.value().maps("forward"));
        CHECK(r.value().maps("forward")->debug_handle_map.size() == 2);
    }
    SECTION("a graph nested to the readers' depth is read; one level deeper is refused at its byte") {
        // The node's metadata holds the nesting: the document's own four levels
        // (document, graph_module, graph, nodes) and the node's two, then lists.
        const auto nestedTo = [](std::size_t depth) {
            const std::size_t lists = depth - 6;
            return R"({"graph_module":{"graph":{"nodes":[{"target":"t","metadata":{"x":)" +
                   std::string(lists, '[') + std::string(lists, ']') + "}}]}}}";
        };
        for (const std::size_t depth : {kMaxJsonDepth, kMaxJsonDepth + 1}) {
            INFO("depth " << depth);
            auto entries = currentLayout();
            entries[1].second = nestedTo(depth);
            auto r = readZip("deepgraph.etrecord", entries);
            REQUIRE(r);
            if (depth == kMaxJsonDepth) {
                CHECK(r.value().warnings.empty());
                REQUIRE(r.value().edgeProgram("forward"));
                CHECK(r.value().edgeProgram("forward")->nodes.size() == 1);
                continue;
            }
            REQUIRE(r.value().warnings.size() == 1);
            const auto& w = r.value().warnings.front();
            CHECK(w.code == WarningCode::UnreadableEntry);
            CHECK_THAT(w.message, Catch::Contains("nests deeper than 512 levels"));
            // The first list is the seventh level: the 513th is list 506.
            const auto lists = entries[1].second.find(R"("x":)") + 4;
            CHECK(w.where.byteOffset == static_cast<std::int64_t>(lists + kMaxJsonDepth + 1 - 7));
            CHECK_FALSE(r.value().edgeProgram("forward"));
        }
    }
    SECTION("broken graph JSON past a NaN token names the byte of the original text") {
        auto entries = currentLayout();
        entries[1].second = R"({"graph_module": {"a": NaN, "graph": {"nodes": [})";
        auto r = readZip("badnan.etrecord", entries);
        REQUIRE(r);
        REQUIRE(r.value().warnings.size() == 1);
        CHECK_THAT(r.value().warnings.front().message, Catch::Contains("is not valid JSON"));
        CHECK(r.value().warnings.front().where.byteOffset ==
              static_cast<std::int64_t>(entries[1].second.find('}')) + 1);
    }
    SECTION("Python's NaN and -Infinity tokens in a graph are read") {
        auto entries = currentLayout();
        const std::string inf = R"("arg":{"as_float":-Infinity}},{"name":"n","arg":{"as_float":NaN})";
        auto& edge = entries[1].second;
        edge.replace(edge.find(R"("arg":{"as_int":3})"), std::string(R"("arg":{"as_int":3})").size(), inf);
        auto r = readZip("pythonjson.etrecord", entries);
        REQUIRE(r);
        CHECK(r.value().warnings.empty());
        REQUIRE(r.value().edgeProgram("forward"));
        CHECK(r.value().edgeProgram("forward")->nodes.size() == 3);
    }
    SECTION("a map with a non-integer instruction id") {
        auto entries = currentLayout();
        entries[4].second = R"({"forward": {"zero": 1}})";
        auto r = readZip("badmap.etrecord", entries);
        REQUIRE_FALSE(r);
        CHECK_THAT(r.error().describe(), Catch::Contains("debug_handle_map") && Catch::Contains("'zero'"));
    }
    SECTION("a delegate map with a string handle") {
        auto entries = currentLayout();
        entries[5].second = R"({"forward": {"0": {"name": "X", "delegate_map": {"a": ["1"]}}}})";
        auto r = readZip("baddelegate.etrecord", entries);
        REQUIRE_FALSE(r);
        CHECK_THAT(r.error().describe(), Catch::Contains("delegate_map") && Catch::Contains("integers"));
    }
    SECTION("a delegate map that is neither an object nor null") {
        auto entries = currentLayout();
        entries[5].second = R"({"forward": {"0": {"name": "X", "delegate_map": [1]}}})";
        auto r = readZip("listdelegate.etrecord", entries);
        REQUIRE_FALSE(r);
        CHECK_THAT(r.error().describe(), Catch::Contains("'delegate_map' must be an object or null"));
    }
    SECTION("a null delegate map is the backend with no map, as the Inspector reads it") {
        // ExecuTorch's Arm backend writes it (tests/data/arm_tosa_*/etrecord.bin).
        auto entries = currentLayout();
        entries[5].second = R"({"forward": {"0": {"name": "TOSABackend", "delegate_map": null}}})";
        auto r = readZip("nulldelegate.etrecord", entries);
        REQUIRE(r);
        const auto& d = r.value().maps("forward")->delegate_map.at(0);
        CHECK(d.backend == "TOSABackend");
        CHECK(d.identifiers.empty());
    }
    SECTION("a missing debug_handle_map is a warning") {
        auto entries = currentLayout();
        entries.erase(entries.begin() + 4);
        auto r = readZip("nomap.etrecord", entries);
        REQUIRE(r);
        REQUIRE(r.value().warnings.size() == 1);
        CHECK(r.value().warnings[0].code == WarningCode::MissingEntry);
    }
}

TEST_CASE("every truncation of the sample ETRecord is an error, never a crash", "[etrecord][bogus]") {
    const auto bytes = readBytes(fixturePath("executorch-samples/etrecord.bin"));
    for (std::size_t len = 0; len < bytes.size(); len += (len < 64 ? 1 : 97)) {
        INFO("truncated to " << len);
        auto file = MappedFile::fromBytes("cut.etrecord", bytes.data(), len);
        auto r = readEtRecord(file);
        CHECK_FALSE(r);
    }
}

#include "core/common/python_json.h"

TEST_CASE("Python's non-finite JSON tokens become strings, and nothing else changes", "[etrecord][json]") {
    const std::string text =
        R"({"a": NaN, "b": [Infinity, -Infinity,NaN], "s": "NaN -Infinity", "e": "q\"NaN", "id": NaNo, "n": -1.5})";
    const auto n = normalizePythonJson(text);
    CHECK(
        n.text ==
        R"({"a": "NaN", "b": ["Infinity", "-Infinity","NaN"], "s": "NaN -Infinity", "e": "q\"NaN", "id": NaNo, "n": -1.5})");
    CHECK(n.replaced_at.size() == 4);
    // Offsets past the rewritten tokens map back to the original text.
    const auto at = n.text.find("\"s\"");
    CHECK(n.originalOffset(at) == text.find("\"s\""));
    CHECK(normalizePythonJson("NaN").text == "NaN"); // not where a value may stand inside a document
}

TEST_CASE("a real ETRecord whose graph holds -Infinity (nn.MultiheadAttention) opens", "[etrecord][json]") {
    // tests/data/portable_mha: written by ExecuTorch 1.5.1 (tests/data/makers/portable_mha.py).
    auto r = loadEtRecord(GAPSCOPE_TEST_DATA_DIR "/portable_mha/etrecord.bin");
    if (!r)
        FAIL(r.error().describe());
    CHECK(r.value().warnings.empty());
    const auto* edge = r.value().edgeProgram("forward");
    REQUIRE(edge);
    CHECK(edge->nodes.size() > 20);
    CHECK(r.value().exported_program.has_value());
}

#include "core/common/sha256.h"
#include "core/common/zip_archive.h"

namespace {

// CRC-32 (ISO-HDLC, ZIP's), bit by bit: an oracle independent of the archive's own record.
std::uint32_t crc32Of(const std::string& bytes) {
    std::uint32_t crc = 0xFFFFFFFFu;
    for (unsigned char c : bytes) {
        crc ^= c;
        for (int k = 0; k < 8; ++k)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

std::string entriesDigestOf(const std::string& path) {
    auto file = MappedFile::open(path);
    REQUIRE(file);
    auto zip = ZipArchive::open(file.value());
    REQUIRE(zip);
    return zip.value()->entriesSha256();
}

} // namespace

// The capture's etrecord_entries_sha256 (docs/formats/aot-capture.md): the
// exporter writes it from Python's zipfile, Gapscope reads it from libzip, so
// the text hashed is pinned here byte for byte against an independent CRC-32.
TEST_CASE("an archive's table of contents: names, sizes and CRC-32s in name order, whatever the "
          "order or compression",
          "[etrecord][provenance]") {
    const std::vector<std::pair<std::string, std::string>> entries = {
        {"b/graph", "xyz"}, {"a", "hello"}, {"ETRECORD_V0", ""}};
    char line[96];
    std::string expected;
    for (const auto& [name, bytes] : {entries[2], entries[1], entries[0]}) { // by name's bytes
        std::snprintf(line, sizeof line, "%zu %08x %zu ", bytes.size(), crc32Of(bytes), name.size());
        expected += line + name + "\n";
    }
    CHECK(expected.rfind("0 00000000 11 ETRECORD_V0\n5 3610a686 1 a\n", 0) == 0);
    const auto digest =
        sha256Hex(ByteSpan{reinterpret_cast<const std::uint8_t*>(expected.data()), expected.size()});

    const auto stored = tempPath("toc-stored.zip");
    writeZip(stored, entries, false);
    CHECK(entriesDigestOf(stored) == digest);
    const auto reordered = tempPath("toc-deflated.zip");
    writeZip(reordered, {entries[2], entries[0], entries[1]}, true);
    CHECK(entriesDigestOf(reordered) == digest);

    // One byte of one entry changed: its CRC-32, and so the digest, differ.
    const auto changed = tempPath("toc-changed.zip");
    writeZip(changed, {{"b/graph", "xyw"}, entries[1], entries[2]});
    CHECK(entriesDigestOf(changed) != digest);
    // A renamed entry, same bytes.
    const auto renamed = tempPath("toc-renamed.zip");
    writeZip(renamed, {{"b/graphs", "xyz"}, entries[1], entries[2]});
    CHECK(entriesDigestOf(renamed) != digest);
}
