#pragma once

#include "core/capture/aot_capture.h"
#include "core/common/flat_index.h"
#include "core/common/on_demand_json.h"

#include <optional>
#include <string_view>
#include <vector>

namespace gapscope {

// The file's tensors by name, hashed. The file's own map is sorted (its order
// is the header's contract with callers); 50,000 lookups in it, each a walk of
// string comparisons through cold nodes, took 8 ms. Open addressing
// (FlatIndex), not std::unordered_map: a node per name to allocate, and to
// free at the end of the capture's read, was most of the index's cost there.
// Views into `file`, which must outlive the index (its tensors do not move
// when the file does).
class TensorNameIndex {
public:
    explicit TensorNameIndex(const SafetensorsFile& file);
    const SafetensorsTensor* find(std::string_view name) const;

private:
    std::vector<const SafetensorsTensor*> m_tensors; // in the file's order
    FlatIndex<std::string_view> m_byName;            // name → place in m_tensors
};

// Finds in `file` every tensor the capture's values name (its inputs, reference
// outputs and records, lists included) and keeps the entry in
// CaptureValue::resolved. The first value, in document order, whose tensor the
// file does not hold is the fault, named by its JSON path
// ("records[3].outputs[0]"), as the document reader names its own faults.
std::optional<JsonFault> resolveTensorNames(AotCapture& capture, const TensorNameIndex& file);

} // namespace gapscope
