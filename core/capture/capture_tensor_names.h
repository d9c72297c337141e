#pragma once

#include "core/capture/aot_capture.h"
#include "core/common/on_demand_json.h"

#include <optional>
#include <string_view>
#include <unordered_map>

namespace gapscope {

// The file's tensors by name, hashed. The file's own map is sorted (its order
// is the header's contract with callers); 50,000 lookups in it, each a walk of
// string comparisons through cold nodes, took 8 ms. readAotCapture builds this
// while it waits for the document read beside it. Views into `file`, which
// must outlive the index (its tensors do not move when the file does).
class TensorNameIndex {
public:
    explicit TensorNameIndex(const SafetensorsFile& file);
    const SafetensorsTensor* find(std::string_view name) const;

private:
    std::unordered_map<std::string_view, const SafetensorsTensor*> m_tensors;
};

// Finds in `file` every tensor the capture's values name (its inputs, reference
// outputs and records, lists included) and keeps the entry in
// CaptureValue::resolved. The first value, in document order, whose tensor the
// file does not hold is the fault, named by its JSON path
// ("records[3].outputs[0]"), as the document reader names its own faults.
std::optional<JsonFault> resolveTensorNames(AotCapture& capture, const TensorNameIndex& file);

} // namespace gapscope
