// The one-pass safetensors header scanner against the JSON DOM reading: on the
// real captures it is the path taken, and on random headers, well formed or
// damaged, both readings give the same tensors, metadata and errors.

#include "committed_captures.h"
#include "core/capture/safetensors_file.h"
#include "core/capture/safetensors_header_scan.h"
#include "core/capture/safetensors_writer.h"
#include "test_support.h"

#include <catch2/catch.hpp>
#include <cstring>
#include <random>

using namespace gapscope;
using namespace gapscope::test;

namespace {

using Parse = JsonParse;

std::shared_ptr<const MappedFile> fileOf(const std::string& header, std::size_t dataBytes) {
    std::vector<std::uint8_t> bytes(8 + header.size() + dataBytes, 0);
    const std::uint64_t n = header.size();
    std::memcpy(bytes.data(), &n, 8);
    std::memcpy(bytes.data() + 8, header.data(), header.size());
    return MappedFile::fromBytes("random.safetensors", bytes.data(), bytes.size());
}

std::string headerOf(const MappedFile& file) {
    std::uint64_t n = 0;
    std::memcpy(&n, file.bytes().data, 8);
    return std::string(reinterpret_cast<const char*>(file.bytes().data) + 8, static_cast<std::size_t>(n));
}

// Both readings of one file: equal results, or the same error.
void requireSameReading(const std::shared_ptr<const MappedFile>& file) {
    const auto scan = SafetensorsFile::read(file, Parse::Scan);
    const auto dom = SafetensorsFile::read(file, Parse::Dom);
    REQUIRE(bool(scan) == bool(dom));
    if (!dom) {
        REQUIRE(scan.error().describe() == dom.error().describe());
        return;
    }
    REQUIRE(scan.value().metadata() == dom.value().metadata());
    const auto& a = scan.value().tensors();
    const auto& b = dom.value().tensors();
    REQUIRE(a.size() == b.size());
    for (auto i = a.begin(), j = b.begin(); i != a.end(); ++i, ++j) {
        REQUIRE(i->first == j->first);
        REQUIRE(i->second.dtype == j->second.dtype);
        REQUIRE(i->second.scalar_type == j->second.scalar_type);
        REQUIRE(i->second.shape == j->second.shape);
        REQUIRE(i->second.numel == j->second.numel);
        REQUIRE(i->second.begin == j->second.begin);
        REQUIRE(i->second.end == j->second.end);
    }
}

// A JSON string of random content: ASCII, escapes of every kind, \u escapes
// (surrogate pairs among them) and raw UTF-8 of one to four bytes.
std::string randomString(std::mt19937& rng) {
    static const char* pieces[] = {"a",
                                   "Z",
                                   "/",
                                   "_0",
                                   "\\\"",
                                   "\\\\",
                                   "\\/",
                                   "\\b",
                                   "\\f",
                                   "\\n",
                                   "\\r",
                                   "\\t",
                                   "\\u0041",
                                   "\\u00e9",
                                   "\\u20AC",
                                   "\\ud83d\\ude00",
                                   "\\u0000",
                                   "\xc3\xa9",
                                   "\xe2\x82\xac",
                                   "\xf0\x9f\x98\x80",
                                   "records/",
                                   " "};
    std::string s = "\"";
    const int n = std::uniform_int_distribution<int>(0, 8)(rng);
    for (int i = 0; i < n; ++i)
        s += pieces[std::uniform_int_distribution<std::size_t>(0, std::size(pieces) - 1)(rng)];
    return s + "\"";
}

std::string space(std::mt19937& rng) {
    static const char* ws[] = {"", "", "", " ", "\n", "\t ", "\r\n  "};
    return ws[std::uniform_int_distribution<std::size_t>(0, std::size(ws) - 1)(rng)];
}

// A header of a few tensors (offsets mostly right), perhaps a __metadata__, in
// a random order and spacing; and the data section size it expects.
std::string randomHeader(std::mt19937& rng, std::size_t& dataBytes) {
    static const char* dtypes[] = {"F32", "F16", "I64", "U8", "BOOL", "F64", "X9"};
    static const int widths[] = {4, 2, 8, 1, 1, 8, 4};
    std::uniform_int_distribution<int> pct(0, 99);
    std::string h = "{" + space(rng);
    std::uint64_t at = 0;
    const int tensors = std::uniform_int_distribution<int>(0, 5)(rng);
    const int metaAt = pct(rng) < 70 ? std::uniform_int_distribution<int>(0, tensors)(rng) : -1;
    bool first = true;
    for (int i = 0; i <= tensors; ++i) {
        if (i == metaAt) {
            h += std::string(first ? "" : ",") + space(rng) + "\"__metadata__\"" + space(rng) + ":{";
            const int keys = std::uniform_int_distribution<int>(0, 3)(rng);
            for (int k = 0; k < keys; ++k)
                h += std::string(k ? "," : "") + randomString(rng) + ":" + space(rng) + randomString(rng);
            h += "}";
            first = false;
        }
        if (i == tensors)
            break;
        const auto d = std::uniform_int_distribution<std::size_t>(0, std::size(dtypes) - 1)(rng);
        std::vector<std::uint64_t> shape(std::uniform_int_distribution<std::size_t>(0, 3)(rng));
        std::uint64_t numel = 1;
        for (auto& s : shape)
            numel *= (s = std::uniform_int_distribution<std::uint64_t>(0, 4)(rng));
        std::uint64_t bytes = numel * static_cast<std::uint64_t>(widths[d]);
        if (pct(rng) < 5)
            bytes += 1; // a wrong byte count
        std::string shapeText = "[";
        for (std::size_t k = 0; k < shape.size(); ++k)
            shapeText += (k ? "," : "") + space(rng) + std::to_string(shape[k]);
        shapeText += "]";
        const std::string fields[] = {
            "\"dtype\":" + space(rng) + "\"" + dtypes[d] + "\"",
            "\"shape\":" + shapeText,
            "\"data_offsets\":[" + std::to_string(at) + "," + space(rng) + std::to_string(at + bytes) + "]",
        };
        at += bytes;
        int order[] = {0, 1, 2};
        std::shuffle(std::begin(order), std::end(order), rng);
        const std::string name = pct(rng) < 60 ? "\"t" + std::to_string(i) + "\"" : randomString(rng);
        h += std::string(first ? "" : ",") + space(rng) + name + ":" + space(rng) + "{" + fields[order[0]] +
             "," + fields[order[1]] + "," + fields[order[2]] + "}";
        first = false;
    }
    h += space(rng) + "}" + space(rng);
    dataBytes = static_cast<std::size_t>(at) + (pct(rng) < 5 ? 0 : 8);
    if (pct(rng) < 5 && dataBytes > 0)
        dataBytes -= 1; // offsets past the end
    return h;
}

// One random change: a byte replaced, removed or put in.
std::string mutate(std::string s, std::mt19937& rng) {
    static const char alphabet[] =
        "{}[]\":,\\u0123456789.eE-+ \n\tabcdefnrtxDC\x01\x7f\x80\xbf\xc0\xc3\xed\xf4\xff";
    if (s.empty())
        return s;
    const auto at = std::uniform_int_distribution<std::size_t>(0, s.size() - 1)(rng);
    const char c = alphabet[std::uniform_int_distribution<std::size_t>(0, sizeof(alphabet) - 2)(rng)];
    switch (std::uniform_int_distribution<int>(0, 2)(rng)) {
    case 0: s[at] = c; break;
    case 1: s.erase(at, 1); break;
    default: s.insert(at, 1, c); break;
    }
    return s;
}

} // namespace

TEST_CASE("The header scanner is the path the real captures take", "[safetensors-scan]") {
    for (const auto& real : test::committedCaptures()) {
        INFO(real->path());
        const auto scanned = scanSafetensorsHeader(headerOf(*real));
        REQUIRE(scanned);
        const auto dom = SafetensorsFile::read(real, Parse::Dom);
        REQUIRE(dom);
        CHECK(scanned->tensors.size() == dom.value().tensors().size());
        CHECK(scanned->metadata.size() == dom.value().metadata().size());
        requireSameReading(real);
    }
}

TEST_CASE("The header scanner reads what Gapscope's own writer writes", "[safetensors-scan]") {
    SafetensorsWriter w;
    REQUIRE_FALSE(w.add("records/1/0", ScalarType::Float, {2, 3}, std::vector<std::uint8_t>(24, 1)));
    REQUIRE_FALSE(w.add("records/0/0", ScalarType::Long, {}, std::vector<std::uint8_t>(8, 2)));
    REQUIRE_FALSE(w.add("caf\xc3\xa9 \"q\"", ScalarType::Bool, {0}, {}));
    w.setMetadata("gapscope.aot_capture", R"({"format": "gapscope.aot_capture", "s": "a\"b"})");
    const auto bytes = w.serialize();
    const auto file = MappedFile::fromBytes("written.safetensors", bytes.data(), bytes.size());
    const auto scanned = scanSafetensorsHeader(headerOf(*file));
    REQUIRE(scanned);
    CHECK(scanned->tensors.size() == 3);
    requireSameReading(file);
}

TEST_CASE("The header scanner decodes strings as the JSON parser does", "[safetensors-scan]") {
    const std::string h =
        R"({"a\"b\\c\/\u00e9\ud83d\ude00\n":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
        R"("__metadata__":{"k":"\u0000x\t"}})";
    const auto scanned = scanSafetensorsHeader(h);
    REQUIRE(scanned);
    REQUIRE(scanned->tensors.size() == 1);
    CHECK(scanned->tensors[0].name == "a\"b\\c/\xc3\xa9\xf0\x9f\x98\x80\n");
    CHECK(scanned->tensors[0].shape == std::vector<std::int64_t>{2});
    REQUIRE(scanned->metadata.size() == 1);
    CHECK(scanned->metadata[0].second == std::string("\0x\t", 3));
    requireSameReading(fileOf(h, 8));
}

TEST_CASE("The header scanner leaves every other shape to the JSON parser", "[safetensors-scan]") {
    const char* others[] = {
        R"({"t":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"extra":1}})", // another key
        R"({"t":{"dtype":"F32","shape":[1.0],"data_offsets":[0,4]}})",         // not an integer
        R"({"t":{"dtype":"F32","shape":[01],"data_offsets":[0,4]}})",          // a leading zero
        R"({"t":{"dtype":"F32","shape":[-0],"data_offsets":[0,4]}})",          // a sign
        R"({"t":{"dtype":"F32","shape":[18446744073709551616],"data_offsets":[0,4]}})",
        R"({"t":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}} x)",                 // trailing text
        R"({"\ud800":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})",              // a lone surrogate
        "{\"\xc0\xaf\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}",     // overlong UTF-8
        "{\"\xed\xa0\x80\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", // a UTF-8 surrogate
        "{\"a\tb\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", // a raw tab in a string
        R"({"__metadata__":{"k":1}})",
        R"({"__metadata__":{},"__metadata__":{}})",
        R"({"t":{}})",
        R"([])",
    };
    for (const char* h : others) {
        const std::string text(h);
        INFO(text);
        CHECK_FALSE(scanSafetensorsHeader(text));
        requireSameReading(fileOf(text, 4));
    }
    // A name given twice is scanned, then refused by the checks: the JSON
    // parser keeps the last entry, and so does the reading.
    const std::string twice = R"({"t":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                              R"("t":{"dtype":"U8","shape":[4],"data_offsets":[0,4]}})";
    requireSameReading(fileOf(twice, 4));
    const auto read = SafetensorsFile::read(fileOf(twice, 4));
    REQUIRE(read);
    CHECK(read.value().find("t")->dtype == "U8");
    // The trailing NUL, which strlen cannot see: the DOM parser stops at it.
    const std::string nul = std::string(R"({"t":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})") + '\0';
    CHECK_FALSE(scanSafetensorsHeader(nul));
    requireSameReading(fileOf(nul, 4));
}

TEST_CASE("The header scanner and the JSON parser agree on random headers", "[safetensors-scan]") {
    std::mt19937 rng(20261201);
    std::size_t scannedOk = 0, rejected = 0;
    for (int i = 0; i < 6000; ++i) {
        std::size_t dataBytes = 0;
        std::string h = randomHeader(rng, dataBytes);
        const int changes = i % 3 == 0 ? 0 : std::uniform_int_distribution<int>(1, 3)(rng);
        for (int k = 0; k < changes; ++k)
            h = mutate(h, rng);
        if (h.empty() || h[0] != '{')
            continue; // refused before either reading
        INFO(h);
        const auto file = fileOf(h, dataBytes);
        const bool scanned = scanSafetensorsHeader(h).has_value();
        const auto dom = SafetensorsFile::read(file, Parse::Dom);
        if (scanned) {
            // What the scanner accepts is valid JSON of the same meaning.
            ++scannedOk;
        } else if (!dom) {
            ++rejected;
        }
        requireSameReading(file);
    }
    // The random headers exercise both sides.
    CHECK(scannedOk > 1500);
    CHECK(rejected > 1500);
}
