#include "core/common/atomic_file_writer.h"

#include "core/common/diagnostics.h"
#include "core/common/file_safety.h"

#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace gapscope {

namespace {

constexpr std::size_t kBufferBytes = 1 << 16; // a JSON report arrives in small pieces

} // namespace

AtomicFileWriter::AtomicFileWriter(std::string path) : path_(std::move(path)) {
    // rename() would replace a device node or a FIFO by a regular file (a test
    // run as root once destroyed /dev/full so), and an input by the output.
    if (auto refused = refuseUnsafeOutput(path_)) {
        error_ = std::move(*refused);
        return;
    }
    // A report written again keeps the mode its owner gave it (a 0600 report
    // stays private); a new one is 0644.
    struct stat existing {};
    if (::stat(path_.c_str(), &existing) == 0 && S_ISREG(existing.st_mode))
        mode_ = static_cast<unsigned>(existing.st_mode & 07777);
    std::string pattern = path_ + ".tmp-XXXXXX";
    std::vector<char> name(pattern.begin(), pattern.end());
    name.push_back('\0');
    fd_ = ::mkstemp(name.data());
    if (fd_ < 0) {
        error_ = errnoError(path_, "cannot create a temporary file beside it");
        return;
    }
    tmp_ = name.data();
    buffer_.reserve(kBufferBytes);
}

AtomicFileWriter::~AtomicFileWriter() {
    if (fd_ >= 0)
        ::close(fd_);
    if (!committed_ && !tmp_.empty())
        ::unlink(tmp_.c_str());
}

void AtomicFileWriter::fail(Error e) {
    error_ = std::move(e);
    buffer_.clear();
    buffer_.shrink_to_fit();
}

void AtomicFileWriter::writeAll(std::string_view bytes) {
    std::size_t done = 0;
    while (done < bytes.size() && !error_) {
        const ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            fail(errnoError(path_, "cannot write"));
            return;
        }
        done += static_cast<std::size_t>(n);
    }
}

void AtomicFileWriter::flushBuffer() {
    writeAll(buffer_);
    buffer_.clear();
}

void AtomicFileWriter::write(std::string_view bytes) {
    if (error_ || committed_)
        return;
    if (buffer_.size() + bytes.size() > kBufferBytes) {
        flushBuffer();
        if (bytes.size() >= kBufferBytes) { // a large piece goes straight to the file, uncopied
            writeAll(bytes);
            return;
        }
    }
    buffer_.append(bytes.data(), bytes.size());
}

std::optional<Error> AtomicFileWriter::commit() {
    if (committed_ || error_)
        return error_;
    flushBuffer();
    if (error_)
        return error_;
    if (::fchmod(fd_, static_cast<mode_t>(mode_)) != 0 || ::fsync(fd_) != 0) {
        fail(errnoError(path_, "cannot flush"));
        return error_;
    }
    ::close(fd_);
    fd_ = -1;
    if (std::rename(tmp_.c_str(), path_.c_str()) != 0) {
        fail(errnoError(path_, "cannot move the finished file into place"));
        return error_;
    }
    committed_ = true;
    return std::nullopt;
}

} // namespace gapscope
