#pragma once

#include "core/common/byte_span.h"
#include "core/common/flat_index.h"
#include "core/common/mapped_file.h"
#include "core/common/result.h"
#include "core/etdump/scalar_type.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gapscope {

// One tensor of a safetensors file: metadata plus where its bytes are.
struct SafetensorsTensor {
    std::string dtype; // safetensors name: "F32", "I64", "BOOL", ...
    ScalarType scalar_type;
    std::vector<std::int64_t> shape;
    std::uint64_t numel = 1;
    std::uint64_t begin = 0; // relative to the data section
    std::uint64_t end = 0;
};

// A safetensors file (8-byte little-endian header length, JSON header, data),
// memory-mapped read-only; tensors are views into the mapping. Every header
// entry is checked: known dtype, non-negative shape, offsets inside the data
// section and matching the shape's byte count.
class SafetensorsFile {
public:
    // Called once __metadata__ is read, before the tensor entries that follow
    // it, on the reading thread. It may take values out of the map (moving
    // them: the key stays, with an empty value), which saves copying a value
    // of megabytes (a capture's document) once more. Each value is followed
    // by room for simdjson's padding (capacity() - size() >= 64), so what is
    // taken can be padded and parsed in place. Anything else that outlives the
    // call is copied: a header found bad later frees the map.
    using MetadataRead = std::function<void(std::map<std::string, std::string>&)>;

    // The header is read in one pass by simdjson's On-Demand API
    // (core/common/on_demand_json.h); a name or a key given twice is refused.
    static Result<SafetensorsFile> read(std::shared_ptr<const MappedFile> file,
                                        const MetadataRead& metadataRead = {});

private:
    static Result<SafetensorsFile> readUnguarded(std::shared_ptr<const MappedFile> file,
                                                 const MetadataRead& metadataRead);

public:
    static Result<SafetensorsFile> load(const std::string& path);

    const std::string& path() const { return m_file->path(); }
    const std::map<std::string, std::string>& metadata() const { return m_metadata; }
    // The tensors in the header's order, each name once (the reader refuses a
    // name given twice).
    const std::vector<std::pair<std::string, SafetensorsTensor>>& tensors() const { return m_tensors; }
    // A tensor by name, hashed: 50,000 lookups on opening a capture.
    const SafetensorsTensor* find(std::string_view name) const;
    ByteSpan bytes(const SafetensorsTensor& tensor) const;
    // Where the tensor's bytes start in the file (its offsets count from the data section).
    std::uint64_t offsetInFile(const SafetensorsTensor& tensor) const;
    const std::shared_ptr<const MappedFile>& mappedFile() const { return m_file; }
    std::uint64_t headerSize() const { return m_headerSize; }

    // "F32" ↔ ScalarType; nullopt for names/types safetensors does not have.
    static std::optional<ScalarType> scalarTypeFor(const std::string& dtype);
    static std::optional<std::string> dtypeFor(ScalarType type);

    static constexpr std::uint64_t kMaxHeaderBytes = 100ull << 20; // safetensors' own limit

private:
    std::shared_ptr<const MappedFile> m_file;
    std::uint64_t m_headerSize = 0;
    std::map<std::string, std::string> m_metadata;
    // In the header's order, and by name: a std::map allocated a node per
    // tensor and compared names to place it, and a second index by name was
    // built from its cold nodes (50,000 tensors: 6 ms on opening's longest path).
    std::vector<std::pair<std::string, SafetensorsTensor>> m_tensors;
    FlatIndex<NoKey> m_byName{0};
    // Indexes m_tensors by name; the place of the first name given twice (its
    // second), or none.
    std::optional<std::size_t> indexNames();
};

} // namespace gapscope
