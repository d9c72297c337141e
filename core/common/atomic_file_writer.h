#pragma once

#include "core/common/result.h"

#include <optional>
#include <string>
#include <string_view>

namespace gapscope {

// A file written piece by piece that readers see either as it was or whole:
// the pieces go to a temporary file beside `path`; commit() flushes it to disk
// and renames it into place; a writer destroyed before commit() removes it.
// What lets a report of a million rows, or of 20,000 runs, be written without
// being held in memory (issue 55, class 8). Refuses (refuseUnsafeOutput) a path
// that exists and is not a regular file, or that is an input this process opened.
class AtomicFileWriter {
public:
    explicit AtomicFileWriter(std::string path);
    ~AtomicFileWriter();
    AtomicFileWriter(const AtomicFileWriter&) = delete;
    AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

    // Why the file cannot be written, once something failed (then every call is a no-op).
    const std::optional<Error>& error() const { return error_; }
    void write(std::string_view bytes);
    // The file in place, or why not; a second call returns the first answer.
    std::optional<Error> commit();

private:
    void writeAll(std::string_view bytes);
    void flushBuffer();
    void fail(Error e);

    std::string path_;
    std::string tmp_;
    int fd_ = -1;
    unsigned mode_ = 0644;
    std::string buffer_;
    std::optional<Error> error_;
    bool committed_ = false;
};

} // namespace gapscope
