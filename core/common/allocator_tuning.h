#pragma once

namespace gapscope {

// Turns glibc's fastbins off for this process (mallopt(M_MXFAST, 0)); small
// blocks are still served by the per-thread cache. Opening a session frees many
// small blocks (row names, handle lists, per-row maps) between allocations of
// more than a kilobyte, and each such allocation first consolidates the
// fastbins: malloc_consolidate and unlink_chunk were 19% of the profile of
// opening a 50,000-op session. Without fastbins opening is 17% faster, parsing
// an ETDump 14%, and no benchmark slower (docs/performance.md, issue 29).
// Called first thing by the app's, the CLI's and the benchmarks' main(); a
// no-op on a C library other than glibc.
void tuneAllocator();

} // namespace gapscope
