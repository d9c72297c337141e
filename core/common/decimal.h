#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string_view>

namespace gapscope {

// A non-negative decimal integer that is all of `text`: digits only (no sign,
// space or prefix) and within int64. Instruction ids in JSON keys, handle lists,
// `__debugID_<N>` suffixes.
inline std::optional<std::int64_t> parseDecimal(std::string_view text) {
    if (text.empty() || text.front() < '0' || text.front() > '9')
        return std::nullopt;
    std::int64_t v = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (error != std::errc() || end != text.data() + text.size())
        return std::nullopt;
    return v;
}

} // namespace gapscope
