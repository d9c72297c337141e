#include "core/common/atomic_file.h"

#include "core/common/file_safety.h"

#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace gapscope {

std::optional<Error> writeFileAtomically(const std::string& path, ByteSpan bytes) {
    // rename() would replace a device node or a FIFO by a regular file (a test
    // run as root once destroyed /dev/full so), and an input by the output.
    if (auto refused = refuseUnsafeOutput(path))
        return refused;
    // A report written again keeps the mode its owner gave it (a 0600 report
    // stays private); a new one is 0644.
    struct stat existing {};
    const mode_t mode = ::stat(path.c_str(), &existing) == 0 && S_ISREG(existing.st_mode)
                            ? static_cast<mode_t>(existing.st_mode & 07777)
                            : static_cast<mode_t>(0644);
    std::string pattern = path + ".tmp-XXXXXX";
    std::vector<char> name(pattern.begin(), pattern.end());
    name.push_back('\0');
    const int fd = ::mkstemp(name.data());
    if (fd < 0)
        return errnoError(path, "cannot create a temporary file beside it");
    const std::string tmp(name.data());
    std::size_t done = 0;
    while (done < bytes.size) {
        const ssize_t n = ::write(fd, bytes.data + done, bytes.size - done);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            auto err = errnoError(path, "cannot write");
            ::close(fd);
            ::unlink(tmp.c_str());
            return err;
        }
        done += static_cast<std::size_t>(n);
    }
    if (::fchmod(fd, mode) != 0 || ::fsync(fd) != 0) {
        auto err = errnoError(path, "cannot flush");
        ::close(fd);
        ::unlink(tmp.c_str());
        return err;
    }
    ::close(fd);
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        auto err = errnoError(path, "cannot move the finished file into place");
        ::unlink(tmp.c_str());
        return err;
    }
    return std::nullopt;
}

std::optional<Error> writeFileAtomically(const std::string& path, std::string_view text) {
    return writeFileAtomically(path,
                               ByteSpan{reinterpret_cast<const std::uint8_t*>(text.data()), text.size()});
}

} // namespace gapscope
