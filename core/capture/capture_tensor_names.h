#pragma once

#include "core/capture/aot_capture.h"
#include "core/common/on_demand_json.h"

#include <optional>
#include <string_view>
#include <vector>

namespace gapscope {

// The file's tensors by name: the file's own index (SafetensorsFile::find),
// kept as a type of its own for what resolves names. Views into `file`, which
// must outlive it (its tensors do not move when the file does).
class TensorNameIndex {
public:
    explicit TensorNameIndex(const SafetensorsFile& file) : m_file(&file) {}
    const SafetensorsTensor* find(std::string_view name) const { return m_file->find(name); }

private:
    const SafetensorsFile* m_file;
};

// Finds in `file` every tensor the capture's values name (its inputs, reference
// outputs and records, lists included) and keeps the entry in
// CaptureValue::resolved. The first value, in document order, whose tensor the
// file does not hold is the fault, named by its JSON path
// ("records[3].outputs[0]"), as the document reader names its own faults.
std::optional<JsonFault> resolveTensorNames(AotCapture& capture, const TensorNameIndex& file);

} // namespace gapscope
