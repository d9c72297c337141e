#include "core/metrics/operand.h"

#include "core/etdump/element_decode.h"

#include <algorithm>
#include <charconv>

namespace gapscope {

Operand Operand::tensor(ScalarType type, std::vector<std::int64_t> shape, ByteSpan bytes,
                        std::uint64_t numel) {
    Operand o;
    o.type = type;
    o.m_shape = std::make_shared<const std::vector<std::int64_t>>(std::move(shape));
    o.bytes = bytes;
    o.numel = numel;
    return o;
}

Operand Operand::tensorOver(ScalarType type, const std::vector<std::int64_t>& shape, ByteSpan bytes,
                            std::uint64_t numel) {
    Operand o;
    o.type = type;
    o.shapeOver(shape);
    o.bytes = bytes;
    o.numel = numel;
    return o;
}

const std::vector<std::int64_t>& Operand::shape() const {
    static const std::vector<std::int64_t> none;
    return m_shape ? *m_shape : none;
}

void Operand::shapeOver(const std::vector<std::int64_t>& shape) {
    // An empty owner: the pointer without a count (shared_ptr's aliasing constructor).
    m_shape = std::shared_ptr<const std::vector<std::int64_t>>(std::shared_ptr<void>(), &shape);
}

Operand Operand::number(double value) {
    Operand o;
    o.is_scalar = true;
    o.scalar = value;
    o.numel = 1;
    return o;
}

void Operand::decode(std::uint64_t first, std::size_t count, double* out) const {
    if (is_scalar) {
        for (std::size_t i = 0; i < count; ++i)
            out[i] = scalar;
        return;
    }
    decodeToDouble(type, bytes, first, count, out);
}

std::vector<std::uint64_t> rowMajorStrides(const std::vector<std::int64_t>& shape) {
    std::vector<std::uint64_t> s(shape.size(), 1);
    for (std::size_t d = shape.size(); d-- > 1;)
        s[d - 1] = s[d] * static_cast<std::uint64_t>(std::max<std::int64_t>(shape[d], 1));
    return s;
}

std::string shapeText(const std::vector<std::int64_t>& shape) {
    if (shape.empty())
        return "scalar";
    // Written in place, one string built at the end: a shape is made for every
    // row of a comparison, and a temporary string per dimension made it four
    // times slower.
    char buffer[24 * 8];
    std::string s;
    std::size_t used = 0;
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (used + 21 > sizeof buffer) { // 'x' and 20 digits may not fit: flush
            s.append(buffer, used);
            used = 0;
        }
        if (i)
            buffer[used++] = 'x';
        used = static_cast<std::size_t>(std::to_chars(buffer + used, buffer + sizeof buffer, shape[i]).ptr -
                                        buffer);
    }
    s.append(buffer, used);
    return s;
}

std::vector<std::int64_t> withoutOnes(const std::vector<std::int64_t>& shape) {
    std::vector<std::int64_t> out;
    for (auto d : shape)
        if (d != 1)
            out.push_back(d);
    return out;
}

std::vector<std::int64_t> unravelIndex(std::uint64_t flat, const std::vector<std::int64_t>& shape) {
    std::vector<std::int64_t> idx(shape.size());
    for (std::size_t d = shape.size(); d-- > 0;) {
        const auto extent = static_cast<std::uint64_t>(std::max<std::int64_t>(shape[d], 1));
        idx[d] = static_cast<std::int64_t>(flat % extent);
        flat /= extent;
    }
    return idx;
}

} // namespace gapscope
