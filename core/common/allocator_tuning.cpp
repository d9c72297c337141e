#include "core/common/allocator_tuning.h"

#include <cstdlib> // defines __GLIBC__ on glibc, which the test below needs

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace gapscope {

void tuneAllocator() {
#if defined(__GLIBC__)
    (void)mallopt(M_MXFAST, 0);
#endif
}

} // namespace gapscope
