#pragma once

#include "core/common/mapped_file.h"
#include "core/common/result.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gapscope {

// Read-only view of a ZIP archive held in a mapped file (stored or deflated
// entries). Entry sizes are capped so a hostile archive cannot make us allocate
// without bound.
class ZipArchive {
public:
    // `totalBudget`, when given, replaces the default budget of all reads (tests).
    static Result<std::shared_ptr<const ZipArchive>>
    open(std::shared_ptr<const MappedFile> file, std::optional<std::uint64_t> totalBudget = std::nullopt);
    ~ZipArchive();
    ZipArchive(const ZipArchive&) = delete;
    ZipArchive& operator=(const ZipArchive&) = delete;

    const std::vector<std::string>& entries() const { return m_entries; }
    // The names of at most `maxEntries` entries of a ZIP held in memory, without
    // the consistency check or any read of an entry: enough to tell an ETRecord
    // from a torch.save archive. Empty when the bytes are no readable ZIP.
    static std::vector<std::string> entryNames(ByteSpan bytes, std::size_t maxEntries);
    bool contains(const std::string& name) const;
    // SHA-256 (lower-case hex) of the archive's table of contents, read from its
    // central directory without reading any entry: for each entry, in order of
    // its name's raw bytes, "<uncompressed size> <CRC-32 as 8 lower-case hex>
    // <name length> <name>\n". Two archives whose entries hold the same bytes
    // under the same names give the same digest whatever their timestamps,
    // compression or order; any changed entry changes its CRC-32 and so the
    // digest (docs/formats/aot-capture.md, etrecord_entries_sha256). Empty when
    // an entry's size or CRC-32 is not recorded.
    std::string entriesSha256() const;
    // The entry's uncompressed bytes; an Error names the archive and entry.
    Result<std::string> read(const std::string& name, std::uint64_t maxBytes = kDefaultMaxEntryBytes) const;

    static constexpr std::uint64_t kDefaultMaxEntryBytes = 1ull << 31;
    // All entries read from one archive expand to at most this many bytes, or
    // kExpansionRatio times the archive's size if that is more: ExecuTorch
    // stores its entries (ratio 1), while a zip bomb expands a thousandfold.
    static constexpr std::uint64_t kMinTotalBudget = 256ull << 20;
    static constexpr std::uint64_t kExpansionRatio = 32;
    std::uint64_t totalBudget() const;

private:
    ZipArchive() = default;
    std::shared_ptr<const MappedFile> m_file;
    struct Handle;
    std::unique_ptr<Handle> m_handle;
    std::vector<std::string> m_entries;
    mutable std::uint64_t m_expanded = 0; // bytes read so far, under Handle::mutex
    std::optional<std::uint64_t> m_budget;
};

} // namespace gapscope
