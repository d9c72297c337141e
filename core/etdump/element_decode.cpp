#include "core/etdump/element_decode.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace gapscope {

namespace {

template <typename T> T load(const std::uint8_t* p) {
    T v;
    std::memcpy(&v, p, sizeof(T)); // unaligned-safe; every target we read is little-endian
    return v;
}

enum class SpecialValues {
    Ieee,    // all-ones exponent: infinity (mantissa 0) or NaN
    FiniteN, // "fn": only all-ones exponent and mantissa is NaN, no infinity
    Fnuz,    // "fnuz": the negative-zero pattern is the only NaN, no infinity
};

// A sign bit, expBits exponent bits and mantBits mantissa bits, with subnormals.
double decodeMinifloat(std::uint32_t bits, int expBits, int mantBits, int bias, SpecialValues special) {
    const std::uint32_t signMask = 1u << (expBits + mantBits);
    const std::uint32_t expAllOnes = (1u << expBits) - 1;
    const std::uint32_t mantAllOnes = (1u << mantBits) - 1;
    const bool negative = (bits & signMask) != 0;
    const std::uint32_t exponent = (bits >> mantBits) & expAllOnes;
    const std::uint32_t mantissa = bits & mantAllOnes;

    if (special == SpecialValues::Fnuz && bits == signMask)
        return std::numeric_limits<double>::quiet_NaN();
    if (special == SpecialValues::Ieee && exponent == expAllOnes) {
        if (mantissa != 0)
            return std::numeric_limits<double>::quiet_NaN();
        return negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
    }
    if (special == SpecialValues::FiniteN && exponent == expAllOnes && mantissa == mantAllOnes)
        return std::numeric_limits<double>::quiet_NaN();

    double magnitude;
    if (exponent == 0)
        magnitude = std::ldexp(static_cast<double>(mantissa), 1 - bias - mantBits);
    else
        magnitude = std::ldexp(static_cast<double>((1u << mantBits) | mantissa),
                               static_cast<int>(exponent) - bias - mantBits);
    return negative ? -magnitude : magnitude;
}

template <typename T, typename F>
void decodeLoop(const std::uint8_t* base, std::uint64_t first, std::size_t count, double* out, F convert) {
    const std::uint8_t* p = base + first * sizeof(T);
    for (std::size_t i = 0; i < count; ++i, p += sizeof(T))
        out[i] = convert(load<T>(p));
}

template <typename T>
void decodePlain(const std::uint8_t* base, std::uint64_t first, std::size_t count, double* out) {
    decodeLoop<T>(base, first, count, out, [](T v) { return static_cast<double>(v); });
}

// float32, the common case, eight at a time through vector types (one
// conversion instruction per pair or quad where a plain loop stays scalar at
// -O2); exactly static_cast<double> of each.
void decodeFloat(const std::uint8_t* base, std::uint64_t first, std::size_t count, double* out) {
    using F8 = float __attribute__((vector_size(32)));
    using D8 = double __attribute__((vector_size(64)));
    const std::uint8_t* p = base + first * sizeof(float);
    std::size_t i = 0;
    for (; i + 8 <= count; i += 8, p += 8 * sizeof(float)) {
        F8 f;
        std::memcpy(&f, p, sizeof f);
        const D8 d = __builtin_convertvector(f, D8);
        std::memcpy(out + i, &d, sizeof d);
    }
    for (; i < count; ++i, p += sizeof(float))
        out[i] = static_cast<double>(load<float>(p));
}

// Sub-byte packing: element i lives in byte i / perByte, lowest bits first
// (PyTorch's quint4x2 / quint2x4 convention).
void decodePacked(const std::uint8_t* base, std::uint64_t first, std::size_t count, double* out,
                  unsigned bitsPer) {
    const unsigned perByte = 8 / bitsPer;
    const unsigned mask = (1u << bitsPer) - 1;
    for (std::size_t i = 0; i < count; ++i) {
        const std::uint64_t index = first + i;
        const unsigned shift = static_cast<unsigned>(index % perByte) * bitsPer;
        out[i] = static_cast<double>((base[index / perByte] >> shift) & mask);
    }
}

} // namespace

double halfToDouble(std::uint16_t bits) {
    return decodeMinifloat(bits, 5, 10, 15, SpecialValues::Ieee);
}

double bfloat16ToDouble(std::uint16_t bits) {
    const std::uint32_t widened = static_cast<std::uint32_t>(bits) << 16;
    float f;
    std::memcpy(&f, &widened, sizeof f);
    return static_cast<double>(f);
}

double float8ToDouble(ScalarType type, std::uint8_t bits) {
    switch (type) {
    case ScalarType::Float8E5M2: return decodeMinifloat(bits, 5, 2, 15, SpecialValues::Ieee);
    case ScalarType::Float8E4M3FN: return decodeMinifloat(bits, 4, 3, 7, SpecialValues::FiniteN);
    case ScalarType::Float8E5M2FNUZ: return decodeMinifloat(bits, 5, 2, 16, SpecialValues::Fnuz);
    case ScalarType::Float8E4M3FNUZ: return decodeMinifloat(bits, 4, 3, 8, SpecialValues::Fnuz);
    default: return std::numeric_limits<double>::quiet_NaN();
    }
}

void decodeToDouble(ScalarType type, ByteSpan bytes, std::uint64_t first, std::size_t count, double* out) {
    const std::uint8_t* b = bytes.data;
    switch (type) {
    case ScalarType::Byte:
    case ScalarType::QUInt8: decodePlain<std::uint8_t>(b, first, count, out); return;
    case ScalarType::Char:
    case ScalarType::QInt8: decodePlain<std::int8_t>(b, first, count, out); return;
    case ScalarType::Short: decodePlain<std::int16_t>(b, first, count, out); return;
    case ScalarType::Int:
    case ScalarType::QInt32: decodePlain<std::int32_t>(b, first, count, out); return;
    case ScalarType::Long: decodePlain<std::int64_t>(b, first, count, out); return;
    case ScalarType::Float: decodeFloat(b, first, count, out); return;
    case ScalarType::Double: std::memcpy(out, b + first * sizeof(double), count * sizeof(double)); return;
    case ScalarType::Bits16:
    case ScalarType::UInt16: decodePlain<std::uint16_t>(b, first, count, out); return;
    case ScalarType::UInt32: decodePlain<std::uint32_t>(b, first, count, out); return;
    case ScalarType::UInt64: decodePlain<std::uint64_t>(b, first, count, out); return;
    case ScalarType::Bool:
        decodeLoop<std::uint8_t>(b, first, count, out, [](std::uint8_t v) { return v != 0 ? 1.0 : 0.0; });
        return;
    case ScalarType::Half: decodeLoop<std::uint16_t>(b, first, count, out, halfToDouble); return;
    case ScalarType::BFloat16: decodeLoop<std::uint16_t>(b, first, count, out, bfloat16ToDouble); return;
    case ScalarType::Float8E5M2:
    case ScalarType::Float8E4M3FN:
    case ScalarType::Float8E5M2FNUZ:
    case ScalarType::Float8E4M3FNUZ:
        decodeLoop<std::uint8_t>(b, first, count, out,
                                 [type](std::uint8_t v) { return float8ToDouble(type, v); });
        return;
    case ScalarType::QUInt4x2: decodePacked(b, first, count, out, 4); return;
    case ScalarType::QUInt2x4: decodePacked(b, first, count, out, 2); return;
    }
    for (std::size_t i = 0; i < count; ++i)
        out[i] = std::numeric_limits<double>::quiet_NaN();
}

double decodeElement(ScalarType type, ByteSpan bytes, std::uint64_t index) {
    double v = 0;
    decodeToDouble(type, bytes, index, 1, &v);
    return v;
}

} // namespace gapscope
