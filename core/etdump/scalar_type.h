#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace gapscope {

// executorch_flatbuffer.ScalarType, as stored in Tensor.scalar_type (an int8).
// Values outside this list are kept raw and reported as unknown.
enum class ScalarType : std::int8_t {
    Byte = 0,
    Char = 1,
    Short = 2,
    Int = 3,
    Long = 4,
    Half = 5,
    Float = 6,
    Double = 7,
    Bool = 11,
    QInt8 = 12,
    QUInt8 = 13,
    QInt32 = 14,
    BFloat16 = 15,
    QUInt4x2 = 16,
    QUInt2x4 = 17,
    Bits16 = 22,
    Float8E5M2 = 23,
    Float8E4M3FN = 24,
    Float8E5M2FNUZ = 25,
    Float8E4M3FNUZ = 26,
    UInt16 = 27,
    UInt32 = 28,
    UInt64 = 29,
};

struct ScalarTypeInfo {
    ScalarType type;
    const char* name;        // lower-case ExecuTorch/PyTorch name: "float32", "uint8", ...
    unsigned bitsPerElement; // 4 and 2 for the packed sub-byte types
    bool isFloatingPoint;
};

// nullopt for values that are not ScalarType members (including the reserved
// complex and BITS1x8..BITS8 numbers, which no reader can decode).
std::optional<ScalarTypeInfo> scalarTypeInfo(std::int8_t raw);

// "float32" for known values, "unknown(99)" otherwise.
std::string scalarTypeName(std::int8_t raw);

// Bytes needed for numel elements (packed types round up); nullopt on overflow
// or unknown dtype.
std::optional<std::uint64_t> storageBytes(std::int8_t raw, std::uint64_t numel);

} // namespace gapscope
