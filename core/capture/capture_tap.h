#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gapscope {

// One tap of ExecuTorch's intermediate-output tap (executorch.devtools.
// intermediate_output_tap, issue 58): program output `output_index` is the
// value of the op `node_name`, whole (FULL_TENSOR) or reduced on the device
// (STATS: 13 float32 statistics, in `fields` order). Its reference is the
// capture's reference output at the same index, reduced the same way on the
// host. The fields other than debug_handle are ExecuTorch's TapSpec's.
struct CaptureTap {
    static constexpr const char* kFullTensor = "FULL_TENSOR";
    static constexpr const char* kStats = "STATS";

    std::size_t output_index = 0;
    std::string node_name, op_target, reducer;
    std::vector<std::string> fields;
    std::optional<std::string> stack_trace, module_path, module_class;
    // The tapped node's handle in the capture's reference graph: the delegate
    // row whose handles hold it is the delegate the tap sees inside.
    std::optional<std::vector<std::int64_t>> debug_handle;

    bool fullTensor() const { return reducer == kFullTensor; }
};

} // namespace gapscope
