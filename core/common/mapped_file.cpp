#include "core/common/mapped_file.h"

#include "core/common/file_safety.h"
#include "core/common/mapping_guard.h"

#include <cerrno>
#include <cstdint>
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
    // Looked at before it is opened: opening a FIFO blocks, opening a device acts on it.
    if (auto refused = refuseNonRegularInput(path))
        return *refused;
    // O_NONBLOCK: should it have become a FIFO since, open() still returns.
    FdGuard guard{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
    if (guard.fd < 0)
        return errnoError(path, "cannot open for reading");
    struct stat st {};
    if (::fstat(guard.fd, &st) != 0)
        return errnoError(path, "cannot stat");
    if (!S_ISREG(st.st_mode))
        return makeError(ErrorCode::Io, "is " + describeFileType(st) + ", not a regular file: not opened",
                         path);
    std::shared_ptr<MappedFile> file(new MappedFile());
    file->m_path = path;
    file->m_identity = std::make_pair(static_cast<unsigned long long>(st.st_dev),
                                      static_cast<unsigned long long>(st.st_ino));
    file->m_size = static_cast<std::size_t>(st.st_size);
    file->m_mtimeNs = static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
    if (file->m_size == 0)
        return std::shared_ptr<const MappedFile>(std::move(file));
    void* p = ::mmap(nullptr, file->m_size, PROT_READ, MAP_PRIVATE, guard.fd, 0);
    if (p == MAP_FAILED)
        return errnoError(path, "cannot map into memory");
    file->m_data = static_cast<const std::uint8_t*>(p);
    file->m_mapped = true;
    file->m_guardSlot = guardMapping(p, file->m_size, &file->m_pageVanished);
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

bool MappedFile::holds(ByteSpan part) const {
    if (!m_mapped || !part.data || part.size == 0)
        return false;
    const auto base = reinterpret_cast<std::uintptr_t>(m_data);
    const auto first = reinterpret_cast<std::uintptr_t>(part.data);
    return first >= base && first - base <= m_size && part.size <= m_size - (first - base);
}

void MappedFile::release(ByteSpan part) const {
    if (!holds(part))
        return; // not this mapping's bytes
    const auto first = reinterpret_cast<std::uintptr_t>(part.data);
    static const std::uintptr_t page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    // Whole pages only: the pages at either end may hold bytes of a neighbour
    // still being read (released, they would only be read again, but for nothing).
    const std::uintptr_t from = (first + page - 1) / page * page;
    const std::uintptr_t to = (first + part.size) / page * page;
    if (to > from)
        ::madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
}

void MappedFile::protectFromOutputs() const {
    if (m_identity && !m_protected.exchange(true))
        registerInput(m_identity->first, m_identity->second, m_path);
}

bool MappedFile::changedOnDisk() const {
    if (m_pageVanished.load(std::memory_order_relaxed))
        return true;
    if (!m_identity)
        return false; // bytes in memory
    struct stat st {};
    if (::stat(m_path.c_str(), &st) != 0)
        return true; // deleted or renamed away
    const long long mtime = static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
    return static_cast<std::size_t>(st.st_size) != m_size || mtime != m_mtimeNs ||
           static_cast<unsigned long long>(st.st_ino) != m_identity->second;
}

bool MappedFile::sameFileAs(const MappedFile& other) const {
    if (this == &other)
        return true;
    return m_identity && other.m_identity && *m_identity == *other.m_identity && m_size == other.m_size &&
           m_mtimeNs == other.m_mtimeNs;
}

MappedFile::~MappedFile() {
    unguardMapping(m_guardSlot);
    if (m_mapped)
        ::munmap(const_cast<std::uint8_t*>(m_data), m_size);
}

} // namespace gapscope
