#include "core/common/file_safety.h"

#include <algorithm>
#include <cerrno>
#include <mutex>
#include <sys/stat.h>
#include <utility>
#include <vector>

namespace gapscope {

namespace {

std::mutex& inputsMutex() {
    static std::mutex m;
    return m;
}

// (device, inode) of every input used by this process. Never shrinks: a file
// read once stays protected for the process's life.
std::vector<std::pair<dev_t, ino_t>>& inputs() {
    static std::vector<std::pair<dev_t, ino_t>> v;
    return v;
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

void registerInput(unsigned long long device, unsigned long long inode) {
    std::lock_guard<std::mutex> lock(inputsMutex());
    const std::pair<dev_t, ino_t> id{static_cast<dev_t>(device), static_cast<ino_t>(inode)};
    if (std::find(inputs().begin(), inputs().end(), id) == inputs().end())
        inputs().push_back(id);
}

std::optional<Error> refuseUnsafeOutput(const std::string& path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0)
        return std::nullopt; // nothing there yet: a new file
    if (!S_ISREG(st.st_mode))
        return makeError(ErrorCode::Io,
                         "is " + describeFileType(st) + ", not a regular file: refusing to replace it", path);
    std::lock_guard<std::mutex> lock(inputsMutex());
    const std::pair<dev_t, ino_t> id{st.st_dev, st.st_ino};
    if (std::find(inputs().begin(), inputs().end(), id) != inputs().end())
        return makeError(ErrorCode::Io, "is one of the inputs: refusing to overwrite it; choose another name",
                         path);
    return std::nullopt;
}

} // namespace gapscope
