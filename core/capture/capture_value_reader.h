#pragma once

#include "core/capture/aot_capture.h"
#include "core/capture/ondemand_fields.h"

#include <string>
#include <vector>

namespace gapscope {

// The capture document's values and quantisation parameters
// (docs/formats/aot-capture.md), read from simdjson On-Demand values; faults
// are thrown as JsonFault naming the field's JSON path.

// A list of values into `out`. The tensors they name are not looked up here
// (resolveTensorNames does, once the safetensors header is read: the two are
// read side by side). `depth`: the JSON nesting the list stands at (refused
// past kMaxJsonDepth).
void readCaptureValues(simdjson::ondemand::value& v, const ondemand_fields::JsonPath& field,
                       std::vector<CaptureValue>& out, std::size_t depth);

void readQuantParams(simdjson::ondemand::value& v, const ondemand_fields::JsonPath& field, QuantParams& q);

} // namespace gapscope
