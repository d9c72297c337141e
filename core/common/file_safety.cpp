#include "core/common/file_safety.h"

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <mutex>
#include <optional>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <utility>
#include <vector>

namespace gapscope {

namespace {

std::mutex& inputsMutex() {
    static std::mutex m;
    return m;
}

struct InputId {
    dev_t device;
    ino_t inode;
    std::optional<std::pair<long long, unsigned>> birth; // where the file system records it
};

// Every input used by this process. Never shrinks: a file read once stays
// protected for the process's life.
std::vector<InputId>& inputs() {
    static std::vector<InputId> v;
    return v;
}

// statx's birth time (not ctime: a hard link or chmod changes that, and a hard
// link to an input must stay refused).
std::optional<std::pair<long long, unsigned>> birthTime(const std::string& path, dev_t device, ino_t inode) {
    struct statx sx {};
    if (::statx(AT_FDCWD, path.c_str(), 0, STATX_INO | STATX_BTIME, &sx) != 0 ||
        !(sx.stx_mask & STATX_BTIME) || sx.stx_ino != inode ||
        makedev(sx.stx_dev_major, sx.stx_dev_minor) != device)
        return std::nullopt;
    return std::make_pair(static_cast<long long>(sx.stx_btime.tv_sec), sx.stx_btime.tv_nsec);
}

} // namespace

std::string describeFileType(const struct stat& st) {
    if (S_ISDIR(st.st_mode))
        return "a directory";
    if (S_ISFIFO(st.st_mode))
        return "a FIFO (named pipe)";
    if (S_ISCHR(st.st_mode))
        return "a character device";
    if (S_ISBLK(st.st_mode))
        return "a block device";
    if (S_ISSOCK(st.st_mode))
        return "a socket";
    if (S_ISLNK(st.st_mode))
        return "a symbolic link";
    return S_ISREG(st.st_mode) ? "a regular file" : "not a regular file";
}

std::optional<Error> refuseNonRegularInput(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        return errnoError(path, "cannot open for reading");
    if (S_ISDIR(st.st_mode))
        return makeError(ErrorCode::Io, "is a directory, not a file", path);
    if (!S_ISREG(st.st_mode))
        return makeError(ErrorCode::Io, "is " + describeFileType(st) + ", not a regular file: not opened",
                         path);
    return std::nullopt;
}

void registerInput(unsigned long long device, unsigned long long inode, const std::string& path) {
    const InputId id{static_cast<dev_t>(device), static_cast<ino_t>(inode),
                     birthTime(path, static_cast<dev_t>(device), static_cast<ino_t>(inode))};
    std::lock_guard<std::mutex> lock(inputsMutex());
    for (const auto& known : inputs())
        if (known.device == id.device && known.inode == id.inode && known.birth == id.birth)
            return;
    inputs().push_back(id);
}

std::optional<Error> refuseUnsafeOutput(const std::string& path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0)
        return std::nullopt; // nothing there yet: a new file
    if (!S_ISREG(st.st_mode))
        return makeError(ErrorCode::Io,
                         "is " + describeFileType(st) + ", not a regular file: refusing to replace it", path);
    const auto birth = birthTime(path, st.st_dev, st.st_ino);
    std::lock_guard<std::mutex> lock(inputsMutex());
    // The same inode born at another time is another file (an input deleted,
    // its inode number reused); without birth times, the inode decides.
    const bool input = std::any_of(inputs().begin(), inputs().end(), [&](const InputId& known) {
        return known.device == st.st_dev && known.inode == st.st_ino &&
               (!known.birth || !birth || known.birth == birth);
    });
    if (input)
        return makeError(ErrorCode::Io, "is one of the inputs: refusing to overwrite it; choose another name",
                         path);
    return std::nullopt;
}

std::optional<Error> refuseUnsafeOutputFolder(const std::string& path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0)
        return std::nullopt; // nothing there yet: made by the writer
    if (S_ISLNK(st.st_mode))
        return makeError(ErrorCode::Io,
                         "is a symbolic link: refusing to write a folder's files through it; name the folder "
                         "itself",
                         path);
    if (!S_ISDIR(st.st_mode))
        return makeError(ErrorCode::Io,
                         "is " + describeFileType(st) + ", not a folder: refusing to write into it", path);
    return std::nullopt;
}

} // namespace gapscope
