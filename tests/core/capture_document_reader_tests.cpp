// The capture document reader (simdjson On-Demand): real captures and random
// documents read back to what the writer (nlohmann) wrote; damaged and bogus
// documents are refused with a located error, never read as something else.

#include "committed_captures.h"
#include "core/capture/aot_capture.h"
#include "core/capture/capture_document_reader.h"
#include "core/capture/safetensors_writer.h"
#include "core/common/python_json.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>

using namespace gapscope;

namespace {

std::shared_ptr<const MappedFile> captureFile(const std::string& document) {
    SafetensorsWriter w;
    for (int i = 0; i < 4; ++i)
        REQUIRE_FALSE(
            w.add("t" + std::to_string(i), ScalarType::Float, {2}, std::vector<std::uint8_t>(8, 0)));
    w.setMetadata(AotCapture::kMetadataKey, document);
    const auto bytes = w.serialize();
    return MappedFile::fromBytes("random.gscap.safetensors", bytes.data(), bytes.size());
}

std::string documentOf(const MappedFile& file) {
    const auto st = SafetensorsFile::read(std::shared_ptr<const MappedFile>(&file, [](const MappedFile*) {}));
    REQUIRE(st);
    return st.value().metadata().at(AotCapture::kMetadataKey);
}

class RandomCapture {
public:
    explicit RandomCapture(std::mt19937& rng) : m_rng(rng) {}

    AotCapture make() {
        AotCapture c;
        if (pct() < 50)
            c.producer = {{"gapscope_capture", "0.1.0"}, {"torch", text()}};
        if (pct() < 60)
            c.reference_graph = pct() < 50 ? "exported_program" : text();
        if (pct() < 30)
            c.method = text();
        if (pct() < 30)
            c.etrecord_sha256 = std::string(64, 'a');
        c.layout_recorded = pct() < 30;
        if (pct() < 50)
            c.inputs = valueList(0);
        if (pct() < 50)
            c.reference_outputs = valueList(0);
        const int records = between(0, 5);
        for (int i = 0; i < records; ++i) {
            CaptureRecord r;
            // Each check of the DOM reader fails now and then: no handle or a
            // zero one, a single record with other than one output, a
            // quantization list of the wrong length, an order that is no
            // permutation.
            for (int k = pct() < 3 ? 0 : between(1, 3); k > 0; --k)
                r.debug_handle.push_back(between(pct() < 3 ? 0 : 1, 1000));
            for (int k = between(0, 3); k > 0; --k) {
                r.ops.push_back("op_" + std::to_string(between(0, 99)));
                if (pct() < 50)
                    r.stack_traces.emplace_back(r.ops.back() + std::to_string(k),
                                                pct() < 70 ? std::optional<std::string>(text())
                                                           : std::nullopt);
            }
            r.sequence = pct() < 30;
            const int outputs = r.sequence ? between(0, 3) : pct() < 5 ? 2 * between(0, 1) : 1;
            for (int k = 0; k < outputs; ++k)
                r.outputs.push_back(value(0));
            if (pct() < 40)
                for (int k = pct() < 5 ? -1 : 0; k < outputs; ++k)
                    r.quantization.push_back(pct() < 30 ? std::nullopt : std::optional<QuantParams>(quant()));
            if (pct() < 30) {
                std::vector<std::int64_t> order(static_cast<std::size_t>(between(1, 4)));
                for (std::size_t k = 0; k < order.size(); ++k)
                    order[k] = static_cast<std::int64_t>(k);
                std::shuffle(order.begin(), order.end(), m_rng);
                if (pct() < 10)
                    order.back() = static_cast<std::int64_t>(order.size());
                r.axis_order = order;
            }
            c.records.push_back(std::move(r));
        }
        // Taps of the reference outputs (issue 58): now and then one past them or
        // two of one output, which the reader refuses.
        const int outputs = c.reference_outputs ? static_cast<int>(c.reference_outputs->size()) : 0;
        if (pct() < 30)
            for (int k = between(0, 2); k > 0; --k) {
                CaptureTap t;
                t.output_index =
                    static_cast<std::size_t>(pct() < 5 ? outputs : between(0, std::max(0, outputs - 1)));
                t.node_name = text();
                t.op_target = "aten.conv2d.default";
                t.reducer = pct() < 50 ? CaptureTap::kFullTensor : CaptureTap::kStats;
                if (t.reducer == CaptureTap::kStats)
                    t.fields = {"min", "max", text()};
                if (pct() < 50)
                    t.stack_trace = text();
                if (pct() < 50)
                    t.module_path = text();
                if (pct() < 70)
                    t.debug_handle = std::vector<std::int64_t>{between(pct() < 3 ? 0 : 1, 50)};
                c.taps.push_back(std::move(t));
            }
        return c;
    }

private:
    int pct() { return between(0, 99); }
    int between(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(m_rng); }

    std::string text() {
        static const char* pieces[] = {
            "a", "Z", "\"", "\\", "/", "\n", "\t", "\x01", "\xc3\xa9", "\xf0\x9f\x98\x80", " "};
        std::string s;
        for (int i = between(0, 6); i > 0; --i)
            s += pieces[between(0, static_cast<int>(std::size(pieces)) - 1)];
        return s;
    }

    std::vector<CaptureValue> valueList(int depth) {
        std::vector<CaptureValue> out;
        for (int i = between(0, 3); i > 0; --i)
            out.push_back(value(depth));
        return out;
    }

    CaptureValue value(int depth) {
        CaptureValue v;
        switch (between(0, depth < 3 ? 6 : 5)) {
        case 0:
        case 1:
            v.kind = CaptureValue::Kind::Tensor;
            v.tensor = "t" + std::to_string(between(0, 4)); // t4 is not in the file
            break;
        case 2:
            v.kind = CaptureValue::Kind::Int;
            v.int_value = pct() < 10 ? std::numeric_limits<std::int64_t>::min() : between(-1000, 1000);
            break;
        case 3: {
            v.kind = CaptureValue::Kind::Float;
            const double specials[] = {std::numeric_limits<double>::quiet_NaN(),
                                       std::numeric_limits<double>::infinity(),
                                       -std::numeric_limits<double>::infinity(),
                                       -0.0,
                                       5e-324,
                                       1.7976931348623157e308,
                                       0.1,
                                       3.0};
            v.float_value = pct() < 40 ? specials[between(0, 7)]
                                       : std::ldexp(std::uniform_real_distribution<double>(-1, 1)(m_rng),
                                                    between(-60, 60));
            break;
        }
        case 4:
            v.kind = CaptureValue::Kind::Bool;
            v.bool_value = pct() < 50;
            break;
        case 5: v.kind = CaptureValue::Kind::Null; break;
        default:
            v.kind = CaptureValue::Kind::List;
            v.items = valueList(depth + 1);
            break;
        }
        return v;
    }

    QuantParams quant() {
        QuantParams q;
        q.per_channel = pct() < 40;
        const int n = q.per_channel ? between(1, 4) : 1;
        for (int i = 0; i < n; ++i) {
            q.scale.push_back(pct() < 3 ? 0.0 : std::ldexp(1.0 + pct() / 100.0, between(-12, 2)));
            q.zero_point.push_back(between(-128, 127));
        }
        if (q.per_channel)
            q.axis = between(0, 3);
        q.dtype = pct() < 50 ? "int8" : "uint8";
        q.qmin = between(-128, 0);
        q.qmax = pct() < 3 ? q.qmin - 1 : between(0, 255);
        return q;
    }

    std::mt19937& m_rng;
};

// One random change to the document text: a byte replaced, removed or put in,
// or a token the DOM reader treats specially put in place of another.
std::string mutate(std::string s, std::mt19937& rng) {
    static const char alphabet[] = "{}[]\":,\\u0123456789.eE-+ \ntfnNaI\x01\x80\xc3";
    static const char* tokens[] = {
        "null", "NaN", "-Infinity", "\"x\"",        "1.5",   "-1", "0", "18446744073709551616",
        "true", "[]",  "{}",        "\"extra\":1,", "1e999", "-0", "01"};
    if (s.empty())
        return s;
    auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
    const auto at = pick(s.size());
    switch (pick(4)) {
    case 0: s[at] = alphabet[pick(sizeof(alphabet) - 1)]; break;
    case 1: s.erase(at, 1); break;
    case 2: s.insert(at, 1, alphabet[pick(sizeof(alphabet) - 1)]); break;
    default: {
        // Replace the value after a colon with a token.
        const auto colon = s.find(':', at);
        if (colon == std::string::npos)
            break;
        auto end = colon + 1;
        while (end < s.size() && s[end] != ',' && s[end] != '}' && s[end] != ']')
            ++end;
        s.replace(colon + 1, end - colon - 1, tokens[pick(std::size(tokens))]);
        break;
    }
    }
    return s;
}

// Python's json.dumps spacing (", " and ": "), as the exporter writes.
std::string pythonSpacing(const std::string& compact) {
    std::string out;
    bool inString = false;
    for (std::size_t i = 0; i < compact.size(); ++i) {
        const char c = compact[i];
        out += c;
        if (inString) {
            if (c == '\\' && i + 1 < compact.size())
                out += compact[++i];
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == ',' || c == ':') {
            out += ' ';
        }
    }
    return out;
}

// A document an independent parser (nlohmann's, with Python's NaN rewritten
// as the format allows) takes as JSON.
bool isJson(const std::string& doc) {
    return !nlohmann::json::parse(normalizePythonJson(doc).text, nullptr, false).is_discarded();
}

Result<AotCapture> readDoc(const std::string& doc) {
    return readAotCapture(captureFile(doc));
}

} // namespace

TEST_CASE("Every real capture reads, and reads back to itself through the writer", "[capture-document]") {
    for (const auto& real : test::committedCaptures()) {
        INFO(real->path());
        const auto read = readAotCapture(real);
        REQUIRE(read);
        const auto doc = nlohmann::json::parse(normalizePythonJson(documentOf(*real)).text);
        CHECK(read.value().records.size() == doc["records"].size());
        const std::string written = aotCaptureDocument(read.value());
        const auto again = readCaptureDocument(written, *read.value().file, real->path());
        REQUIRE(again);
        CHECK(aotCaptureDocument(again.value()) == written);
    }
}

// Every way a document can be bogus, with the field it names and what it says.
TEST_CASE("Bogus capture documents are refused with a located error", "[capture-document][bogus]") {
    const std::string head = R"({"format":"gapscope.aot_capture","version":1,)";
    const std::string rec = R"("records":[{"debug_handle":[1],"outputs":[{"kind":"tensor","name":"t0"}]}])";
    const std::string ok = head + rec + "}";
    REQUIRE(readDoc(ok));
    auto withRecord = [&](const std::string& record) { return head + R"("records":[)" + record + "]}"; };
    struct Case {
        std::string doc;
        const char* field;
        const char* says;
    };
    const Case cases[] = {
        {head + R"("version":1,)" + rec + "}", "", "the key 'version' appears twice"},
        {head + rec + "," + rec + "}", "", "the key 'records' appears twice"},
        {withRecord(R"({"debug_handle":[1],"debug_handle":[2],"outputs":[]})"), "records[0]",
         "the key 'debug_handle' appears twice"},
        {withRecord(R"({"debug_handle":[1],"sequence":null,"outputs":[]})"), "records[0].sequence",
         "'sequence' must be true or false"},
        {withRecord(R"({"debug_handle":[1],"outputs":[{"kind":"int","value":1.0}]})"),
         "records[0].outputs[0]", "an int value needs an integer 'value' of 64 bits"},
        {withRecord(R"({"debug_handle":[1],"outputs":[{"kind":"int","value":9223372036854775808}]})"),
         "records[0].outputs[0]", "of 64 bits"},
        {withRecord(R"({"debug_handle":[1],"outputs":[{"kind":"tensor","name":"t9"}]})"),
         "records[0].outputs[0]", "names tensor 't9', which the file does not hold"},
        {withRecord(R"({"debug_handle":[0],"outputs":[{"kind":"null"}]})"), "records[0].debug_handle",
         "positive integers"},
        {withRecord(R"({"debug_handle":[18446744073709551615],"outputs":[{"kind":"null"}]})"),
         "records[0].debug_handle", "positive integers"},
        {withRecord(R"({"outputs":[{"kind":"null"}]})"), "records[0].debug_handle", "positive integers"},
        {withRecord(R"({"debug_handle":[1]})"), "records[0].outputs", "a record needs 'outputs'"},
        {withRecord(R"({"debug_handle":[1],"outputs":[{"kind":"null"}],"axis_order":[1,1]})"),
         "records[0].axis_order", "permutation"},
        {withRecord(R"({"debug_handle":[1],"outputs":[{"value":1,"kind":"list"}]})"), "records[0].outputs[0]",
         "a list value needs 'items'"},
        {withRecord(R"({"debug_handle":[1],"outputs":[{"kind":"float","value":"nan"}]})"),
         "records[0].outputs[0]", "a float value needs a number"},
        {withRecord(R"({"debug_handle":[1],"outputs":[{"kind":"null"}],"quantization":[null,null]})"),
         "records[0].quantization", "one entry per output"},
        {withRecord(
             R"({"debug_handle":[1],"outputs":[{"kind":"null"}],"quantization":[{"scheme":"per_tensor",)"
             R"("scale":1,"zero_point":0,"dtype":8,"qmin":0,"qmax":1}]})"),
         "records[0].quantization[0].dtype", "'dtype' must be a string"},
        // Paths are rendered only for a fault (JsonPath): nested ones, at depth.
        {withRecord(R"({"debug_handle":[1],"outputs":[{"kind":"null"}]},{"debug_handle":[2],"sequence":true,)"
                    R"("outputs":[{"kind":"null"},{"kind":"list","items":[{"kind":"null"},{"kind":"x"}]}]})"),
         "records[1].outputs[1].items[1]", "unknown value kind 'x'"},
        {withRecord(R"({"debug_handle":[1],"outputs":[{"kind":"null","kind":"null"}]})"),
         "records[0].outputs[0]", "the key 'kind' appears twice"},
        {withRecord(R"({"debug_handle":[1],"sequence":true,"outputs":[{"kind":"null"},{"kind":"null"}],)"
                    R"("quantization":[null,{"scheme":"per_tensor","scale":-1,"zero_point":0,"dtype":"int8",)"
                    R"("qmin":-128,"qmax":127}]})"),
         "records[0].quantization[1].scale", "positive and finite"},
        {withRecord(R"({"debug_handle":[1],"ops":["a",7],"outputs":[{"kind":"null"}]})"), "records[0].ops[1]",
         "an op name must be a string"},
        {withRecord(R"({"debug_handle":[1],"outputs":[{"kind":"tensor","name":"t0"}],"invalid_reason":"x"})"),
         "records[0].outputs[0]", "only nulls"},
        {R"({"format":"gapscope.aot_capture","version":2,)" + rec + "}", "version",
         "capture format version 2 is not supported"},
        {R"({"format":"gapscope.aot_capture","version":4294967297,)" + rec + "}", "version",
         "capture format version 4294967297 is not supported"},
        {R"({"format":"gapscope.aot_capture","version":1.0,)" + rec + "}", "version",
         "'version' must be an integer"},
        {R"({)" + rec + R"(,"version":1,"format":"other"})", "", "missing or wrong 'format'"},
        {R"([1])", "", "missing or wrong 'format'"},
        {head + R"("records":{}})", "records", "'records' must be a list"},
        {head + R"("step":-1,)" + rec + "}", "step", "'step' must be an integer of 0 or more"},
        // Taps (issue 58): each names an output the reference holds, once, with its op and reducer.
        {head +
             R"("reference_outputs":[{"kind":"null"}],"taps":[{"output_index":1,"node_name":"conv","op_target":"t",)"
             R"("reducer":"STATS"}],)" +
             rec + "}",
         "taps[0].output_index", "tap 'conv' is program output 1, but the capture holds 1 reference outputs"},
        {head +
             R"("reference_outputs":[{"kind":"null"}],"taps":[{"output_index":0,"node_name":"a","op_target":"t",)"
             R"("reducer":"STATS"},{"output_index":0,"node_name":"b","op_target":"t","reducer":"STATS"}],)" +
             rec + "}",
         "taps[1].output_index", "two taps are program output 0"},
        {head + R"("taps":[{"output_index":0,"node_name":"a","op_target":"t"}],)" + rec + "}",
         "taps[0].reducer", "a tap needs 'reducer'"},
        {head + R"("taps":[{"output_index":-1,"node_name":"a","op_target":"t","reducer":"STATS"}],)" + rec +
             "}",
         "taps[0].output_index", "'output_index' must be an integer of 0 or more"},
        {head +
             R"("taps":[{"output_index":0,"node_name":"a","op_target":"t","reducer":"STATS","debug_handle":[0]}],)" +
             rec + "}",
         "taps[0].debug_handle", "positive integers"},
        {head +
             R"("taps":[{"output_index":0,"node_name":"a","op_target":"t","reducer":"STATS","fields":[1]}],)" +
             rec + "}",
         "taps[0].fields[0]", "a field name must be a string"},
        {head + R"("taps":{},)" + rec + "}", "taps", "'taps' must be a list"},
        {ok + " x", AotCapture::kMetadataKey, "not valid JSON"},
        {head + R"("extra":tru,)" + rec + "}", AotCapture::kMetadataKey, "not valid JSON"},
        {head + R"("extra":[1,],)" + rec + "}", AotCapture::kMetadataKey, "not valid JSON"},
        {head + R"("producer":{"a":"\ud800"},)" + rec + "}", AotCapture::kMetadataKey, "not valid JSON"},
    };
    for (const auto& c : cases) {
        INFO(c.doc);
        const auto r = readDoc(c.doc);
        REQUIRE_FALSE(r);
        CHECK(r.error().where.field == c.field);
        CHECK_THAT(r.error().message, Catch::Contains(c.says));
        CHECK(r.error().where.file == "random.gscap.safetensors");
    }
    // A fault of the text names the byte of the document it stands at.
    const auto bad = readDoc(head + R"("extra":tru,)" + rec + "}");
    REQUIRE_FALSE(bad);
    CHECK_THAT(bad.error().message,
               Catch::Contains("(at byte " + std::to_string(head.size() + 8) + " of the document)"));
}

TEST_CASE("Capture documents other readers take are read", "[capture-document]") {
    const std::string head = R"({"format":"gapscope.aot_capture","version":1,)";
    const std::string rec = R"("records":[{"debug_handle":[1],"outputs":[{"kind":"tensor","name":"t0"}]}])";
    // Another key, a producer entry that is no string, the fields in another
    // order, Python's spacing: read, the unknown ignored.
    for (const std::string& doc : {head + R"("extra":{"a":[1,{"b":null}]},)" + rec + "}",
                                   head + R"("producer":{"torch":2,"gapscope":"1"},)" + rec + "}",
                                   R"({)" + rec + R"(,"version":1,"format":"gapscope.aot_capture"})",
                                   pythonSpacing(head + rec + "}")}) {
        INFO(doc);
        const auto r = readDoc(doc);
        REQUIRE(r);
        CHECK(r.value().records.size() == 1);
    }
    // Python's bare NaN and Infinity are the format's strings.
    const auto nan = readDoc(
        head + R"("records":[{"debug_handle":[1],"sequence":true,"outputs":[{"kind":"float","value":NaN},)"
               R"({"kind":"float","value":-Infinity}]}]})");
    REQUIRE(nan);
    CHECK(std::isnan(nan.value().records[0].outputs[0].float_value));
    CHECK(nan.value().records[0].outputs[1].float_value == -std::numeric_limits<double>::infinity());
    // Many stack traces (each key checked against the others once).
    std::string traces;
    for (int i = 0; i < 300; ++i)
        traces += (i ? ",\"op" : "\"op") + std::to_string(i) + "\":null";
    const auto many = readDoc(head + R"("records":[{"debug_handle":[1],"stack_traces":{)" + traces +
                              R"(},"outputs":[{"kind":"null"}]}]})");
    REQUIRE(many);
    CHECK(many.value().records[0].stack_traces.size() == 300);
    // Lists nested 70 deep are read; past the bound they are refused, not recursed.
    auto nested = [&](int depth) {
        std::string deep = R"({"kind":"null"})";
        for (int i = 0; i < depth; ++i)
            deep = R"({"kind":"list","items":[)" + deep + "]}";
        return head + R"("records":[{"debug_handle":[1],"outputs":[)" + deep + "]}]}";
    };
    CHECK(readDoc(nested(70)));
    const auto tooDeep = readDoc(nested(2000));
    REQUIRE_FALSE(tooDeep);
    CHECK_THAT(tooDeep.error().message, Catch::Contains("not valid JSON"));
}

TEST_CASE("Random capture documents read back to what was written", "[capture-document]") {
    std::mt19937 rng(1201);
    RandomCapture random(rng);
    std::size_t read = 0, refused = 0;
    for (int i = 0; i < 2000; ++i) {
        std::string doc = aotCaptureDocument(random.make());
        if (i % 2 == 1)
            doc = pythonSpacing(doc);
        INFO(doc);
        const auto r = readDoc(doc);
        if (r) {
            ++read;
            CHECK(aotCaptureDocument(r.value()) ==
                  aotCaptureDocument(readDoc(aotCaptureDocument(r.value())).value()));
            CHECK(nlohmann::json::parse(aotCaptureDocument(r.value())) == nlohmann::json::parse(doc));
        } else {
            ++refused; // a rule the random capture breaks, named where it stands
            CHECK_FALSE(r.error().where.field.empty());
        }
    }
    CHECK(read > 500);
    CHECK(refused > 300);
}

TEST_CASE("Damaged capture documents are refused or read as valid JSON, never as something else",
          "[capture-document]") {
    std::mt19937 rng(1202);
    RandomCapture random(rng);
    std::size_t notJson = 0, located = 0;
    for (int i = 0; i < 3000; ++i) {
        std::string doc = aotCaptureDocument(random.make());
        for (int k = std::uniform_int_distribution<int>(1, 2)(rng); k > 0; --k)
            doc = mutate(doc, rng);
        INFO(doc);
        const auto file = captureFile(doc);
        const auto r = readAotCapture(file);
        // As stored: the safetensors writer replaces bytes that are not UTF-8.
        if (!isJson(documentOf(*file))) {
            // Refused; the first fault in the document's order is named, a
            // fault of meaning before a fault of the text included.
            ++notJson;
            REQUIRE_FALSE(r);
            const auto& e = r.error();
            CHECK((e.where.field != AotCapture::kMetadataKey ||
                   e.message.find("not valid JSON") != std::string::npos));
            const bool at =
                e.where.field != AotCapture::kMetadataKey || e.message.find("(at byte ") != std::string::npos;
            located += at;
        }
    }
    CHECK(notJson > 1000);
    // Every fault names its place, a field or the byte of the document, but
    // for a raw control character simdjson finds where this reader's own scan
    // of the strings does not.
    CHECK(located * 100 >= notJson * 99);
}
