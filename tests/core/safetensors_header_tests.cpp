// The safetensors header reader (simdjson On-Demand) against an independent
// JSON parser on real captures and on random headers, well formed or damaged,
// and on bogus headers of every kind: located errors, never a wrong reading.

#include "committed_captures.h"
#include "core/capture/safetensors_file.h"
#include "core/capture/safetensors_writer.h"
#include "test_support.h"

#include <catch2/catch.hpp>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <random>

using namespace gapscope;
using namespace gapscope::test;

namespace {

std::shared_ptr<const MappedFile> fileOf(const std::string& header, std::size_t dataBytes) {
    return safetensorsFileOf("random.safetensors", header, dataBytes);
}

std::string headerOf(const MappedFile& file) {
    std::uint64_t n = 0;
    std::memcpy(&n, file.bytes().data, 8);
    return std::string(reinterpret_cast<const char*>(file.bytes().data) + 8, static_cast<std::size_t>(n));
}

// The header as an independent JSON parser (nlohmann's, in this test only)
// reads it: the oracle for what simdjson's reading must give.
struct OracleTensor {
    std::string dtype;
    std::vector<std::int64_t> shape;
    std::uint64_t begin = 0, end = 0;
};
struct Oracle {
    bool json = false; // the text is JSON
    std::map<std::string, std::string> metadata;
    std::map<std::string, OracleTensor> tensors;
};

Oracle oracleOf(const std::string& header) {
    Oracle o;
    const auto j = nlohmann::json::parse(header, nullptr, false);
    o.json = !j.is_discarded();
    if (!o.json || !j.is_object())
        return o;
    for (auto it = j.begin(); it != j.end(); ++it) {
        if (it.key() == "__metadata__") {
            if (it.value().is_object())
                for (auto m = it.value().begin(); m != it.value().end(); ++m)
                    if (m.value().is_string())
                        o.metadata[m.key()] = m.value().get<std::string>();
            continue;
        }
        const auto& t = it.value();
        OracleTensor ot;
        if (!t.is_object() || !t.contains("dtype") || !t["dtype"].is_string() || !t.contains("shape") ||
            !t.contains("data_offsets") || t["data_offsets"].size() != 2 ||
            !t["data_offsets"][0].is_number_unsigned() || !t["data_offsets"][1].is_number_unsigned())
            continue;
        ot.dtype = t["dtype"].get<std::string>();
        for (const auto& d : t["shape"])
            ot.shape.push_back(d.is_number_integer() ? d.get<std::int64_t>() : -1);
        ot.begin = t["data_offsets"][0].get<std::uint64_t>();
        ot.end = t["data_offsets"][1].get<std::uint64_t>();
        o.tensors[it.key()] = ot;
    }
    return o;
}

// What the reader makes of a file against the oracle: text that is not JSON
// is refused with the byte it stands at; what is read equals the oracle's
// reading, tensor for tensor and key for key.
void requireOracleReading(const std::shared_ptr<const MappedFile>& file, const std::string& header) {
    const auto read = SafetensorsFile::read(file);
    const Oracle oracle = oracleOf(header);
    if (!oracle.json) {
        REQUIRE_FALSE(read);
        REQUIRE(read.error().where.byteOffset >= 8);
        return;
    }
    if (!read) {
        REQUIRE_FALSE(read.error().message.empty());
        return;
    }
    REQUIRE(read.value().metadata() == oracle.metadata);
    const auto& a = read.value().tensors();
    REQUIRE(a.size() == oracle.tensors.size());
    for (auto i = a.begin(); i != a.end(); ++i) {
        const auto& o = oracle.tensors.at(i->first);
        REQUIRE(i->second.dtype == o.dtype);
        REQUIRE(i->second.shape == o.shape);
        REQUIRE(i->second.begin == o.begin);
        REQUIRE(i->second.end == o.end);
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

TEST_CASE("The header reader reads every real capture as an independent parser does",
          "[safetensors-header]") {
    for (const auto& real : test::committedCaptures()) {
        INFO(real->path());
        const auto read = SafetensorsFile::read(real);
        REQUIRE(read);
        CHECK(read.value().tensors().size() == oracleOf(headerOf(*real)).tensors.size());
        requireOracleReading(real, headerOf(*real));
    }
}

TEST_CASE("The header reader reads what Gapscope's own writer writes", "[safetensors-header]") {
    SafetensorsWriter w;
    REQUIRE_FALSE(w.add("records/1/0", ScalarType::Float, {2, 3}, std::vector<std::uint8_t>(24, 1)));
    REQUIRE_FALSE(w.add("records/0/0", ScalarType::Long, {}, std::vector<std::uint8_t>(8, 2)));
    REQUIRE_FALSE(w.add("caf\xc3\xa9 \"q\"", ScalarType::Bool, {0}, {}));
    w.setMetadata("gapscope.aot_capture", R"({"format": "gapscope.aot_capture", "s": "a\"b"})");
    const auto bytes = w.serialize();
    const auto file = MappedFile::fromBytes("written.safetensors", bytes.data(), bytes.size());
    const auto read = SafetensorsFile::read(file);
    REQUIRE(read);
    CHECK(read.value().tensors().size() == 3);
    CHECK(read.value().find("caf\xc3\xa9 \"q\""));
    requireOracleReading(file, headerOf(*file));
}

TEST_CASE("The header reader decodes strings as a JSON parser does", "[safetensors-header]") {
    const std::string h =
        R"({"a\"b\\c\/\u00e9\ud83d\ude00\n":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
        R"("__metadata__":{"k":"\u0000x\t"}})";
    const auto read = SafetensorsFile::read(fileOf(h, 8));
    REQUIRE(read);
    REQUIRE(read.value().tensors().size() == 1);
    CHECK(read.value().tensors().begin()->first == "a\"b\\c/\xc3\xa9\xf0\x9f\x98\x80\n");
    CHECK(read.value().tensors().begin()->second.shape == std::vector<std::int64_t>{2});
    CHECK(read.value().metadata().at("k") == std::string("\0x\t", 3));
    requireOracleReading(fileOf(h, 8), h);
}

// Every way a header can be bogus, with what the error says and the byte of
// the file it names (the header starts at byte 8).
TEST_CASE("Bogus safetensors headers are refused with a located error", "[safetensors-header][bogus]") {
    struct Case {
        std::string header;
        const char* says;
        std::int64_t byteAtLeast; // the error's byte is at or after this one
    };
    const std::string t = R"("t":{"dtype":"F32","shape":[1],"data_offsets":[0,4]})";
    const Case cases[] = {
        {R"({"t":{"dtype":"F32","shape":[1.0],"data_offsets":[0,4]}})", "shape entries must be non-negative",
         8},
        {R"({"t":{"dtype":"F32","shape":[01],"data_offsets":[0,4]}})", "not valid JSON", 8},
        {R"({"t":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", "shape entries must be non-negative",
         8},
        {R"({"t":{"dtype":"F32","shape":[18446744073709551616],"data_offsets":[0,4]}})", "", 8},
        {"{" + t + "} x", "not valid JSON", 8},
        {"{\"\xc0\xaf\":{}}", "UTF-8", 10},
        {"{\"\xed\xa0\x80\":{}}", "UTF-8", 10},
        {"{\"a\x01b\":{}}", "not valid JSON", 11},
        {R"({"__metadata__":{"k":1}})", "__metadata__['k'] is not a string", 8},
        {R"({"__metadata__":{"k":"a","k":"b"}})", "__metadata__['k'] appears twice", 8},
        {R"({"__metadata__":[]})", "__metadata__ must be an object of strings", 8},
        {"{" + t + "," + t + "}", "tensor 't' appears twice", 8},
        // The first fault in the file's order: the name given twice, not what
        // is wrong after it (names are checked once read).
        {"{" + t + "," + t + R"(,"u":{}})", "tensor 't' appears twice", 8},
        {"{" + t + "," + t + R"(,"u":)", "not valid JSON", 8}, // a broken whole is found first
        {"{" + t + "," + t + R"(,"__metadata__":{"k":1}})", "tensor 't' appears twice", 8},
        {R"({"u":{},)" + t + "," + t + "}", "tensor 'u': needs dtype", 8},
        {R"({"t":{"dtype":"F32","dtype":"F32","shape":[1],"data_offsets":[0,4]}})", "'dtype' appears twice",
         8},
        {R"({"t":{}})", "needs dtype, shape and two data_offsets", 8},
        {R"({"t":{"dtype":"F32","shape":[1],"data_offsets":[0]}})", "two data_offsets", 8},
        {R"({"t":{"dtype":"F32","shape":[1],"data_offsets":[0,-4]}})", "data_offsets must be non-negative",
         8},
        {R"({"t":{"dtype":"F32","shape":[1],"data_offsets":[0,8]}})", "do not lie inside", 8},
        {R"({"t":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", "need 8", 8},
        {R"({"t":{"dtype":"X9","shape":[1],"data_offsets":[0,4]}})", "unsupported dtype 'X9'", 8},
        {R"({"t":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":tru}})", "not valid JSON", 8},
        {R"({"t":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"u":)", "not valid JSON", 8},
        {R"({"t":"unclosed})", "not valid JSON", -1},
        {std::string(R"({"t":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})") + '\0', "not valid JSON",
         8},
        {R"([])", "not a safetensors file", 8},
    };
    for (const auto& c : cases) {
        INFO(c.header);
        const auto read = SafetensorsFile::read(fileOf(c.header, 4));
        REQUIRE_FALSE(read);
        CHECK_THAT(read.error().message, Catch::Contains(c.says));
        CHECK(read.error().where.file == "random.safetensors");
        CHECK(read.error().where.byteOffset >= c.byteAtLeast);
        CHECK(read.error().where.byteOffset <= static_cast<std::int64_t>(8 + c.header.size()));
    }
    // A name given twice is located at its second entry, as when it was found
    // on the way.
    {
        const std::string twice = "{" + t + "," + t + "}";
        const auto read = SafetensorsFile::read(fileOf(twice, 4));
        REQUIRE_FALSE(read);
        CHECK(read.error().where.field == "t");
        CHECK(read.error().where.byteOffset >= static_cast<std::int64_t>(8 + 1 + t.size()));
        CHECK(read.error().where.byteOffset <= static_cast<std::int64_t>(8 + 1 + t.size() + 1 + 4));
    }
    // Unknown keys in an entry are read and ignored, as other readers do.
    const auto extra = SafetensorsFile::read(
        fileOf(R"({"t":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":[{}]}})", 4));
    REQUIRE(extra);
    CHECK(extra.value().find("t"));
}

TEST_CASE("Bogus safetensors headers nested past the bound are refused, not recursed",
          "[safetensors-header][bogus]") {
    const std::string deep = std::string(100000, '[') + "1";
    const std::string h = R"({"t":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":)" + deep;
    const auto read = SafetensorsFile::read(fileOf(h + std::string(100000, ']') + "}}", 4));
    REQUIRE_FALSE(read);
    CHECK(read.error().where.byteOffset >= 8);
}

TEST_CASE("The header reader and an independent JSON parser agree on random headers",
          "[safetensors-header]") {
    std::mt19937 rng(20261201);
    std::size_t read = 0, notJson = 0;
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
        if (SafetensorsFile::read(file))
            ++read;
        else if (!oracleOf(h).json)
            ++notJson;
        requireOracleReading(file, h);
    }
    // The random headers exercise both sides.
    CHECK(read > 1200);
    CHECK(notJson > 1500);
}

TEST_CASE("safetensors headers: nesting and numbers are located errors", "[safetensors-header][bogus]") {
    const auto deep =
        SafetensorsFile::read(fileOf(R"({"a":)" + std::string(5000, '[') + std::string(5000, ']') + "}", 4));
    REQUIRE_FALSE(deep); // refused where it stands, not walked
    CHECK(deep.error().where.field == "a");
    CHECK(deep.error().where.byteOffset == 8 + 5);
    CHECK_THAT(deep.error().message, Catch::Contains("tensor 'a': needs dtype, shape and two data_offsets"));
    const auto deepExtra =
        SafetensorsFile::read(fileOf(R"({"t":{"dtype":"F32","shape":[1],"data_offsets":[0,0],"x":)" +
                                         std::string(5000, '[') + std::string(5000, ']') + "}}",
                                     4));
    REQUIRE_FALSE(deepExtra); // walked to the bound
    CHECK(deepExtra.error().where.field == "header");
    CHECK(deepExtra.error().where.byteOffset > 8 + 512);
    CHECK_THAT(deepExtra.error().message, Catch::Contains("too deep"));
    const auto huge =
        SafetensorsFile::read(fileOf(R"({"t":{"dtype":"F32","shape":[1e400],"data_offsets":[0,4]}})", 4));
    REQUIRE_FALSE(huge);
    CHECK(huge.error().where.file == "random.safetensors");
    CHECK(huge.error().where.field == "t");
    CHECK_THAT(huge.error().message, Catch::Contains("shape entries must be non-negative integers"));
}
