#pragma once

namespace gapscope {

// Whether this machine runs AVX2 code (checked once). The kernels with an AVX2
// path (metrics sums, the closed form's sorts and sums) pick it at run time, so
// one build serves every x86-64 machine; elsewhere it is false.
bool cpuHasAvx2();
// Whether it runs AVX-512 code on 256-bit vectors too (AVX512F and AVX512VL):
// thirty-two vector registers instead of sixteen.
bool cpuHasAvx512vl();

} // namespace gapscope
