#include "core/common/zip_archive.h"

#include "core/common/sha256.h"

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <set>
#include <zip.h>

namespace gapscope {

struct ZipArchive::Handle {
    zip_t* zip = nullptr;
    // libzip archive handles are not thread-safe; reads are serialised.
    mutable std::mutex mutex;
    ~Handle() {
        if (zip)
            zip_discard(zip);
    }
};

namespace {
Error zipError(const std::string& file, const std::string& entry, const std::string& message,
               ErrorCode code = ErrorCode::Malformed) {
    return makeError(code, message, file, entry);
}
// libzip says only "inconsistent" when, for one, an entry's compression
// method is one it cannot read: opened again without the consistency check,
// the entry can be named.
std::string locateInconsistency(zip_source_t* src, std::string fallback) {
    zip_error_t err;
    zip_error_init(&err);
    zip_source_keep(src);
    zip_t* zip = zip_open_from_source(src, ZIP_RDONLY, &err);
    zip_error_fini(&err);
    if (!zip) {
        zip_source_free(src);
        return fallback;
    }
    const zip_int64_t n = zip_get_num_entries(zip, 0);
    for (zip_int64_t i = 0; i < n; ++i) {
        zip_stat_t st;
        zip_stat_init(&st);
        if (zip_stat_index(zip, static_cast<zip_uint64_t>(i), 0, &st) == 0 &&
            (st.valid & ZIP_STAT_COMP_METHOD) && !zip_compression_method_supported(st.comp_method, 0)) {
            fallback = "entry '" + std::string(st.name ? st.name : "?") + "' uses compression method " +
                       std::to_string(st.comp_method) +
                       ", which this reader cannot decompress (stored and "
                       "deflated entries are read)";
            break;
        }
    }
    zip_discard(zip);
    return fallback;
}

std::uint32_t le32(const std::uint8_t* p) {
    return std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 |
           std::uint32_t(p[3]) << 24;
}
std::uint16_t le16(const std::uint8_t* p) {
    return static_cast<std::uint16_t>(p[0] | p[1] << 8);
}

// libzip refuses a central directory naming one entry twice without saying
// which: the first name given twice, read from the directory itself (the end
// record from the back, then each header; every offset bounds-checked).
std::optional<std::string> duplicateEntryName(ByteSpan bytes) {
    constexpr std::size_t kEnd = 22, kHeader = 46;
    if (bytes.size < kEnd)
        return std::nullopt;
    const std::size_t lowest = bytes.size > kEnd + 65535 ? bytes.size - kEnd - 65535 : 0;
    for (std::size_t at = bytes.size - kEnd + 1; at-- > lowest;) {
        const std::uint8_t* e = bytes.data + at;
        if (le32(e) != 0x06054b50)
            continue;
        std::size_t offset = le32(e + 16), count = le16(e + 10);
        std::set<std::string> seen;
        for (std::size_t k = 0; k < count && offset + kHeader <= bytes.size; ++k) {
            const std::uint8_t* h = bytes.data + offset;
            if (le32(h) != 0x02014b50)
                return std::nullopt;
            const std::size_t nameLength = le16(h + 28);
            if (offset + kHeader + nameLength > bytes.size)
                return std::nullopt;
            std::string name(reinterpret_cast<const char*>(h + kHeader), nameLength);
            if (!seen.insert(name).second)
                return name;
            offset += kHeader + nameLength + le16(h + 30) + le16(h + 32);
        }
        return std::nullopt;
    }
    return std::nullopt;
}

} // namespace

std::vector<std::string> ZipArchive::entryNames(ByteSpan bytes, std::size_t maxEntries) {
    std::vector<std::string> names;
    if (bytes.empty())
        return names;
    zip_error_t err;
    zip_error_init(&err);
    zip_source_t* src = zip_source_buffer_create(bytes.data, bytes.size, 0, &err);
    zip_t* zip = src ? zip_open_from_source(src, ZIP_RDONLY, &err) : nullptr;
    zip_error_fini(&err);
    if (!zip) {
        if (src)
            zip_source_free(src);
        return names;
    }
    const zip_int64_t n = zip_get_num_entries(zip, 0);
    for (zip_int64_t i = 0; i < n && names.size() < maxEntries; ++i)
        if (const char* name = zip_get_name(zip, static_cast<zip_uint64_t>(i), ZIP_FL_ENC_RAW))
            names.emplace_back(name);
    zip_discard(zip); // frees the source too
    return names;
}

std::uint64_t ZipArchive::totalBudget() const {
    return m_budget ? *m_budget : std::max<std::uint64_t>(kMinTotalBudget, kExpansionRatio * m_file->size());
}

Result<std::shared_ptr<const ZipArchive>> ZipArchive::open(std::shared_ptr<const MappedFile> file,
                                                           std::optional<std::uint64_t> totalBudget) {
    const std::string& path = file->path();
    if (file->size() == 0)
        return zipError(path, "", "file is empty; expected a ZIP archive", ErrorCode::Empty);
    zip_error_t err;
    zip_error_init(&err);
    zip_source_t* src = zip_source_buffer_create(file->bytes().data, file->size(), 0, &err);
    if (!src) {
        const std::string msg = zip_error_strerror(&err);
        zip_error_fini(&err);
        return zipError(path, "", "cannot read as a ZIP archive: " + msg);
    }
    zip_t* zip = zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &err);
    if (!zip) {
        const int code = zip_error_code_zip(&err);
        std::string msg = "not a valid ZIP archive (" + std::string(zip_error_strerror(&err)) + ")";
        zip_error_fini(&err);
        if (code == ZIP_ER_EXISTS) {
            const auto name = duplicateEntryName(file->bytes());
            // Bounded: a name is echoed, never a megabyte of one (printing escapes it).
            msg = name ? "not a valid ZIP archive: two entries are named '" +
                             (name->size() > 200 ? name->substr(0, 200) + "..." : *name) + "'"
                       : "not a valid ZIP archive: two entries have the same name";
        } else if (code == ZIP_ER_INCONS)
            msg = locateInconsistency(src, msg);
        zip_source_free(src); // a failed open leaves the source to its caller
        return zipError(path, "", msg, ErrorCode::BadMagic);
    }
    zip_error_fini(&err);

    std::shared_ptr<ZipArchive> archive(new ZipArchive());
    archive->m_file = std::move(file);
    archive->m_budget = totalBudget;
    archive->m_handle = std::make_unique<Handle>();
    archive->m_handle->zip = zip;
    const zip_int64_t n = zip_get_num_entries(zip, 0);
    for (zip_int64_t i = 0; i < n; ++i) {
        const char* name = zip_get_name(zip, static_cast<zip_uint64_t>(i), ZIP_FL_ENC_GUESS);
        if (name)
            archive->m_entries.emplace_back(name);
    }
    return std::shared_ptr<const ZipArchive>(std::move(archive));
}

ZipArchive::~ZipArchive() = default;

std::string ZipArchive::entriesSha256() const {
    struct Entry {
        std::string name;
        std::uint64_t size;
        std::uint32_t crc;
    };
    std::vector<Entry> entries;
    {
        std::lock_guard<std::mutex> lock(m_handle->mutex);
        zip_t* zip = m_handle->zip;
        const zip_int64_t n = zip_get_num_entries(zip, 0);
        entries.reserve(static_cast<std::size_t>(std::max<zip_int64_t>(n, 0)));
        for (zip_int64_t i = 0; i < n; ++i) {
            zip_stat_t st;
            zip_stat_init(&st);
            if (zip_stat_index(zip, static_cast<zip_uint64_t>(i), ZIP_FL_ENC_RAW, &st) != 0 || !st.name ||
                (st.valid & (ZIP_STAT_SIZE | ZIP_STAT_CRC)) != (ZIP_STAT_SIZE | ZIP_STAT_CRC))
                return {};
            entries.push_back({st.name, st.size, st.crc});
        }
    }
    // By the names' bytes (std::string compares as unsigned char), as Python's
    // bytes sort in the exporter: the digest does not depend on the entries' order.
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.name < b.name; });
    std::string text;
    for (const auto& e : entries) {
        char head[64];
        std::snprintf(head, sizeof head, "%llu %08x %zu ", static_cast<unsigned long long>(e.size),
                      static_cast<unsigned>(e.crc), e.name.size());
        text += head;
        text += e.name;
        text += '\n';
    }
    return sha256Hex(ByteSpan{reinterpret_cast<const std::uint8_t*>(text.data()), text.size()});
}

bool ZipArchive::contains(const std::string& name) const {
    return std::find(m_entries.begin(), m_entries.end(), name) != m_entries.end();
}

Result<std::string> ZipArchive::read(const std::string& name, std::uint64_t maxBytes) const {
    const std::string& path = m_file->path();
    std::lock_guard<std::mutex> lock(m_handle->mutex);
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat(m_handle->zip, name.c_str(), 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE))
        return zipError(path, name, "entry '" + name + "' is missing from the archive");
    if (st.size > maxBytes)
        return zipError(path, name,
                        "entry '" + name + "' would expand to " + std::to_string(st.size) +
                            " bytes, over the " + std::to_string(maxBytes) + "-byte limit",
                        ErrorCode::TooLarge);
    if (st.size > totalBudget() - std::min(m_expanded, totalBudget()))
        return zipError(path, name,
                        "entry '" + name + "' would expand to " + std::to_string(st.size) +
                            " bytes; with the " + std::to_string(m_expanded) +
                            " read before, over the archive's budget of " + std::to_string(totalBudget()) +
                            " bytes (" + std::to_string(kExpansionRatio) + " times its size, at least " +
                            std::to_string(kMinTotalBudget >> 20) + " MiB): a zip bomb?",
                        ErrorCode::TooLarge);
    m_expanded += st.size;
    zip_file_t* f = zip_fopen(m_handle->zip, name.c_str(), 0);
    if (!f)
        return zipError(path, name,
                        "cannot open entry '" + name +
                            "': " + zip_error_strerror(zip_get_error(m_handle->zip)));
    std::string out(static_cast<std::size_t>(st.size), '\0');
    std::uint64_t done = 0;
    while (done < st.size) {
        const zip_int64_t got = zip_fread(f, out.data() + done, st.size - done);
        if (got <= 0) {
            const std::string msg = got < 0 ? zip_file_strerror(f) : "unexpected end of data";
            zip_fclose(f);
            return zipError(path, name, "cannot read entry '" + name + "': " + msg, ErrorCode::Truncated);
        }
        done += static_cast<std::uint64_t>(got);
    }
    // One read more: libzip checks the CRC at the end of the data, and data
    // beyond the declared size is a lie about it.
    char extra = 0;
    const zip_int64_t tail = zip_fread(f, &extra, 1);
    if (tail != 0) {
        const std::string msg =
            tail < 0 ? std::string(zip_file_strerror(f))
                     : "it holds more data than its declared " + std::to_string(st.size) + " bytes";
        zip_fclose(f);
        return zipError(path, name, "entry '" + name + "' is corrupt: " + msg);
    }
    zip_fclose(f);
    return out;
}

} // namespace gapscope
