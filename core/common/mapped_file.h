#pragma once

#include "core/common/byte_span.h"
#include "core/common/result.h"

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace gapscope {

// A file mapped read-only into memory. Inputs are never opened for writing, and
// big debug buffers are never copied: tensors are views into this mapping.
class MappedFile {
public:
    static Result<std::shared_ptr<const MappedFile>> open(const std::string& path);
    // Wraps bytes already in memory (tests, embedded resources); copies them.
    static std::shared_ptr<const MappedFile> fromBytes(std::string name, const std::uint8_t* data,
                                                       std::size_t size);

    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    const std::string& path() const { return m_path; }
    ByteSpan bytes() const { return {m_data, m_size}; }
    std::size_t size() const { return m_size; }
    // From now on, no output of this process may replace this file (a file
    // chosen as an input; registerInput).
    void protectFromOutputs() const;
    // Gives the whole pages of `part` back to the kernel: they no longer count
    // in this process's resident memory, and a later read reads them again from
    // the page cache (or the file). Measuring ViT-S/16 touched every page of its
    // 323 MB debug buffer and 199 MB capture once and kept them all resident
    // (docs/performance.md, issue 29). A no-op for bytes in memory (fromBytes)
    // and for bytes outside this mapping: anonymous memory would read back as
    // zeros, so only this file's own mapping is ever released.
    void release(ByteSpan part) const;
    // Whether `part` lies in this file's mapped bytes (what release gives back).
    bool holds(ByteSpan part) const;
    // The file on disk is no longer what was mapped: a page vanished under a
    // read (the file was truncated; the read saw zeros instead of SIGBUS), or
    // its size or modification time changed since it was opened. Numbers read
    // from it are then not to be trusted; reload.
    bool changedOnDisk() const;
    // Both map the same file as it was when each was opened (device, inode,
    // size and modification time): what is parsed of one holds for the other.
    // Bytes in memory are the same file only as themselves.
    bool sameFileAs(const MappedFile& other) const;

private:
    MappedFile() = default;

    std::string m_path;
    const std::uint8_t* m_data = nullptr;
    std::size_t m_size = 0;
    bool m_mapped = false;
    std::unique_ptr<std::uint8_t[]> m_copy;
    std::optional<std::pair<unsigned long long, unsigned long long>> m_identity; // device, inode
    // Registered once: --all-runs opens a session per run over the same files,
    // and 20,000 step captures registered again each time was 4·10⁸ stats (issue 55).
    mutable std::atomic<bool> m_protected{false};
    long long m_mtimeNs = 0;
    std::atomic<bool> m_pageVanished{false}; // set by the SIGBUS guard (mapping_guard.h)
    int m_guardSlot = -1;
};

} // namespace gapscope
