#pragma once

#include "core/common/byte_span.h"
#include "core/etdump/scalar_type.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gapscope {

// One side of a comparison as float64 numbers: a tensor view (dtype, shape, raw
// bytes, never copied) or a scalar (a 0-dim tensor, as torch.as_tensor makes it).
struct Operand {
    ScalarType type = ScalarType::Double;
    std::vector<std::int64_t> shape;
    ByteSpan bytes;
    std::uint64_t numel = 1;
    bool is_scalar = false;
    double scalar = 0;

    static Operand tensor(ScalarType type, std::vector<std::int64_t> shape, ByteSpan bytes,
                          std::uint64_t numel);
    static Operand number(double value);

    // Elements [first, first + count) as float64.
    void decode(std::uint64_t first, std::size_t count, double* out) const;
};

// How a runtime tensor maps back to the reference: dequantisation and layout.
struct OperandTransform {
    // real = (q − zero_point[c]) × scale[c], c the index along `axis` (reference
    // layout) or 0 for per-tensor.
    std::vector<double> scale;
    std::vector<std::int64_t> zero_point;
    std::optional<std::int64_t> axis;
    // runtime = reference.permute(axis_order)
    std::optional<std::vector<std::int64_t>> axis_order;

    bool dequantizes() const { return !scale.empty(); }
};

// Row-major element strides of a shape (size-0 and size-1 dimensions count as 1).
std::vector<std::uint64_t> rowMajorStrides(const std::vector<std::int64_t>& shape);
// "1x4x16", or "scalar" for a shape of no dimension.
std::string shapeText(const std::vector<std::int64_t>& shape);
// The shape without its size-1 dimensions: two shapes equal so hold the same
// elements in the same order (1x16x32 and 16x32).
std::vector<std::int64_t> withoutOnes(const std::vector<std::int64_t>& shape);
// The coordinates of row-major element `flat` in `shape`.
std::vector<std::int64_t> unravelIndex(std::uint64_t flat, const std::vector<std::int64_t>& shape);

// The one dequantisation formula (docs/metrics.md): real = (q − zero_point[c]) × scale[c].
inline double dequantize(const OperandTransform& tf, double q, std::size_t channel) {
    return (q - static_cast<double>(tf.zero_point[channel])) * tf.scale[channel];
}

} // namespace gapscope
