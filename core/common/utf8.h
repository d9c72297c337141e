#pragma once

#include <cstddef>
#include <string_view>

namespace gapscope {

// The length of the well-formed UTF-8 sequence at `i` (1 for ASCII), or 0:
// RFC 3629, no overlong forms, no surrogates, nothing past U+10FFFF.
std::size_t utf8Length(std::string_view s, std::size_t i);

} // namespace gapscope
