#pragma once

#include <cstdint>
#include <functional>

namespace gapscope {

// Called by long-running parsers with (units done, units total). Returning false
// asks the parser to stop; it then returns an Error with ErrorCode::Cancelled.
// An empty function means "no progress wanted".
using ProgressFn = std::function<bool(std::uint64_t done, std::uint64_t total)>;

} // namespace gapscope
