#pragma once

#include <cstddef>
#include <functional>

namespace gapscope {

// Items 0 … n−1 produced on every core and consumed in index order on the
// calling thread, between its own productions: the cores never wait for a
// slow consumer or for the slowest of a batch (forEachStep loaded a window of
// steps, then visited them, and ran at 1.35 cores of 2). `produce(i)` may run
// on any thread, each index once, in increasing order of start; it keeps its
// item where `consume(i)` finds it. At most `window` items are produced and not
// yet consumed. `consume` returning false stops the pipeline: nothing more is
// consumed, and no new production starts. Returns how many were consumed.
std::size_t orderedPipeline(std::size_t n, std::size_t window,
                            const std::function<void(std::size_t)>& produce,
                            const std::function<bool(std::size_t)>& consume);

} // namespace gapscope
