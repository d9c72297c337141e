#pragma once

#include <cstddef>
#include <cstdint>

namespace gapscope {

// A read-only view of bytes owned elsewhere (a mapped file, a vector).
// C++17 has no std::span; this is the minimum the readers need.
struct ByteSpan {
    const std::uint8_t* data = nullptr;
    std::size_t size = 0;

    bool empty() const { return size == 0; }
    // Sub-range; the caller has checked that [offset, offset + count) lies inside.
    ByteSpan subspan(std::size_t offset, std::size_t count) const { return {data + offset, count}; }
};

} // namespace gapscope
