#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace gapscope {

// Every reader refuses JSON nested deeper than this before parsing it: the
// documents Gapscope reads nest a few levels (torch.export graphs a dozen or
// so), while a hostile 100,000-deep one overflows the stack of any recursive
// walk or copy of the parsed value.
constexpr std::size_t kMaxJsonDepth = 512;

// The byte offset of the first '[' or '{' past `maxDepth` levels of nesting
// (outside strings), or nothing. Linear, no allocation.
std::optional<std::size_t> jsonTooDeep(std::string_view text, std::size_t maxDepth = kMaxJsonDepth);

} // namespace gapscope
