#pragma once

#include <cstdint>
#include <limits>
#include <optional>

namespace gapscope {

// The integer a JSON value holds when it fits a signed 64-bit integer exactly;
// nothing for anything else. get<std::int64_t>() would turn 2^64 − 1 (which
// JSON parsers keep unsigned) into −1, a valid-looking debug handle sentinel.
template <typename Json> std::optional<std::int64_t> jsonInt64(const Json& v) {
    if (v.is_number_unsigned()) {
        const auto u = v.template get<std::uint64_t>();
        if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
            return std::nullopt;
        return static_cast<std::int64_t>(u);
    }
    if (v.is_number_integer())
        return v.template get<std::int64_t>();
    return std::nullopt;
}

} // namespace gapscope
