#include "core/capture/safetensors_file.h"

#include "core/common/checked_math.h"
#include "core/common/on_demand_json.h"

#include <cstring>

namespace gapscope {

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

std::optional<Error> readMetadata(simdjson::ondemand::value value, const std::string& file,
                                  std::map<std::string, std::string>& metadata, std::int64_t at) {
    if (value.type().value() != simdjson::ondemand::json_type::object)
        return stError(file, "__metadata__ must be an object of strings", ErrorCode::Malformed,
                       "__metadata__", at);
    for (auto m : value.get_object()) {
        std::string key(m.unescaped_key().value());
        auto v = m.value().value();
        if (v.type().value() != simdjson::ondemand::json_type::string)
            return stError(file, "__metadata__['" + key + "'] is not a string", ErrorCode::Malformed,
                           "__metadata__." + key, at);
        // With room for simdjson's padding: a capture's document (megabytes) is
        // taken by readAotCapture and parsed in place, not copied again.
        const std::string_view text = v.get_string().value();
        std::string kept;
        kept.reserve(text.size() + simdjson::SIMDJSON_PADDING);
        kept.assign(text);
        if (!metadata.emplace(key, std::move(kept)).second)
            return stError(file, "__metadata__['" + key + "'] appears twice", ErrorCode::Malformed,
                           "__metadata__." + key, at);
    }
    return std::nullopt;
}

// One tensor entry: "dtype" (a string), "shape" (a list of integers) and
// "data_offsets" (two integers), each once, anything else read and ignored.
std::optional<Error> readEntry(simdjson::ondemand::value value, const std::string& file,
                               const std::string& name, std::uint64_t dataSize, SafetensorsTensor& st,
                               std::int64_t at) {
    using simdjson::ondemand::json_type;
    auto bad = [&](const std::string& what) {
        return stError(file, "tensor '" + name + "': " + what, ErrorCode::Malformed, name, at);
    };
    const char* needs = "needs dtype, shape and two data_offsets";
    if (value.type().value() != json_type::object)
        return bad(needs);
    bool dtype = false, shape = false;
    // Two offsets, counted past two: a small array, not a vector per tensor.
    std::optional<std::uint64_t> offsets[2];
    std::size_t offsetCount = 0;
    bool offsetsSeen = false;
    for (auto field : value.get_object()) {
        const std::string_view key = field.unescaped_key().value();
        auto v = field.value().value();
        bool& seen = key == "dtype" ? dtype : key == "shape" ? shape : offsetsSeen;
        if (key != "dtype" && key != "shape" && key != "data_offsets") {
            validateSkipped(v);
            continue;
        }
        if (seen)
            return bad("'" + std::string(key) + "' appears twice");
        seen = true;
        if (key == "dtype") {
            if (v.type().value() != json_type::string)
                return bad(needs);
            st.dtype = std::string(v.get_string().value());
        } else if (key == "shape") {
            if (v.type().value() != json_type::array)
                return bad(needs);
            // Room for the usual ranks at once: growing 1, 2, 4 was three
            // allocations per tensor of rank 3 (50,000 tensors per opening).
            st.shape.reserve(4);
            for (auto d : v.get_array()) {
                const auto n = onDemandInt64(d.value());
                if (!n || *n < 0)
                    return bad("shape entries must be non-negative integers");
                st.shape.push_back(*n);
            }
        } else {
            if (v.type().value() != json_type::array)
                return bad(needs);
            for (auto o : v.get_array()) {
                const auto offset = onDemandUint64(o.value());
                if (offsetCount < 2)
                    offsets[offsetCount] = offset;
                ++offsetCount;
            }
        }
    }
    if (!dtype || !shape || offsetCount != 2)
        return bad(needs);
    const auto type = SafetensorsFile::scalarTypeFor(st.dtype);
    if (!type)
        return bad("unsupported dtype '" + st.dtype + "'");
    st.scalar_type = *type;
    for (const auto d : st.shape) {
        const auto n = checkedMul(st.numel, static_cast<std::uint64_t>(d));
        if (!n)
            return bad("element count overflows 64 bits");
        st.numel = *n;
    }
    if (!offsets[0] || !offsets[1])
        return bad("data_offsets must be non-negative integers");
    st.begin = *offsets[0];
    st.end = *offsets[1];
    if (st.begin > st.end || st.end > dataSize)
        return bad("data_offsets [" + std::to_string(st.begin) + ", " + std::to_string(st.end) +
                   ") do not lie inside the " + std::to_string(dataSize) + "-byte data section");
    const auto expected = storageBytes(static_cast<std::int8_t>(st.scalar_type), st.numel);
    if (!expected || *expected != st.end - st.begin)
        return bad("holds " + std::to_string(st.end - st.begin) + " bytes but its shape and dtype need " +
                   (expected ? std::to_string(*expected) : std::string("more than 2^64")));
    return std::nullopt;
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

const SafetensorsTensor* SafetensorsFile::find(std::string_view name) const {
    const std::size_t at = m_byName.find(std::hash<std::string_view>()(name), [&](const auto& slot) {
        return std::string_view(m_tensors[slot.value].first) == name;
    });
    return at == m_byName.kNone ? nullptr : &m_tensors[at].second;
}

std::optional<std::size_t> SafetensorsFile::indexNames() {
    m_byName = FlatIndex<NoKey>(m_tensors.size());
    for (std::size_t i = 0; i < m_tensors.size(); ++i) {
        const std::string_view name(m_tensors[i].first);
        std::size_t& slot = m_byName.at(NoKey{}, std::hash<std::string_view>()(name), [&](const auto& s) {
            return std::string_view(m_tensors[s.value].first) == name;
        });
        if (slot != m_byName.kNone)
            return i;
        slot = i;
    }
    return std::nullopt;
}

std::uint64_t SafetensorsFile::offsetInFile(const SafetensorsTensor& tensor) const {
    return 8 + m_headerSize + tensor.begin; // after the header's length and the header
}

ByteSpan SafetensorsFile::bytes(const SafetensorsTensor& tensor) const {
    return m_file->bytes().subspan(static_cast<std::size_t>(offsetInFile(tensor)),
                                   static_cast<std::size_t>(tensor.end - tensor.begin));
}

Result<SafetensorsFile> SafetensorsFile::load(const std::string& path) {
    auto file = MappedFile::open(path);
    if (!file)
        return file.error();
    file.value()->protectFromOutputs();
    return read(file.value());
}

Result<SafetensorsFile> SafetensorsFile::read(std::shared_ptr<const MappedFile> file,
                                              const MetadataRead& metadataRead) {
    const std::string path = file->path();
    try {
        return readUnguarded(std::move(file), metadataRead);
    } catch (const std::exception& ex) { // a header field of an unexpected JSON type, …
        return stError(path, std::string("safetensors header cannot be read: ") + ex.what(),
                       ErrorCode::Malformed, "header", 8);
    }
}

Result<SafetensorsFile> SafetensorsFile::readUnguarded(std::shared_ptr<const MappedFile> file,
                                                       const MetadataRead& metadataRead) {
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
    SafetensorsFile out;
    out.m_file = std::move(file);
    out.m_headerSize = headerSize;
    const std::uint64_t dataSize = all.size - 8 - headerSize;
    // Each tensor's byte, to name the second of a name given twice.
    std::vector<std::int64_t> ats;
    OnDemandJson json(headerText,
                      static_cast<std::size_t>(all.size - 8)); // in place, but for a tiny data section
    // Where a fault stands, as a byte of the file.
    auto byteAt = [&json](simdjson::error_code thrown = simdjson::SUCCESS) -> std::int64_t {
        const auto at = json.offset(thrown);
        return at ? static_cast<std::int64_t>(8 + *at) : 8;
    };
    std::optional<Error> fault; // the first met on the way, if any
    try {
        simdjson::ondemand::object root;
        if (const auto error = json.document().get_object().get(root)) {
            if (error != simdjson::INCORRECT_TYPE)
                throw simdjson::simdjson_error(error);
            return stError(path, "safetensors header is not a JSON object", ErrorCode::Malformed, "header",
                           8);
        }
        for (auto field : root) {
            std::string name(field.unescaped_key().value());
            const std::int64_t at = byteAt();
            if (name == "__metadata__") {
                if ((fault = readMetadata(field.value(), path, out.m_metadata, at)))
                    break;
                if (metadataRead)
                    metadataRead(out.m_metadata);
                continue;
            }
            SafetensorsTensor st;
            if ((fault = readEntry(field.value(), path, name, dataSize, st, at)))
                break;
            out.m_tensors.emplace_back(std::move(name), std::move(st));
            ats.push_back(at);
        }
        if (!fault)
            json.requireEnd();
    } catch (const simdjson::simdjson_error& e) {
        fault = stError(path, "safetensors header is " + onDemandMessage(e), ErrorCode::Malformed, "header",
                        byteAt(e.error()));
    }
    // The names are checked once all are read (the index is then sized at once).
    // Every entry read stands before any fault met on the way, so a name given
    // twice is told first: the first fault in the file's order.
    if (const auto i = out.indexNames()) {
        const std::string& name = out.m_tensors[*i].first;
        return stError(path, "tensor '" + name + "' appears twice in the header", ErrorCode::Malformed, name,
                       ats[*i]);
    }
    if (fault)
        return std::move(*fault);
    return out;
}

} // namespace gapscope
