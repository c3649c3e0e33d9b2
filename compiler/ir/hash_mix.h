// One step of a running hash (Boost's hash_combine): folds `v` into `h`.
#pragma once

#include <cstddef>

namespace difftest {

inline size_t hash_mix(size_t h, size_t v) { return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)); }

}  // namespace difftest
