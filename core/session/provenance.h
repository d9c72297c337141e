#pragma once

#include <atomic>
#include <optional>
#include <string>

namespace gapscope {

struct Session;
class Workspace;

// Whether the capture was made from the ETRecord it is compared with: the
// exporter records the SHA-256 of the ETRecord's table of contents (its
// entries' names, sizes and CRC-32s) and of the whole file. Another ETRecord's
// capture pairs debug handles of another program. A capture with only the
// file's digest makes the check hash the whole ETRecord, so it runs off the UI
// thread (the loader's worker, or the CLI); completeSession stores the result.
struct CaptureProvenance {
    std::optional<std::string> etrecord_sha256; // the open ETRecord's file, when hashed
    std::optional<std::string> warning;
};
// With `cancelled` set while hashing, nothing is hashed or said.
// Also, whatever the digest says: whether the capture's records name ops of the
// ETRecord graph it says it was taken of, under their debug handles (a digest
// names a file and can be copied; the graphs cannot lie to each other).
// A file's digest is taken from `workspace` when given (hashed once for every
// run and capture of the same files).
CaptureProvenance checkCaptureProvenance(const Session& session, const std::atomic<bool>* cancelled = nullptr,
                                         Workspace* workspace = nullptr);
// The digest part alone.
CaptureProvenance checkCaptureDigest(const Session& session, const std::atomic<bool>* cancelled = nullptr,
                                     Workspace* workspace = nullptr);

} // namespace gapscope
