#pragma once

#include <cstddef>
#include <functional>

namespace gapscope {

// Runs fn(i) for i in [0, n) on up to `threads` threads (0 = the machine's
// cores), each thread taking the next index: the caller and helpers from one
// process-wide pool (cores − 1 threads, started once). Blocks until all are
// done; fn must be safe to call concurrently for different i. A loop inside
// another runs serially on its thread, so nesting never exceeds the cores.
void parallelFor(std::size_t n, const std::function<void(std::size_t)>& fn, unsigned threads = 0);

// parallelFor over [0, n) in ranges of `block` indices: fn(begin, end) per
// range, for work too small per index to be handed out one at a time.
void parallelForRanges(std::size_t n, std::size_t block,
                       const std::function<void(std::size_t, std::size_t)>& fn);

// The thread count parallelFor uses for 0.
unsigned defaultThreadCount();

} // namespace gapscope
