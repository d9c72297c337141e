#pragma once

#include <cstdint>
#include <optional>

namespace gapscope {

// Sizes in dumps come from untrusted files: every product and sum that turns them
// into byte counts or offsets goes through these helpers.
inline std::optional<std::uint64_t> checkedMul(std::uint64_t a, std::uint64_t b) {
    std::uint64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r))
        return std::nullopt;
    return r;
}

inline std::optional<std::uint64_t> checkedAdd(std::uint64_t a, std::uint64_t b) {
    std::uint64_t r = 0;
    if (__builtin_add_overflow(a, b, &r))
        return std::nullopt;
    return r;
}

} // namespace gapscope
