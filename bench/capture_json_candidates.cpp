// Issue 24 asks for one capture reader built on a library, simdjson or
// nlohmann's SAX parser, measured on the 50,000-op capture. This reads that
// capture's safetensors header and the capture document inside it:
//   current   readAotCapture as it is (records built)
//   sax       nlohmann's SAX parser: the header, then the document, every value visited
//   dom       simdjson's DOM parser and a walk over every value, both documents
//   ondemand  simdjson's On-Demand API, every value visited, both documents
//   read      the file read alone (the baseline to subtract)
// The three library candidates parse, check and visit without building records:
// what a reader on each library cannot go below. Run one candidate per process
// under callgrind to count its instructions (docs/performance.md).
//
// usage: gapscope_capture_candidates CAPTURE.safetensors CANDIDATE [REPEAT=1]
#include "core/capture/aot_capture.h"
#include "core/common/mapped_file.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <simdjson.h>
#include <string>

namespace {

// Counts every value and key; keeps the one string the header holds the document in.
struct Visitor : nlohmann::json::json_sax_t {
    std::size_t values = 0;
    std::string lastString, document;
    bool null() override { return ++values; }
    bool boolean(bool) override { return ++values; }
    bool number_integer(number_integer_t) override { return ++values; }
    bool number_unsigned(number_unsigned_t) override { return ++values; }
    bool number_float(number_float_t, const string_t&) override { return ++values; }
    bool string(string_t& s) override {
        if (s.size() > document.size() && s.size() > 1024)
            document = std::move(s);
        return ++values;
    }
    bool binary(binary_t&) override { return ++values; }
    bool start_object(std::size_t) override { return true; }
    bool end_object() override { return true; }
    bool start_array(std::size_t) override { return true; }
    bool end_array() override { return true; }
    bool key(string_t&) override { return ++values; }
    bool parse_error(std::size_t position, const std::string&, const nlohmann::json::exception& e) override {
        std::fprintf(stderr, "byte %zu: %s\n", position, e.what());
        return false;
    }
};

std::size_t sax(const char* header, std::size_t size) {
    Visitor v;
    if (!nlohmann::json::sax_parse(header, header + size, &v))
        return 0;
    Visitor doc;
    if (!nlohmann::json::sax_parse(v.document, &doc))
        return 0;
    return v.values + doc.values;
}

std::size_t walk(simdjson::dom::element e, std::string_view& longest) {
    using simdjson::dom::element_type;
    std::size_t n = 1;
    switch (e.type()) {
    case element_type::ARRAY:
        for (auto child : e.get_array())
            n += walk(child, longest);
        break;
    case element_type::OBJECT:
        for (auto field : e.get_object())
            n += 1 + walk(field.value, longest);
        break;
    case element_type::STRING: {
        std::string_view s = e.get_string();
        if (s.size() > longest.size())
            longest = s;
        break;
    }
    default: break;
    }
    return n;
}

std::size_t dom(const char* header, std::size_t size) {
    simdjson::dom::parser parser;
    simdjson::padded_string padded(header, size);
    simdjson::dom::element root;
    if (auto error = parser.parse(padded).get(root)) {
        std::fprintf(stderr, "%s\n", simdjson::error_message(error));
        return 0;
    }
    std::string_view document;
    std::size_t n = walk(root, document);
    simdjson::padded_string padDoc(document.data(), document.size());
    simdjson::dom::parser docParser;
    simdjson::dom::element docRoot;
    if (auto error = docParser.parse(padDoc).get(docRoot)) {
        std::fprintf(stderr, "%s\n", simdjson::error_message(error));
        return 0;
    }
    std::string_view unused;
    return n + walk(docRoot, unused);
}

std::size_t visit(simdjson::ondemand::value v, std::string& longest) {
    using simdjson::ondemand::json_type;
    std::size_t n = 1;
    switch (v.type()) {
    case json_type::array:
        for (auto child : v.get_array())
            n += visit(child.value(), longest);
        break;
    case json_type::object:
        for (auto field : v.get_object()) {
            std::string_view key = field.unescaped_key();
            (void)key;
            n += 1 + visit(field.value(), longest);
        }
        break;
    case json_type::string: {
        std::string_view s = v.get_string();
        if (s.size() > longest.size())
            longest = std::string(s);
        break;
    }
    case json_type::number: (void)v.get_double(); break;
    case json_type::boolean: (void)v.get_bool(); break;
    default: (void)v.is_null(); break;
    }
    return n;
}

std::size_t ondemand(const char* header, std::size_t size) {
    simdjson::ondemand::parser parser;
    simdjson::padded_string padded(header, size);
    auto doc = parser.iterate(padded);
    std::string document;
    std::size_t n = visit(doc.get_value().value(), document);
    simdjson::ondemand::parser docParser;
    simdjson::padded_string padDoc(document);
    auto d = docParser.iterate(padDoc);
    std::string unused;
    return n + visit(d.get_value().value(), unused);
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s CAPTURE CANDIDATE [REPEAT]\n", argv[0]);
        return 2;
    }
    const std::string candidate = argv[2];
    const int repeat = argc > 3 ? std::atoi(argv[3]) : 1;
    auto file = gapscope::MappedFile::open(argv[1]);
    if (!file) {
        std::fprintf(stderr, "%s\n", file.error().describe().c_str());
        return 1;
    }
    const auto bytes = file.value()->bytes();
    std::uint64_t headerSize = 0;
    std::memcpy(&headerSize, bytes.data, 8);
    const char* header = reinterpret_cast<const char*>(bytes.data) + 8;
    std::size_t result = 0;
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < repeat; ++i) {
        if (candidate == "current") {
            auto c = gapscope::readAotCapture(file.value());
            result += c ? c.value().records.size() : 0;
        } else if (candidate == "sax") {
            result += sax(header, headerSize);
        } else if (candidate == "dom") {
            result += dom(header, headerSize);
        } else if (candidate == "ondemand") {
            result += ondemand(header, headerSize);
        } else if (candidate == "read") {
            std::size_t sum = 0;
            for (std::size_t k = 0; k < headerSize; k += 64)
                sum += static_cast<unsigned char>(header[k]);
            result += sum;
        } else {
            std::fprintf(stderr, "unknown candidate %s\n", candidate.c_str());
            return 2;
        }
    }
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / repeat;
    std::printf("{\"candidate\":\"%s\",\"ms\":%.2f,\"visited\":%zu}\n", candidate.c_str(), ms,
                result / static_cast<std::size_t>(repeat));
    return result == 0 && candidate != "read" ? 1 : 0;
}
