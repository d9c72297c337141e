#include "core/metrics/operand.h"

#include "core/etdump/element_decode.h"

namespace gapscope {

Operand Operand::tensor(ScalarType type, std::vector<std::int64_t> shape, ByteSpan bytes,
                        std::uint64_t numel) {
    Operand o;
    o.type = type;
    o.shape = std::move(shape);
    o.bytes = bytes;
    o.numel = numel;
    return o;
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

} // namespace gapscope
