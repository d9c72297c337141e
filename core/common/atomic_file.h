#pragma once

#include "core/common/byte_span.h"
#include "core/common/result.h"

#include <optional>
#include <string>
#include <string_view>

namespace gapscope {

// Writes `bytes` to `path` so that readers see either the old file or the whole
// new one: a temporary file in the same directory, fsync, then rename. Refuses
// (refuseUnsafeOutput) a path that exists and is not a regular file, or that
// is an input this process opened.
std::optional<Error> writeFileAtomically(const std::string& path, ByteSpan bytes);
// The same for text (reports, CSV, JSON).
std::optional<Error> writeFileAtomically(const std::string& path, std::string_view text);

} // namespace gapscope
