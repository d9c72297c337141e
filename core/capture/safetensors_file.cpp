#include "core/capture/safetensors_file.h"

#include "core/capture/safetensors_header_scan.h"
#include "core/common/checked_math.h"
#include "core/common/json_depth.h"
#include "core/common/json_int.h"

#include <cstring>
#include <nlohmann/json.hpp>

namespace gapscope {

using json = nlohmann::json;

namespace {

struct DtypeName {
    const char* name;
    ScalarType type;
};
constexpr DtypeName kDtypes[] = {
    {"F64", ScalarType::Double},
    {"F32", ScalarType::Float},
    {"F16", ScalarType::Half},
    {"BF16", ScalarType::BFloat16},
    {"I64", ScalarType::Long},
    {"I32", ScalarType::Int},
    {"I16", ScalarType::Short},
    {"I8", ScalarType::Char},
    {"U8", ScalarType::Byte},
    {"U16", ScalarType::UInt16},
    {"U32", ScalarType::UInt32},
    {"U64", ScalarType::UInt64},
    {"BOOL", ScalarType::Bool},
    {"F8_E5M2", ScalarType::Float8E5M2},
    {"F8_E4M3", ScalarType::Float8E4M3FN},
};

Error stError(const std::string& file, std::string message, ErrorCode code = ErrorCode::Malformed,
              std::string field = {}, std::int64_t byte = -1) {
    return makeError(code, std::move(message), file, std::move(field), byte);
}

} // namespace

std::optional<ScalarType> SafetensorsFile::scalarTypeFor(const std::string& dtype) {
    for (const auto& d : kDtypes)
        if (dtype == d.name)
            return d.type;
    return std::nullopt;
}

std::optional<std::string> SafetensorsFile::dtypeFor(ScalarType type) {
    for (const auto& d : kDtypes)
        if (type == d.type)
            return std::string(d.name);
    return std::nullopt;
}

const SafetensorsTensor* SafetensorsFile::find(const std::string& name) const {
    auto it = m_tensors.find(name);
    return it == m_tensors.end() ? nullptr : &it->second;
}

ByteSpan SafetensorsFile::bytes(const SafetensorsTensor& tensor) const {
    return m_file->bytes().subspan(static_cast<std::size_t>(8 + m_headerSize + tensor.begin),
                                   static_cast<std::size_t>(tensor.end - tensor.begin));
}

Result<SafetensorsFile> SafetensorsFile::load(const std::string& path) {
    auto file = MappedFile::open(path);
    if (!file)
        return file.error();
    file.value()->protectFromOutputs();
    return read(file.value());
}

Result<SafetensorsFile> SafetensorsFile::read(std::shared_ptr<const MappedFile> file, JsonParse parse) {
    const std::string path = file->path();
    try {
        return readUnguarded(std::move(file), parse);
    } catch (const std::exception& ex) { // a header field of an unexpected JSON type, …
        return stError(path, std::string("safetensors header cannot be read: ") + ex.what(),
                       ErrorCode::Malformed, "header", 8);
    }
}

std::optional<SafetensorsFile> SafetensorsFile::fromScan(ScannedHeader header,
                                                         const std::shared_ptr<const MappedFile>& file,
                                                         std::uint64_t headerSize) {
    SafetensorsFile out;
    out.m_file = file;
    out.m_headerSize = headerSize;
    const std::uint64_t dataSize = file->bytes().size - 8 - headerSize;
    for (auto& [key, value] : header.metadata)
        if (!out.m_metadata.emplace(std::move(key), std::move(value)).second)
            return std::nullopt; // a duplicate key: the JSON parser keeps the last
    for (auto& t : header.tensors) {
        SafetensorsTensor st;
        const auto type = scalarTypeFor(t.dtype);
        if (!type)
            return std::nullopt;
        st.scalar_type = *type;
        st.dtype = std::move(t.dtype);
        for (const auto d : t.shape) {
            const auto n = checkedMul(st.numel, static_cast<std::uint64_t>(d));
            if (!n)
                return std::nullopt;
            st.numel = *n;
        }
        st.shape = std::move(t.shape);
        st.begin = t.begin;
        st.end = t.end;
        const auto expected = storageBytes(static_cast<std::int8_t>(st.scalar_type), st.numel);
        if (st.begin > st.end || st.end > dataSize || !expected || *expected != st.end - st.begin)
            return std::nullopt;
        // Gapscope's writer puts names in order: then the hint is the place and
        // each insertion constant time; in any other order it costs a search.
        const auto before = out.m_tensors.size();
        out.m_tensors.emplace_hint(out.m_tensors.end(), std::move(t.name), std::move(st));
        if (out.m_tensors.size() == before)
            return std::nullopt; // a duplicate name
    }
    return out;
}

Result<SafetensorsFile> SafetensorsFile::readUnguarded(std::shared_ptr<const MappedFile> file,
                                                       JsonParse parse) {
    const std::string& path = file->path();
    const ByteSpan all = file->bytes();
    if (all.size == 0)
        return stError(path, "file is empty; a safetensors file starts with an 8-byte header length",
                       ErrorCode::Empty);
    if (all.size < 8)
        return stError(
            path, "file is " + std::to_string(all.size) + " bytes, too short for the 8-byte header length",
            ErrorCode::Truncated);
    std::uint64_t headerSize = 0;
    std::memcpy(&headerSize, all.data, 8);
    if (headerSize > kMaxHeaderBytes)
        return stError(path,
                       "header length " + std::to_string(headerSize) +
                           " exceeds safetensors' 100 MiB limit; not a "
                           "safetensors file",
                       ErrorCode::BadMagic, "header length", 0);
    if (8 + headerSize > all.size)
        return stError(path,
                       "truncated: the header length says " + std::to_string(headerSize) +
                           " bytes but only " + std::to_string(all.size - 8) + " follow",
                       ErrorCode::Truncated, "header length", 0);
    if (headerSize == 0 || all.data[8] != '{')
        return stError(path, "not a safetensors file: the header is not a JSON object", ErrorCode::BadMagic,
                       "header", 8);

    const std::string_view headerText(reinterpret_cast<const char*>(all.data) + 8,
                                      static_cast<std::size_t>(headerSize));
    // The usual header in one pass without a DOM (at 50,000 tensors the DOM
    // took a quarter of opening a session); anything else, a header with a
    // fault included, is read below, which says what is wrong.
    if (auto scanned = parse == JsonParse::Scan ? scanSafetensorsHeader(headerText) : std::nullopt)
        if (auto fast = fromScan(std::move(*scanned), file, headerSize))
            return std::move(*fast);
    if (const auto at = jsonTooDeep(headerText))
        return stError(path,
                       "safetensors header nests deeper than " + std::to_string(kMaxJsonDepth) + " levels",
                       ErrorCode::Malformed, "header", static_cast<std::int64_t>(8 + *at));
    json header;
    try {
        header = json::parse(headerText.begin(), headerText.end());
    } catch (const json::parse_error& e) {
        return stError(path, std::string("safetensors header is not valid JSON: ") + e.what(),
                       ErrorCode::Malformed, "header", static_cast<std::int64_t>(8 + e.byte));
    } catch (const json::exception& e) { // a number out of range
        return stError(path, std::string("safetensors header cannot be read: ") + e.what(),
                       ErrorCode::Malformed, "header", 8);
    }
    if (!header.is_object())
        return stError(path, "safetensors header is not a JSON object", ErrorCode::Malformed, "header", 8);

    SafetensorsFile out;
    out.m_file = std::move(file);
    out.m_headerSize = headerSize;
    const std::uint64_t dataSize = all.size - 8 - headerSize;

    for (auto it = header.begin(); it != header.end(); ++it) {
        const std::string& name = it.key();
        if (name == "__metadata__") {
            if (!it.value().is_object())
                return stError(path, "__metadata__ must be an object of strings", ErrorCode::Malformed,
                               "__metadata__");
            for (auto m = it.value().begin(); m != it.value().end(); ++m) {
                if (!m.value().is_string())
                    return stError(path, "__metadata__['" + m.key() + "'] is not a string",
                                   ErrorCode::Malformed, "__metadata__." + m.key());
                out.m_metadata[m.key()] = m.value().get<std::string>();
            }
            continue;
        }
        const json& t = it.value();
        auto bad = [&](const std::string& what) {
            return stError(path, "tensor '" + name + "': " + what, ErrorCode::Malformed, name);
        };
        if (!t.is_object() || !t.contains("dtype") || !t["dtype"].is_string() || !t.contains("shape") ||
            !t["shape"].is_array() || !t.contains("data_offsets") || !t["data_offsets"].is_array() ||
            t["data_offsets"].size() != 2)
            return bad("needs dtype, shape and two data_offsets");
        SafetensorsTensor st;
        st.dtype = t["dtype"].get<std::string>();
        auto type = scalarTypeFor(st.dtype);
        if (!type)
            return bad("unsupported dtype '" + st.dtype + "'");
        st.scalar_type = *type;
        for (const auto& d : t["shape"]) {
            if (!jsonInt64(d) || *jsonInt64(d) < 0)
                return bad("shape entries must be non-negative integers");
            st.shape.push_back(*jsonInt64(d));
            auto n = checkedMul(st.numel, static_cast<std::uint64_t>(st.shape.back()));
            if (!n)
                return bad("element count overflows 64 bits");
            st.numel = *n;
        }
        const auto& offs = t["data_offsets"];
        if (!offs[0].is_number_unsigned() || !offs[1].is_number_unsigned())
            return bad("data_offsets must be non-negative integers");
        st.begin = offs[0].get<std::uint64_t>();
        st.end = offs[1].get<std::uint64_t>();
        if (st.begin > st.end || st.end > dataSize)
            return bad("data_offsets [" + std::to_string(st.begin) + ", " + std::to_string(st.end) +
                       ") do not lie inside the " + std::to_string(dataSize) + "-byte data section");
        const auto expected = storageBytes(static_cast<std::int8_t>(st.scalar_type), st.numel);
        if (!expected || *expected != st.end - st.begin)
            return bad("holds " + std::to_string(st.end - st.begin) + " bytes but its shape and dtype need " +
                       (expected ? std::to_string(*expected) : std::string("more than 2^64")));
        out.m_tensors.emplace(name, std::move(st));
    }
    return out;
}

} // namespace gapscope
