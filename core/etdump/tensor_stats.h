#pragma once

#include "core/common/byte_span.h"
#include "core/etdump/scalar_type.h"

#include <cstdint>
#include <optional>

namespace gapscope {

// Summary of a tensor's elements as float64, taken in index (storage) order like
// ExecuTorch's Python reader. Formulas in docs/formats/etdump.md.
struct TensorStats {
    std::uint64_t count = 0;
    double sum = 0;            // plain float64 sum in index order; NaN/Inf propagate
    std::optional<double> min; // over non-NaN elements; absent if there are none
    std::optional<double> max;
    double mean = 0; // sum / count (NaN for count 0)
    std::uint64_t nan = 0;
    std::uint64_t inf = 0; // +Inf and -Inf
};

// `bytes` must hold storageBytes(type, numel) bytes.
TensorStats computeTensorStats(ScalarType type, ByteSpan bytes, std::uint64_t numel);

} // namespace gapscope
