#pragma once

#include <cstddef>

namespace gapscope {

// Folds a hash value into a running hash (boost's hash_combine): for the keys
// of the hash tables that replaced ordered maps on the opening path (event
// signatures, the Inspector's event groups, handle tuples).
inline void hashMix(std::size_t& h, std::size_t v) {
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
}

} // namespace gapscope
