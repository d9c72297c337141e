#pragma once

#include "core/capture/aot_capture.h"

#include <optional>
#include <string_view>

namespace gapscope {

// The gapscope.aot_capture document read in one pass without a JSON DOM, for
// documents of the shape the exporter and Gapscope's writer produce: only the
// keys docs/formats/aot-capture.md defines, each once, with the types it gives
// them, every check of the DOM reader passed, every tensor named present in
// `file`. The result is the DOM reader's, field for field (`file` is left for
// the caller to set).
//
// Nothing for anything else: another key or type, a duplicate key, Python's
// bare NaN, nesting past 64 lists, any fault. The caller then reads the
// document with the DOM reader, which gives the same result for what this
// accepts and says what is wrong with the rest.
std::optional<AotCapture> scanCaptureDocument(std::string_view text, const SafetensorsFile& file);

} // namespace gapscope
