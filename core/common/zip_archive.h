#pragma once

#include "core/common/mapped_file.h"
#include "core/common/result.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gapscope {

// Read-only view of a ZIP archive held in a mapped file (stored or deflated
// entries). Entry sizes are capped so a hostile archive cannot make us allocate
// without bound.
class ZipArchive {
public:
    static Result<std::shared_ptr<const ZipArchive>> open(std::shared_ptr<const MappedFile> file);
    ~ZipArchive();
    ZipArchive(const ZipArchive&) = delete;
    ZipArchive& operator=(const ZipArchive&) = delete;

    const std::vector<std::string>& entries() const { return m_entries; }
    bool contains(const std::string& name) const;
    // The entry's uncompressed bytes; an Error names the archive and entry.
    Result<std::string> read(const std::string& name, std::uint64_t maxBytes = kDefaultMaxEntryBytes) const;

    static constexpr std::uint64_t kDefaultMaxEntryBytes = 1ull << 31;

private:
    ZipArchive() = default;
    std::shared_ptr<const MappedFile> m_file;
    struct Handle;
    std::unique_ptr<Handle> m_handle;
    std::vector<std::string> m_entries;
};

} // namespace gapscope
