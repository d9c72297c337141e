#include "fuzz/fuzz_input.h"

#include "core/capture/aot_capture.h"
#include "core/common/mapped_file.h"
#include "core/etdump/etdump_reader.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <zlib.h>

namespace gapscope::fuzz {

namespace {

constexpr char kSeparator[] = "\n--8<--\n";

void put16(std::string& s, unsigned v) {
    s.push_back(static_cast<char>(v & 0xff));
    s.push_back(static_cast<char>((v >> 8) & 0xff));
}
void put32(std::string& s, unsigned long v) {
    put16(s, static_cast<unsigned>(v & 0xffff));
    put16(s, static_cast<unsigned>((v >> 16) & 0xffff));
}

} // namespace

std::vector<std::string> splitParts(const std::uint8_t* data, std::size_t size, std::size_t parts) {
    std::vector<std::string> out;
    const std::string all(reinterpret_cast<const char*>(data), size);
    std::size_t from = 0;
    while (out.size() + 1 < parts) {
        const auto at = all.find(kSeparator, from);
        if (at == std::string::npos)
            break;
        out.push_back(all.substr(from, at - from));
        from = at + sizeof(kSeparator) - 1;
    }
    out.push_back(all.substr(std::min(from, all.size())));
    out.resize(parts);
    return out;
}

std::string joinParts(std::vector<std::string> parts) {
    while (parts.size() > 1 && parts.back().empty())
        parts.pop_back();
    std::string out;
    for (std::size_t i = 0; i < parts.size(); ++i)
        out += (i ? kSeparator : "") + parts[i];
    return out;
}

std::string storedZip(const std::vector<std::pair<std::string, std::string>>& entries) {
    std::string out, central;
    for (const auto& [name, data] : entries) {
        const unsigned long crc =
            crc32(0L, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size()));
        const auto offset = out.size();
        out += "PK\x03\x04";
        put16(out, 20); // version needed
        put16(out, 0);  // flags
        put16(out, 0);  // stored
        put32(out, 0);  // time, date
        put32(out, crc);
        put32(out, data.size());
        put32(out, data.size());
        put16(out, static_cast<unsigned>(name.size()));
        put16(out, 0);
        out += name;
        out += data;
        central += "PK\x01\x02";
        put16(central, 20);
        put16(central, 20);
        put16(central, 0);
        put16(central, 0);
        put32(central, 0);
        put32(central, crc);
        put32(central, data.size());
        put32(central, data.size());
        put16(central, static_cast<unsigned>(name.size()));
        put32(central, 0); // extra, comment lengths
        put32(central, 0); // disk, internal attributes
        put32(central, 0); // external attributes
        put32(central, offset);
        central += name;
    }
    const auto centralAt = out.size();
    out += central;
    out += "PK\x05\x06";
    put32(out, 0);
    put16(out, static_cast<unsigned>(entries.size()));
    put16(out, static_cast<unsigned>(entries.size()));
    put32(out, central.size());
    put32(out, centralAt);
    put16(out, 0);
    return out;
}

CaptureTensors tensorsOf(const std::string& capturePath) {
    std::ifstream in(capturePath, std::ios::binary);
    const std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::uint64_t size = 0;
    if (raw.size() < 8)
        std::abort();
    std::memcpy(&size, raw.data(), 8);
    if (size > raw.size() - 8)
        std::abort();
    auto header = nlohmann::ordered_json::parse(raw.substr(8, size));
    header.erase("__metadata__");
    const std::string members = header.dump();
    return CaptureTensors{members.substr(1, members.size() - 2), raw.substr(8 + size)};
}

std::string captureWithDocument(const std::string& document, const CaptureTensors& tensors) {
    return safetensorsWithDocument(AotCapture::kMetadataKey, document, tensors);
}

std::string safetensorsWithDocument(const std::string& key, const std::string& document,
                                    const CaptureTensors& tensors) {
    // The header is written by hand: the document's bytes go into the JSON
    // string as they are (only quotes, backslashes and control characters
    // escaped), invalid UTF-8 included, which is what the reader must face.
    std::string escaped;
    for (const char c : document) {
        if (c == '"' || c == '\\') {
            escaped += '\\';
            escaped += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char hex[8];
            std::snprintf(hex, sizeof hex, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
            escaped += hex;
        } else {
            escaped += c;
        }
    }
    std::string header =
        R"({"__metadata__":{")" + key + R"(":")" + escaped + R"("},)" + tensors.entries + "}";
    while ((8 + header.size()) % 8 != 0)
        header.push_back(' ');
    std::string out(8, '\0');
    const std::uint64_t n = header.size();
    std::memcpy(out.data(), &n, 8);
    out += header;
    out += tensors.data;
    return out;
}

Result<EtDump> parseEtdumpParts(const std::uint8_t* data, std::size_t size) {
    const auto parts = splitParts(data, size, 2);
    EtdumpReadOptions options;
    options.name = "fuzz.etdp";
    if (!parts[1].empty())
        options.debug_buffer = MappedFile::fromBytes(
            "fuzz.debug.bin", reinterpret_cast<const std::uint8_t*>(parts[1].data()), parts[1].size());
    const auto etdump = MappedFile::fromBytes(
        "fuzz.etdp", reinterpret_cast<const std::uint8_t*>(parts[0].data()), parts[0].size());
    return parseEtdump(etdump->bytes(), options);
}

} // namespace gapscope::fuzz
