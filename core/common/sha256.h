#pragma once

#include "core/common/byte_span.h"

#include <atomic>
#include <string>

namespace gapscope {

// Lower-case hex SHA-256 of the bytes (provenance, and to tie a capture to the
// ETRecord it was made from). With `cancelled`, the bytes are hashed in chunks
// and "" is returned once it is set (a GiB-sized ETRecord takes seconds).
std::string sha256Hex(ByteSpan bytes, const std::atomic<bool>* cancelled = nullptr);
// The same over a whole file, whose pages are released as they are hashed
// (MappedFile::release): hashing a GiB-sized input leaves no GiB resident.
class MappedFile;
std::string sha256Hex(const MappedFile& file, const std::atomic<bool>* cancelled = nullptr);

} // namespace gapscope
