// Hashes that are the same on every machine (std::hash is not): FNV-1a 64 over bytes, for the
// identities that files and journals carry (a program's, a tensor's, a failure directory's), and
// one step of a running hash for in-memory tables.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace difftest {

inline constexpr uint64_t kFnv1aOffsetBasis = 0xcbf29ce484222325ULL;

// FNV-1a 64 of `bytes`, continuing from `h` (the offset basis for a fresh hash).
uint64_t fnv1a64(std::string_view bytes, uint64_t h = kFnv1aOffsetBasis);
uint64_t fnv1a64(const void* bytes, size_t n, uint64_t h);

// One step of a running hash (Boost's hash_combine): folds `v` into `h`.
inline size_t hash_mix(size_t h, size_t v) { return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)); }

}  // namespace difftest
