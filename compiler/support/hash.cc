#include "compiler/support/hash.h"

namespace difftest {

uint64_t fnv1a64(const void* bytes, size_t n, uint64_t h) {
  const auto* b = static_cast<const unsigned char*>(bytes);
  for (size_t i = 0; i < n; ++i) {
    h ^= b[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

uint64_t fnv1a64(std::string_view bytes, uint64_t h) { return fnv1a64(bytes.data(), bytes.size(), h); }

}  // namespace difftest
