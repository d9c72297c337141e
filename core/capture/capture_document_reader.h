#pragma once

#include "core/capture/aot_capture.h"

#include <string>
#include <string_view>

namespace gapscope {

// Reads and checks the gapscope.aot_capture document (docs/formats/aot-capture.md)
// in one pass with simdjson's On-Demand API: every field is read straight into
// the capture, every tensor a value names must be in `file` (resolveTensorNames,
// after the document: any fault of the document itself is said before a name
// the file lacks). A fault names the
// field by its JSON path ("records[3].outputs[0]"); a document that is not JSON
// says so with the byte of the document where it stands. A key given twice in
// one object is refused. Python's bare NaN / Infinity tokens are read as the
// strings "NaN" / "Infinity" (core/common/python_json.h). `capture.file` is
// left for the caller to set.
Result<AotCapture> readCaptureDocument(std::string_view text, const SafetensorsFile& file,
                                       const std::string& path);

// The same without the file: the tensors values name are left to
// resolveTensorNames. readAotCapture reads the document this way on another
// core while the safetensors header's tensor entries are read. `readable`: as
// OnDemandJson's (the text is read in place when its buffer has the padding).
Result<AotCapture> parseCaptureDocument(std::string_view text, const std::string& path,
                                        std::size_t readable = 0);

} // namespace gapscope
