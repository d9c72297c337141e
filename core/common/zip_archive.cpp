#include "core/common/zip_archive.h"

#include <algorithm>
#include <mutex>
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
} // namespace

Result<std::shared_ptr<const ZipArchive>> ZipArchive::open(std::shared_ptr<const MappedFile> file) {
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
        const std::string msg = zip_error_strerror(&err);
        zip_source_free(src);
        zip_error_fini(&err);
        return zipError(path, "", "not a valid ZIP archive (" + msg + ")", ErrorCode::BadMagic);
    }
    zip_error_fini(&err);

    std::shared_ptr<ZipArchive> archive(new ZipArchive());
    archive->m_file = std::move(file);
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
    zip_fclose(f);
    return out;
}

} // namespace gapscope
