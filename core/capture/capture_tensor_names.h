#pragma once

#include "core/capture/aot_capture.h"
#include "core/common/on_demand_json.h"

#include <optional>
#include <string_view>
#include <vector>

namespace gapscope {

// Finds in `file` every tensor the capture's values name (its inputs, reference
// outputs and records, lists included) and keeps the entry in
// CaptureValue::resolved. The first value, in document order, whose tensor the
// file does not hold is the fault, named by its JSON path
// ("records[3].outputs[0]"), as the document reader names its own faults.
std::optional<JsonFault> resolveTensorNames(AotCapture& capture, const SafetensorsFile& file);

} // namespace gapscope
