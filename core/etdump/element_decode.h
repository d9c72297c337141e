#pragma once

#include "core/common/byte_span.h"
#include "core/etdump/scalar_type.h"

#include <cstddef>
#include <cstdint>

namespace gapscope {

// Converts elements [first, first + count) of a tensor's raw little-endian storage
// to float64, the common currency of every statistic and metric. The caller
// guarantees that `bytes` holds storageBytes(type, first + count) bytes at least.
// Formulas for the non-IEEE types are in docs/formats/etdump.md.
void decodeToDouble(ScalarType type, ByteSpan bytes, std::uint64_t first, std::size_t count, double* out);

// One element; a convenience for tests and tooltips.
double decodeElement(ScalarType type, ByteSpan bytes, std::uint64_t index);

// Exposed for tests: the small-float decoders behind the types above.
double halfToDouble(std::uint16_t bits);
double bfloat16ToDouble(std::uint16_t bits);
double float8ToDouble(ScalarType type, std::uint8_t bits);

} // namespace gapscope
