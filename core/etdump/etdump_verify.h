#pragma once

#include "core/common/byte_span.h"
#include "core/common/diagnostics.h"

#include <cstdint>

namespace gapscope {

// Runs the FlatBuffers verifier with limits scaled to the buffer. On failure,
// walks the tree level by level with fresh verifiers to say which run, event or
// field is broken (the stock verifier only answers yes or no).
// `flatbuffer` is the root buffer including the size prefix when sizePrefixed.
bool verifyEtdumpFlatbuffer(ByteSpan flatbuffer, bool sizePrefixed, Location& failure, std::string& what);

} // namespace gapscope
