#pragma once

#include "core/common/byte_span.h"
#include "core/common/result.h"

#include <memory>
#include <string>

namespace gapscope {

// A file mapped read-only into memory. Inputs are never opened for writing, and
// big debug buffers are never copied: tensors are views into this mapping.
class MappedFile {
public:
    static Result<std::shared_ptr<const MappedFile>> open(const std::string& path);
    // Wraps bytes already in memory (tests, embedded resources); copies them.
    static std::shared_ptr<const MappedFile> fromBytes(std::string name, const std::uint8_t* data,
                                                       std::size_t size);

    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    const std::string& path() const { return m_path; }
    ByteSpan bytes() const { return {m_data, m_size}; }
    std::size_t size() const { return m_size; }

private:
    MappedFile() = default;

    std::string m_path;
    const std::uint8_t* m_data = nullptr;
    std::size_t m_size = 0;
    bool m_mapped = false;
    std::unique_ptr<std::uint8_t[]> m_copy;
};

} // namespace gapscope
