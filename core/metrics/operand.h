#pragma once

#include "core/common/byte_span.h"
#include "core/etdump/scalar_type.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gapscope {

// One side of a comparison as float64 numbers: a tensor view (dtype, shape, raw
// bytes, never copied) or a scalar (a 0-dim tensor, as torch.as_tensor makes it).
struct Operand {
    ScalarType type = ScalarType::Double;
    ByteSpan bytes;
    std::uint64_t numel = 1;
    bool is_scalar = false;
    double scalar = 0;

    // Held by the operand (made for it).
    static Operand tensor(ScalarType type, std::vector<std::int64_t> shape, ByteSpan bytes,
                          std::uint64_t numel);
    // The input's own shape (a capture's or an ETDump's tensor), which must
    // outlive the operand as the input's bytes must: a plan's two operands per
    // element held a copy each, two allocations of the many that made opening
    // 50,000 rows slow.
    static Operand tensorOver(ScalarType type, const std::vector<std::int64_t>& shape, ByteSpan bytes,
                              std::uint64_t numel);
    static Operand number(double value);

    // Empty for a scalar. Shared by copies of the operand, never copied.
    const std::vector<std::int64_t>& shape() const;
    // The shape `other` has (held or not, shared).
    void shapeAs(const Operand& other) { m_shape = other.m_shape; }
    // `shape`, not held: it must outlive the operand.
    void shapeOver(const std::vector<std::int64_t>& shape);

    // Elements [first, first + count) as float64.
    void decode(std::uint64_t first, std::size_t count, double* out) const;

private:
    std::shared_ptr<const std::vector<std::int64_t>> m_shape; // null: no dimension
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
