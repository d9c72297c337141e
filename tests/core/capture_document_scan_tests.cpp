// The one-pass capture document reader against the DOM reader: on the real
// captures it is the path taken, and on random documents, well formed or
// damaged, both readings give the same capture or the same error.

#include "committed_captures.h"
#include "core/capture/aot_capture.h"
#include "core/capture/capture_document_scan.h"
#include "core/capture/safetensors_writer.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <random>

using namespace gapscope;

namespace {

std::string describe(const Result<AotCapture>& r) {
    return r ? "version " + std::to_string(r.value().version) + " " + aotCaptureDocument(r.value())
             : "error " + r.error().describe();
}

// Both readings of one file: the same capture (every field, as the writer
// renders it), or the same error.
void requireSameReading(const std::shared_ptr<const MappedFile>& file) {
    const auto scan = readAotCapture(file, JsonParse::Scan);
    const auto dom = readAotCapture(file, JsonParse::Dom);
    REQUIRE(describe(scan) == describe(dom));
}

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

} // namespace

TEST_CASE("The capture document scan is the path the real captures take", "[capture-scan]") {
    for (const auto& real : test::committedCaptures()) {
        INFO(real->path());
        const auto st = SafetensorsFile::read(real);
        REQUIRE(st);
        const auto scanned = scanCaptureDocument(documentOf(*real), st.value());
        REQUIRE(scanned);
        const auto dom = readAotCapture(real, JsonParse::Dom);
        REQUIRE(dom);
        CHECK(scanned->records.size() == dom.value().records.size());
        requireSameReading(real);
    }
}

TEST_CASE("The capture document scan leaves every other shape to the DOM reader", "[capture-scan]") {
    const std::string head = R"({"format":"gapscope.aot_capture","version":1,)";
    const std::string rec = R"("records":[{"debug_handle":[1],"outputs":[{"kind":"tensor","name":"t0"}]}])";
    const std::string ok = head + rec + "}";
    REQUIRE(scanCaptureDocument(ok, SafetensorsFile::read(captureFile(ok)).value()));
    const std::string others[] = {
        head + R"("extra":1,)" + rec + "}",                                         // another key
        head + R"("version":1,)" + rec + "}",                                       // a duplicate
        head + R"("records":[{"debug_handle":[1],"sequence":null,"outputs":[]}]})", // null sequence
        head + R"("producer":{"torch":2},)" + rec + "}",                            // a number ignored
        head +
            R"("records":[{"debug_handle":[1],"outputs":[{"kind":"float","value":NaN}]}]})", // Python's NaN
        head + R"("records":[{"debug_handle":[1],"outputs":[{"kind":"int","value":1.0}]}]})",
        head + R"("records":[{"debug_handle":[1],"outputs":[{"kind":"tensor","name":"t9"}]}]})",
        head + R"("records":[{"debug_handle":[0],"outputs":[{"kind":"null"}]}]})",
        head + R"("records":[{"debug_handle":[1],"outputs":[{"kind":"null"}],"axis_order":[1,1]}]})",
        head + R"("records":[{"debug_handle":[1],"outputs":[{"kind":"null","value":1}]}]})",
        R"({"format":"gapscope.aot_capture","version":2,)" + rec + "}",
        ok + " x",
    };
    for (const auto& doc : others) {
        INFO(doc);
        const auto file = captureFile(doc);
        CHECK_FALSE(scanCaptureDocument(doc, SafetensorsFile::read(file).value()));
        requireSameReading(file);
    }
    // More stack traces than the scan takes (it would look for duplicates
    // quadratically): the DOM reader reads them.
    std::string traces;
    for (int i = 0; i < 300; ++i)
        traces += (i ? ",\"op" : "\"op") + std::to_string(i) + "\":null";
    const std::string manyTraces = head + R"("records":[{"debug_handle":[1],"stack_traces":{)" + traces +
                                   R"(},"outputs":[{"kind":"null"}]}]})";
    CHECK_FALSE(scanCaptureDocument(manyTraces, SafetensorsFile::read(captureFile(manyTraces)).value()));
    requireSameReading(captureFile(manyTraces));
    // Lists nested past the scan's bound.
    std::string deep = R"({"kind":"null"})";
    for (int i = 0; i < 70; ++i)
        deep = R"({"kind":"list","items":[)" + deep + "]}";
    const std::string deepDoc = head + R"("records":[{"debug_handle":[1],"outputs":[)" + deep + "]}]}";
    CHECK_FALSE(scanCaptureDocument(deepDoc, SafetensorsFile::read(captureFile(deepDoc)).value()));
    requireSameReading(captureFile(deepDoc));
}

TEST_CASE("The capture document scan and the DOM reader agree on random documents", "[capture-scan]") {
    std::mt19937 rng(1201);
    RandomCapture random(rng);
    std::size_t scanned = 0, refused = 0;
    for (int i = 0; i < 4000; ++i) {
        std::string doc = aotCaptureDocument(random.make());
        if (i % 2 == 1)
            doc = pythonSpacing(doc);
        const int changes = i % 4 == 0 ? 0 : std::uniform_int_distribution<int>(1, 2)(rng);
        for (int k = 0; k < changes; ++k)
            doc = mutate(doc, rng);
        INFO(doc);
        const auto file = captureFile(doc);
        const auto st = SafetensorsFile::read(file);
        REQUIRE(st);
        if (scanCaptureDocument(doc, st.value()))
            ++scanned;
        else if (!readAotCapture(file, JsonParse::Dom))
            ++refused;
        requireSameReading(file);
    }
    // Both sides are exercised.
    CHECK(scanned > 600);
    CHECK(refused > 600);
}
