// The AOT capture reader and writer: round trip of every value kind, quantisation
// parameters and layouts; bad safetensors files and bad documents.

#include "core/capture/aot_capture.h"
#include "core/capture/safetensors_writer.h"
#include "core/etdump/element_decode.h"
#include "test_support.h"
#include "zip_writer.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

using namespace gapscope;
using namespace gapscope::test;

namespace {

template <typename T> std::vector<std::uint8_t> raw(const std::vector<T>& v) {
    std::vector<std::uint8_t> out(v.size() * sizeof(T));
    if (!out.empty())
        std::memcpy(out.data(), v.data(), out.size());
    return out;
}

CaptureValue tensorValue(const std::string& name) {
    CaptureValue v;
    v.kind = CaptureValue::Kind::Tensor;
    v.tensor = name;
    return v;
}

// A capture like the demo's: conv (quantised, channels-last on the device), a
// topk pair, a scalar, and model inputs/outputs.
std::string writeSample(const std::string& file) {
    SafetensorsWriter tensors;
    REQUIRE_FALSE(tensors.add("records/0/0", ScalarType::Float, {1, 2, 2, 2},
                              raw<float>({1, -2, 3, -4, 5, -6, 7, -8})));
    REQUIRE_FALSE(tensors.add("records/1/0", ScalarType::Float, {1, 3}, raw<float>({0.5f, 0.25f, 0.125f})));
    REQUIRE_FALSE(tensors.add("records/1/1", ScalarType::Long, {1, 3}, raw<std::int64_t>({4, 0, 2})));
    REQUIRE_FALSE(tensors.add("inputs/0", ScalarType::Half, {2}, raw<std::uint16_t>({0x3C00, 0xC000})));
    REQUIRE_FALSE(tensors.add("reference_outputs/0", ScalarType::Bool, {0}, {}));

    AotCapture c;
    c.producer = {{"gapscope_capture", "0.1.0"}, {"executorch", "1.5.1"}};
    c.reference_graph = "exported_program";
    c.etrecord_sha256 = std::string(64, 'a');
    c.etrecord_entries_sha256 = std::string(64, 'b');
    c.inputs = std::vector<CaptureValue>{tensorValue("inputs/0")};
    c.reference_outputs = std::vector<CaptureValue>{tensorValue("reference_outputs/0")};

    CaptureRecord conv;
    conv.debug_handle = {1, 2};
    conv.ops = {"conv2d", "relu"};
    conv.stack_traces = {{"conv2d", std::string("File \"m.py\", line 3")}, {"relu", std::nullopt}};
    conv.outputs = {tensorValue("records/0/0")};
    QuantParams q;
    q.per_channel = true;
    q.scale = {0.5, 0.25};
    q.zero_point = {0, 3};
    q.axis = 1;
    q.dtype = "int8";
    q.qmin = -128;
    q.qmax = 127;
    conv.quantization = {q};
    conv.axis_order = std::vector<std::int64_t>{0, 2, 3, 1};
    c.records.push_back(conv);

    CaptureRecord topk;
    topk.debug_handle = {7};
    topk.ops = {"topk"};
    topk.sequence = true;
    topk.outputs = {tensorValue("records/1/0"), tensorValue("records/1/1")};
    c.records.push_back(topk);

    CaptureRecord scalars;
    scalars.debug_handle = {9};
    scalars.sequence = true;
    CaptureValue i, f, b, n, list;
    i.kind = CaptureValue::Kind::Int;
    i.int_value = -9000000000;
    f.kind = CaptureValue::Kind::Float;
    f.float_value = std::numeric_limits<double>::quiet_NaN();
    b.kind = CaptureValue::Kind::Bool;
    b.bool_value = true;
    n.kind = CaptureValue::Kind::Null;
    list.kind = CaptureValue::Kind::List;
    list.items = {i, f};
    scalars.outputs = {i, f, b, n, list};
    c.records.push_back(scalars);

    const auto path = tempPath(file);
    REQUIRE_FALSE(writeAotCapture(path, c, tensors));
    return path;
}

std::vector<std::uint8_t> safetensorsWithHeader(const std::string& header, std::size_t dataBytes = 0) {
    return safetensorsBytes(header, dataBytes);
}

Result<AotCapture> readCaptureBytes(const std::vector<std::uint8_t>& bytes) {
    return readAotCapture(MappedFile::fromBytes("bad.gscap.safetensors", bytes.data(), bytes.size()));
}

std::string docWith(const std::string& records, int version = 1) {
    nlohmann::json doc = {{"format", "gapscope.aot_capture"},
                          {"version", version},
                          {"records", nlohmann::json::parse(records)}};
    return doc.dump();
}

Result<AotCapture> readCaptureDoc(const std::string& document) {
    SafetensorsWriter w;
    REQUIRE_FALSE(w.add("t", ScalarType::Float, {2}, raw<float>({1, 2})));
    w.setMetadata(AotCapture::kMetadataKey, document);
    return readCaptureBytes(w.serialize());
}

} // namespace

TEST_CASE("AOT capture round trip: values, sequences, quantisation, layout", "[capture]") {
    const auto path = writeSample("sample.gscap.safetensors");
    auto r = loadAotCapture(path);
    if (!r)
        FAIL(r.error().describe());
    const auto& c = r.value();
    CHECK(c.version == 1);
    CHECK(c.producer.at("executorch") == "1.5.1");
    CHECK(c.reference_graph == std::optional<std::string>("exported_program"));
    CHECK(c.method == "forward");
    CHECK(c.etrecord_sha256 == std::optional<std::string>(std::string(64, 'a')));
    CHECK(c.etrecord_entries_sha256 == std::optional<std::string>(std::string(64, 'b')));
    REQUIRE(c.records.size() == 3);

    const auto& conv = c.records[0];
    CHECK(conv.debug_handle == std::vector<std::int64_t>{1, 2});
    CHECK(conv.ops == std::vector<std::string>{"conv2d", "relu"});
    REQUIRE(conv.stack_traces.size() == 2);
    CHECK_FALSE(conv.stack_traces[1].second);
    CHECK_FALSE(conv.sequence);
    const auto* t = c.tensor(conv.outputs.at(0));
    REQUIRE(t);
    CHECK(t->dtype == "F32");
    CHECK(t->shape == std::vector<std::int64_t>{1, 2, 2, 2});
    const auto bytes = c.file->bytes(*t);
    CHECK(decodeElement(ScalarType::Float, bytes, 7) == -8.0);
    REQUIRE(conv.quantization.size() == 1);
    REQUIRE(conv.quantization[0]);
    CHECK(conv.quantization[0]->per_channel);
    CHECK(conv.quantization[0]->scale == std::vector<double>{0.5, 0.25});
    CHECK(conv.quantization[0]->zero_point == std::vector<std::int64_t>{0, 3});
    CHECK(conv.quantization[0]->axis == std::optional<std::int64_t>(1));
    CHECK(conv.quantization[0]->qmin == -128);
    CHECK(conv.axis_order == std::optional<std::vector<std::int64_t>>({0, 2, 3, 1}));

    const auto& topk = c.records[1];
    CHECK(topk.sequence);
    REQUIRE(topk.outputs.size() == 2);
    CHECK(c.tensor(topk.outputs[1])->dtype == "I64");
    CHECK(decodeElement(ScalarType::Long, c.file->bytes(*c.tensor(topk.outputs[1])), 0) == 4.0);

    const auto& s = c.records[2].outputs;
    REQUIRE(s.size() == 5);
    CHECK(s[0].int_value == -9000000000);
    CHECK(std::isnan(s[1].float_value));
    CHECK(s[2].bool_value);
    CHECK(s[3].kind == CaptureValue::Kind::Null);
    REQUIRE(s[4].items.size() == 2);
    CHECK(s[4].items[0].int_value == -9000000000);

    REQUIRE(c.inputs);
    CHECK(decodeElement(ScalarType::Half, c.file->bytes(*c.tensor(c.inputs->at(0))), 1) == -2.0);
    REQUIRE(c.reference_outputs);
    CHECK(c.tensor(c.reference_outputs->at(0))->numel == 0);
}

TEST_CASE("safetensors bad input: each gives a specific error", "[capture][bogus]") {
    SECTION("empty") {
        auto r = readCaptureBytes({});
        REQUIRE_FALSE(r);
        CHECK(r.error().code == ErrorCode::Empty);
    }
    SECTION("shorter than the header length") {
        auto r = readCaptureBytes({1, 2, 3});
        REQUIRE_FALSE(r);
        CHECK(r.error().code == ErrorCode::Truncated);
    }
    SECTION("a header length beyond the file") {
        auto bytes = safetensorsWithHeader("{}");
        bytes[0] = 200;
        auto r = readCaptureBytes(bytes);
        REQUIRE_FALSE(r);
        CHECK(r.error().code == ErrorCode::Truncated);
    }
    SECTION("an absurd header length is not a safetensors file") {
        auto r = readCaptureBytes(readBytes(fixturePath("executorch-samples/etrecord.bin")));
        REQUIRE_FALSE(r);
        CHECK(r.error().code == ErrorCode::BadMagic);
        CHECK_THAT(r.error().message, Catch::Contains("100 MiB limit"));
    }
    SECTION("header not JSON") {
        auto r = readCaptureBytes(safetensorsWithHeader("{\"a\": [1,"));
        REQUIRE_FALSE(r);
        CHECK(r.error().code == ErrorCode::Malformed);
        CHECK(r.error().where.byteOffset >= 8);
    }
    SECTION("unknown dtype") {
        auto r = readCaptureBytes(
            safetensorsWithHeader(R"({"t":{"dtype":"C64","shape":[1],"data_offsets":[0,8]}})", 8));
        REQUIRE_FALSE(r);
        CHECK_THAT(r.error().message, Catch::Contains("tensor 't'") && Catch::Contains("C64"));
    }
    SECTION("offsets outside the data section") {
        auto r = readCaptureBytes(
            safetensorsWithHeader(R"({"t":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", 8));
        REQUIRE_FALSE(r);
        CHECK_THAT(r.error().message, Catch::Contains("8-byte data section"));
    }
    SECTION("bytes not matching shape × dtype") {
        auto r = readCaptureBytes(
            safetensorsWithHeader(R"({"t":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", 8));
        REQUIRE_FALSE(r);
        CHECK_THAT(r.error().message, Catch::Contains("need 12"));
    }
    SECTION("negative shape") {
        auto r = readCaptureBytes(
            safetensorsWithHeader(R"({"t":{"dtype":"F32","shape":[-1],"data_offsets":[0,0]}})"));
        REQUIRE_FALSE(r);
    }
    SECTION("a valid safetensors file that is not a capture") {
        SafetensorsWriter w;
        REQUIRE_FALSE(w.add("weight", ScalarType::Float, {2}, raw<float>({1, 2})));
        auto r = readCaptureBytes(w.serialize());
        REQUIRE_FALSE(r);
        CHECK(r.error().code == ErrorCode::BadMagic);
        CHECK_THAT(r.error().message, Catch::Contains("gapscope.aot_capture"));
    }
    SECTION("every truncation of a real capture") {
        const auto bytes = readBytes(writeSample("truncate.gscap.safetensors"));
        for (std::size_t len = 0; len < bytes.size(); ++len) {
            std::vector<std::uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(len));
            CHECK_FALSE(readCaptureBytes(cut));
        }
    }
}

TEST_CASE("capture documents: bad records are located errors", "[capture][bogus]") {
    const auto ok =
        R"([{"debug_handle":[1],"ops":["a"],"sequence":false,"outputs":[{"kind":"tensor","name":"t"}]}])";
    REQUIRE(readCaptureDoc(docWith(ok)));
    // A document written by Python's json with allow_nan: bare NaN / -Infinity.
    const auto python = readCaptureDoc(
        R"({"format": "gapscope.aot_capture", "version": 1, "records": [{"debug_handle": [1], "ops": ["a"],
            "sequence": true, "outputs": [{"kind": "float", "value": NaN}, {"kind": "float", "value": -Infinity}]}]})");
    REQUIRE(python);
    CHECK(std::isnan(python.value().records[0].outputs[0].float_value));
    CHECK(python.value().records[0].outputs[1].float_value == -std::numeric_limits<double>::infinity());

    auto expectError = [](const std::string& doc, const std::string& field, const std::string& text) {
        auto r = readCaptureDoc(doc);
        REQUIRE_FALSE(r);
        CHECK(r.error().where.field == field);
        CHECK_THAT(r.error().message, Catch::Contains(text));
    };
    expectError(docWith(ok, 2), "version", "version 2 is not supported");
    expectError(R"({"format":"other","version":1,"records":[]})", "", "not a gapscope.aot_capture");
    expectError("{not json", "gapscope.aot_capture", "not valid JSON");
    expectError(docWith(R"([{"debug_handle":[],"outputs":[]}])"), "records[0].debug_handle", "non-empty");
    expectError(docWith(R"([{"debug_handle":[0],"outputs":[]}])"), "records[0].debug_handle", "positive");
    expectError(docWith(R"([{"debug_handle":[1],"outputs":[{"kind":"tensor","name":"missing"}]}])"),
                "records[0].outputs[0]", "'missing'");
    expectError(
        docWith(R"([{"debug_handle":[1],"outputs":[{"kind":"int","value":1},{"kind":"int","value":2}]}])"),
        "records[0].outputs", "exactly one output");
    expectError(docWith(R"([{"debug_handle":[1],"outputs":[{"kind":"complex"}]}])"), "records[0].outputs[0]",
                "unknown value kind");
    expectError(docWith(R"([{"debug_handle":[1],"outputs":[{"kind":"tensor","name":"t"}],
                "quantization":[{"scheme":"per_tensor","scale":0,"zero_point":0,"qmin":0,"qmax":255}]}])"),
                "records[0].quantization[0].scale", "positive");
    expectError(docWith(R"([{"debug_handle":[1],"outputs":[{"kind":"tensor","name":"t"}],
                "quantization":[{"scheme":"per_channel","scale":[1,2],"zero_point":[0,0],"qmin":0,"qmax":255}]}])"),
                "records[0].quantization[0].axis", "axis");
    expectError(
        docWith(R"([{"debug_handle":[1],"outputs":[{"kind":"tensor","name":"t"}],"axis_order":[0,0,1]}])"),
        "records[0].axis_order", "permutation");
}

// Issue 23: a capture of one step of a sequence (state carried) says which; both
// readers take the field, and anything but a non-negative integer is refused.
TEST_CASE("a step capture's step is read by both readers, and only as an integer of 0 or more", "[capture]") {
    const auto ok =
        R"([{"debug_handle":[1],"ops":["a"],"sequence":false,"outputs":[{"kind":"tensor","name":"t"}]}])";
    auto withStep = [&](const std::string& step) {
        auto doc = nlohmann::json::parse(docWith(ok));
        doc["step"] = nlohmann::json::parse(step);
        return doc.dump();
    };
    {
        SafetensorsWriter w;
        REQUIRE_FALSE(w.add("t", ScalarType::Float, {2}, raw<float>({1, 2})));
        w.setMetadata(AotCapture::kMetadataKey, withStep("7"));
        const auto bytes = w.serialize();
        const auto r =
            readAotCapture(MappedFile::fromBytes("s.gscap.safetensors", bytes.data(), bytes.size()));
        REQUIRE(r);
        CHECK(r.value().step == std::optional<std::uint64_t>(7));
    }
    REQUIRE(readCaptureDoc(docWith(ok)));
    CHECK_FALSE(readCaptureDoc(docWith(ok)).value().step);
    CHECK_FALSE(readCaptureDoc(withStep("null")).value().step);
    for (const std::string bad : {"-1", "1.5", "\"3\"", "true"}) {
        INFO(bad);
        const auto r = readCaptureDoc(withStep(bad));
        REQUIRE_FALSE(r);
        CHECK(r.error().where.field == "step");
        CHECK_THAT(r.error().message, Catch::Contains("'step' must be an integer of 0 or more"));
    }
}

// Issue 30: a float reference whose float counterpart cannot be established
// writes the record without a value and says why. Both readers take the reason,
// the writer keeps it, and a reason beside a value is refused where it stands.
TEST_CASE("a record's invalid_reason is read by both readers, written back, and only beside nulls",
          "[capture]") {
    const auto record = [](const std::string& outputs, const std::string& reason) {
        return docWith(R"([{"debug_handle":[4],"ops":["conv2d"],"sequence":false,"outputs":)" + outputs +
                       R"(,"invalid_reason":)" + reason + "}]");
    };
    const auto doc =
        record(R"([{"kind":"null"}])", R"("the quantiser folded 'batch_norm' and 'batch_norm_1'")");
    {
        SafetensorsWriter w;
        REQUIRE_FALSE(w.add("t", ScalarType::Float, {2}, raw<float>({1, 2})));
        w.setMetadata(AotCapture::kMetadataKey, doc);
        const auto bytes = w.serialize();
        const auto r =
            readAotCapture(MappedFile::fromBytes("f.gscap.safetensors", bytes.data(), bytes.size()));
        REQUIRE(r);
        REQUIRE(r.value().records.size() == 1);
        CHECK(r.value().records[0].invalid_reason ==
              std::optional<std::string>("the quantiser folded 'batch_norm' and 'batch_norm_1'"));

        const auto path = tempPath("invalid_reason.gscap.safetensors");
        SafetensorsWriter again;
        REQUIRE_FALSE(again.add("t", ScalarType::Float, {2}, raw<float>({1, 2})));
        REQUIRE_FALSE(writeAotCapture(path, r.value(), again));
        const auto mapped = MappedFile::open(path);
        REQUIRE(mapped);
        const auto back = readAotCapture(mapped.value());
        REQUIRE(back);
        CHECK(back.value().records[0].invalid_reason == r.value().records[0].invalid_reason);
    }
    CHECK_FALSE(readCaptureDoc(
                    docWith(R"([{"debug_handle":[1],"ops":["a"],"outputs":[{"kind":"tensor","name":"t"}]}])"))
                    .value()
                    .records[0]
                    .invalid_reason);
    const auto beside = readCaptureDoc(record(R"([{"kind":"tensor","name":"t"}])", R"("why")"));
    REQUIRE_FALSE(beside);
    CHECK(beside.error().where.field == "records[0].outputs[0]");
    CHECK_THAT(beside.error().message, Catch::Contains("holds no values, only nulls"));
    const auto number = readCaptureDoc(record(R"([{"kind":"null"}])", "3"));
    REQUIRE_FALSE(number);
    CHECK(number.error().where.field == "records[0].invalid_reason");
}

#include "core/capture/reference_kind.h"

// Issue 54: a float reference keyed by the QNN debugger's graph names that graph
// after "from"; the comparison then counts ops and checks the backend's graph by it.
TEST_CASE("the graph whose handles key a capture, float references included", "[capture][reference-kind]") {
    AotCapture c;
    CHECK(keyingGraph(c).empty());
    c.reference_graph = "edge_after_transform/forward";
    CHECK(keyingGraph(c) == "edge_after_transform/forward");
    // Issue 56: QNN's graph dequantizes its weights only: not a quantised simulation.
    c.records.push_back({});
    c.records.back().ops = {"quantized_decomposed_dequantize_per_tensor_default", "aten_linear_default"};
    CHECK(referenceKind(c) == ReferenceKind::QnnGraph);
    c.reference_graph = "edge_dialect_exported_program";
    CHECK(referenceKind(c) == ReferenceKind::QuantSimulation);
    c.records.clear();
    c.reference_graph =
        "float_exported_program (handles by node provenance from edge_after_transform/forward)";
    CHECK(keyingGraph(c) == "edge_after_transform/forward");
    CHECK(referenceKind(c) == ReferenceKind::FloatModel);
    c.reference_graph = "float_exported_program (handles by node name from exported_program)";
    CHECK(keyingGraph(c) == "exported_program");
    c.reference_graph = "float_exported_program (handles by node name from an in-memory program)";
    CHECK(keyingGraph(c).empty());
    c.reference_graph = "float_exported_program (no parenthesis";
    CHECK(keyingGraph(c).empty());
}
