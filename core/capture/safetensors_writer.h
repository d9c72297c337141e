#pragma once

#include "core/common/result.h"
#include "core/etdump/scalar_type.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gapscope {

// Builds a safetensors file: tensors (dtype, shape, raw little-endian bytes) and
// string metadata. Used to write AOT captures from C++ (tests, benchmarks).
class SafetensorsWriter {
public:
    // Errors if the dtype has no safetensors name or the bytes do not match the shape.
    std::optional<Error> add(const std::string& name, ScalarType type, std::vector<std::int64_t> shape,
                             std::vector<std::uint8_t> bytes);
    void setMetadata(const std::string& key, const std::string& value) { m_metadata[key] = value; }

    std::vector<std::uint8_t> serialize() const;
    // Writes atomically: a temporary file beside `path`, then a rename.
    std::optional<Error> write(const std::string& path) const;

private:
    struct Entry {
        ScalarType type;
        std::vector<std::int64_t> shape;
        std::vector<std::uint8_t> bytes;
    };
    std::map<std::string, Entry> m_tensors;
    std::map<std::string, std::string> m_metadata;
};

} // namespace gapscope
