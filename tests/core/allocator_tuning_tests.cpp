// tuneAllocator (core/common/allocator_tuning.h) turns glibc's fastbins off: a
// freed small block no longer waits in a fastbin (mallinfo2's fsmblks) for the
// next large allocation to consolidate it. Its first version was a no-op (its
// glibc test came before any glibc header), which only a benchmark showed.
#include "core/common/allocator_tuning.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <vector>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GAPSCOPE_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define GAPSCOPE_ASAN 1
#endif

namespace {

// Bytes freeing many small blocks puts in fastbins (more than the per-thread
// cache keeps: the rest go to the fastbins when they are on). Counted as a
// difference: mallinfo2 sums every arena, and mallopt consolidates the main
// arena alone, so other threads' arenas (the readers' side tasks of earlier
// tests; the app tunes before it starts any) may hold fastbin blocks of
// their own from before.
[[maybe_unused]] std::size_t fastbinBytesAfterFreeingSmallBlocks() {
#if defined(__GLIBC__)
    const std::size_t before = mallinfo2().fsmblks;
    std::vector<void*> blocks;
    for (int i = 0; i < 2000; ++i)
        blocks.push_back(std::malloc(24));
    for (void* b : blocks)
        std::free(b);
    const std::size_t after = mallinfo2().fsmblks;
    return after > before ? after - before : 0;
#else
    return 0;
#endif
}

} // namespace

TEST_CASE("tuneAllocator turns glibc's fastbins off", "[allocator]") {
#if !defined(__GLIBC__) || defined(GAPSCOPE_ASAN)
    WARN("glibc's own allocator only (ASan replaces it): not checked here");
#else
    gapscope::tuneAllocator();
    CHECK(fastbinBytesAfterFreeingSmallBlocks() == 0);
    // The same blocks with fastbins on (glibc's default, 128 bytes) land in them:
    // the check above can fail.
    (void)mallopt(M_MXFAST, 128);
    CHECK(fastbinBytesAfterFreeingSmallBlocks() > 0);
    gapscope::tuneAllocator();
#endif
}
