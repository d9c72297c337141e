#include "core/capture/safetensors_writer.h"

#include "core/capture/safetensors_file.h"
#include "core/common/atomic_file.h"
#include "core/common/checked_math.h"

#include <cstring>
#include <nlohmann/json.hpp>

namespace gapscope {

std::optional<Error> SafetensorsWriter::add(const std::string& name, ScalarType type,
                                            std::vector<std::int64_t> shape,
                                            std::vector<std::uint8_t> bytes) {
    Error e;
    e.code = ErrorCode::Malformed;
    e.where.field = name;
    if (!SafetensorsFile::dtypeFor(type)) {
        e.message = "tensor '" + name + "': " + scalarTypeName(static_cast<std::int8_t>(type)) +
                    " has no safetensors dtype";
        return e;
    }
    std::uint64_t numel = 1;
    for (auto d : shape) {
        auto n = d < 0 ? std::nullopt : checkedMul(numel, static_cast<std::uint64_t>(d));
        if (!n) {
            e.message = "tensor '" + name + "': invalid shape";
            return e;
        }
        numel = *n;
    }
    if (storageBytes(static_cast<std::int8_t>(type), numel) != bytes.size()) {
        e.message =
            "tensor '" + name + "': " + std::to_string(bytes.size()) + " bytes do not match its shape";
        return e;
    }
    m_tensors[name] = Entry{type, std::move(shape), std::move(bytes)};
    return std::nullopt;
}

std::vector<std::uint8_t> SafetensorsWriter::serialize() const {
    nlohmann::ordered_json header = nlohmann::ordered_json::object();
    if (!m_metadata.empty())
        header["__metadata__"] = m_metadata;
    std::uint64_t offset = 0;
    for (const auto& [name, t] : m_tensors) {
        header[name] = {{"dtype", *SafetensorsFile::dtypeFor(t.type)},
                        {"shape", t.shape},
                        {"data_offsets", {offset, offset + t.bytes.size()}}};
        offset += t.bytes.size();
    }
    // safetensors headers are UTF-8: bytes that are not (a metadata string taken
    // from elsewhere) are written as U+FFFD rather than throwing.
    std::string text = header.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
    // Pad the header with spaces so the data section starts 8-byte aligned, as
    // the reference implementation does.
    while ((8 + text.size()) % 8 != 0)
        text.push_back(' ');
    std::vector<std::uint8_t> out(8 + text.size() + offset);
    const std::uint64_t n = text.size();
    std::memcpy(out.data(), &n, 8);
    std::memcpy(out.data() + 8, text.data(), text.size());
    std::size_t at = 8 + text.size();
    for (const auto& [name, t] : m_tensors) {
        if (!t.bytes.empty())
            std::memcpy(out.data() + at, t.bytes.data(), t.bytes.size());
        at += t.bytes.size();
    }
    return out;
}

std::optional<Error> SafetensorsWriter::write(const std::string& path) const {
    const auto bytes = serialize();
    return writeFileAtomically(path, {bytes.data(), bytes.size()});
}

} // namespace gapscope
