#include "core/common/mapped_file.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gapscope {

namespace {

// Closes the descriptor on every path out of open().
struct FdGuard {
    int fd;
    ~FdGuard() {
        if (fd >= 0)
            ::close(fd);
    }
};
} // namespace

Result<std::shared_ptr<const MappedFile>> MappedFile::open(const std::string& path) {
    FdGuard guard{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
    if (guard.fd < 0)
        return errnoError(path, "cannot open for reading");
    struct stat st {};
    if (::fstat(guard.fd, &st) != 0)
        return errnoError(path, "cannot stat");
    if (S_ISDIR(st.st_mode)) {
        Error e;
        e.code = ErrorCode::Io;
        e.message = "is a directory, not a file";
        e.where.file = path;
        return e;
    }
    std::shared_ptr<MappedFile> file(new MappedFile());
    file->m_path = path;
    file->m_size = static_cast<std::size_t>(st.st_size);
    if (file->m_size == 0)
        return std::shared_ptr<const MappedFile>(std::move(file));
    void* p = ::mmap(nullptr, file->m_size, PROT_READ, MAP_PRIVATE, guard.fd, 0);
    if (p == MAP_FAILED)
        return errnoError(path, "cannot map into memory");
    file->m_data = static_cast<const std::uint8_t*>(p);
    file->m_mapped = true;
    return std::shared_ptr<const MappedFile>(std::move(file));
}

std::shared_ptr<const MappedFile> MappedFile::fromBytes(std::string name, const std::uint8_t* data,
                                                        std::size_t size) {
    std::shared_ptr<MappedFile> file(new MappedFile());
    file->m_path = std::move(name);
    file->m_size = size;
    if (size > 0) {
        // new[] gives max_align_t alignment, which the FlatBuffers verifier needs.
        file->m_copy.reset(new std::uint8_t[size]);
        std::memcpy(file->m_copy.get(), data, size);
        file->m_data = file->m_copy.get();
    }
    return file;
}

MappedFile::~MappedFile() {
    if (m_mapped)
        ::munmap(const_cast<std::uint8_t*>(m_data), m_size);
}

} // namespace gapscope
