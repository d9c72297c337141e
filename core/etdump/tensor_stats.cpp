#include "core/etdump/tensor_stats.h"

#include "core/etdump/element_decode.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace gapscope {

TensorStats computeTensorStats(ScalarType type, ByteSpan bytes, std::uint64_t numel) {
    TensorStats s;
    s.count = numel;
    // Decode in blocks so a large tensor never needs a float64 copy of itself.
    constexpr std::size_t kBlock = 4096;
    std::array<double, kBlock> block{};
    for (std::uint64_t first = 0; first < numel; first += kBlock) {
        const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(kBlock, numel - first));
        decodeToDouble(type, bytes, first, n, block.data());
        for (std::size_t i = 0; i < n; ++i) {
            const double x = block[i];
            s.sum += x;
            if (std::isnan(x)) {
                ++s.nan;
                continue;
            }
            if (std::isinf(x))
                ++s.inf;
            if (!s.min || x < *s.min)
                s.min = x;
            if (!s.max || x > *s.max)
                s.max = x;
        }
    }
    s.mean = numel > 0 ? s.sum / static_cast<double>(numel) : std::numeric_limits<double>::quiet_NaN();
    return s;
}

} // namespace gapscope
