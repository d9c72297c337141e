#include "core/common/cpu_features.h"

namespace gapscope {

bool cpuHasAvx2() {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    static const bool have = __builtin_cpu_supports("avx2");
    return have;
#else
    return false;
#endif
}

bool cpuHasAvx512vl() {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    static const bool have = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
    return have;
#else
    return false;
#endif
}

} // namespace gapscope
