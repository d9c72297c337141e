#include "core/etdump/scalar_type.h"

#include "core/common/checked_math.h"

namespace gapscope {

namespace {
constexpr ScalarTypeInfo kTypes[] = {
    {ScalarType::Byte, "uint8", 8, false},
    {ScalarType::Char, "int8", 8, false},
    {ScalarType::Short, "int16", 16, false},
    {ScalarType::Int, "int32", 32, false},
    {ScalarType::Long, "int64", 64, false},
    {ScalarType::Half, "float16", 16, true},
    {ScalarType::Float, "float32", 32, true},
    {ScalarType::Double, "float64", 64, true},
    {ScalarType::Bool, "bool", 8, false},
    {ScalarType::QInt8, "qint8", 8, false},
    {ScalarType::QUInt8, "quint8", 8, false},
    {ScalarType::QInt32, "qint32", 32, false},
    {ScalarType::BFloat16, "bfloat16", 16, true},
    {ScalarType::QUInt4x2, "quint4x2", 4, false},
    {ScalarType::QUInt2x4, "quint2x4", 2, false},
    {ScalarType::Bits16, "bits16", 16, false},
    {ScalarType::Float8E5M2, "float8_e5m2", 8, true},
    {ScalarType::Float8E4M3FN, "float8_e4m3fn", 8, true},
    {ScalarType::Float8E5M2FNUZ, "float8_e5m2fnuz", 8, true},
    {ScalarType::Float8E4M3FNUZ, "float8_e4m3fnuz", 8, true},
    {ScalarType::UInt16, "uint16", 16, false},
    {ScalarType::UInt32, "uint32", 32, false},
    {ScalarType::UInt64, "uint64", 64, false},
};
} // namespace

std::optional<ScalarTypeInfo> scalarTypeInfo(std::int8_t raw) {
    for (const auto& t : kTypes) {
        if (static_cast<std::int8_t>(t.type) == raw)
            return t;
    }
    return std::nullopt;
}

std::string scalarTypeName(std::int8_t raw) {
    if (auto info = scalarTypeInfo(raw))
        return info->name;
    return "unknown(" + std::to_string(raw) + ")";
}

std::optional<std::uint64_t> storageBytes(std::int8_t raw, std::uint64_t numel) {
    auto info = scalarTypeInfo(raw);
    if (!info)
        return std::nullopt;
    if (info->bitsPerElement >= 8)
        return checkedMul(numel, info->bitsPerElement / 8);
    // Packed sub-byte types: several elements per byte, the last byte partly used.
    const std::uint64_t perByte = 8 / info->bitsPerElement;
    return numel / perByte + (numel % perByte != 0 ? 1 : 0);
}

} // namespace gapscope
