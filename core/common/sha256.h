#pragma once

#include "core/common/byte_span.h"

#include <string>

namespace gapscope {

// Lower-case hex SHA-256 of the bytes (provenance, and to tie a capture to the
// ETRecord it was made from).
std::string sha256Hex(ByteSpan bytes);

} // namespace gapscope
