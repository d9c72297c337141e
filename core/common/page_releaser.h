#pragma once

#include "core/common/byte_span.h"
#include "core/common/mapped_file.h"

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace gapscope {

// Gives input pages already read back to the kernel (MappedFile::release) in
// few calls. Each madvise on a process with several threads makes the kernel
// interrupt every other core to flush its TLB; a call per measured tensor was
// a third of `compare --all-runs` on a 65-step LLM session (31,000 calls, 0.4 s
// of 1.4 s wall). Spans are collected from any thread (add) and given back,
// sorted and merged where they touch, once `flushAt` bytes are held (by the
// thread whose add reached it) and at flush(): a batch's rows are neighbours
// in the debug buffer. Only spans no longer read may be added. Every file
// must outlive the releaser.
class PageReleaser {
public:
    // flushAt: the bytes held that make add give them back; 0: only flush() does.
    explicit PageReleaser(std::size_t flushAt = 0);
    ~PageReleaser();
    PageReleaser(const PageReleaser&) = delete;
    PageReleaser& operator=(const PageReleaser&) = delete;

    // `bytes` of `file` are read and not needed again. Thread-safe.
    void add(const MappedFile& file, ByteSpan bytes);
    // Bytes added and not given back yet.
    std::size_t held() const;
    // Gives back everything held, in as few calls as touching spans allow.
    void flush();
    // madvise calls made so far (tests).
    std::size_t calls() const;

    // Spans at most this far apart merge: the padding between tensors.
    static constexpr std::uintptr_t kMergeGap = 4096;

private:
    struct Held {
        const MappedFile* file = nullptr;
        std::uintptr_t from = 0, to = 0;
    };

    void give(std::vector<Held> spans);

    const std::size_t m_flushAt;
    mutable std::mutex m_mutex;
    std::vector<Held> m_held;
    std::size_t m_bytes = 0;
    std::size_t m_calls = 0;
};

} // namespace gapscope
