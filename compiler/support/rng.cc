#include "compiler/support/rng.h"

#include "compiler/support/diagnostics.h"

namespace difftest {

Pcg32::Pcg32(uint64_t seed, uint64_t stream) {
  inc_ = (stream << 1u) | 1u;
  next();
  state_ += seed;
  next();
}

uint32_t Pcg32::next() {
  const uint64_t old = state_;
  state_ = old * 6364136223846793005ULL + inc_;
  const auto xorshifted = static_cast<uint32_t>(((old >> 18u) ^ old) >> 27u);
  const auto rot = static_cast<uint32_t>(old >> 59u);
  return (xorshifted >> rot) | (xorshifted << ((32u - rot) & 31u));
}

uint64_t Pcg32::next64() {
  const uint64_t hi = next();
  return (hi << 32) | next();
}

uint64_t PcgChoices::below(uint64_t n) {
  DT_CHECK(n >= 1, "ChoiceSource::below(0)");
  // Rejection sampling: accept r >= 2^64 mod n, so r % n is exactly uniform.
  const uint64_t threshold = (0 - n) % n;
  while (true) {
    const uint64_t r = rng_.next64();
    if (r >= threshold) return r % n;
  }
}

int64_t ChoiceSource::range(int64_t lo, int64_t hi) {
  DT_CHECK(lo <= hi, "ChoiceSource::range with lo > hi");
  const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  if (span == UINT64_MAX) return static_cast<int64_t>(below(UINT64_MAX));
  return static_cast<int64_t>(static_cast<uint64_t>(lo) + below(span + 1));
}

bool ChoiceSource::chance(uint32_t numerator, uint32_t denominator) {
  DT_CHECK(denominator > 0, "ChoiceSource::chance with denominator 0");
  return below(denominator) < numerator;
}

double ChoiceSource::unit() { return static_cast<double>(below(uint64_t{1} << 53)) * 0x1.0p-53; }

size_t ChoiceSource::weighted(const std::vector<uint32_t>& weights) {
  uint64_t total = 0;
  for (uint32_t w : weights) total += w;
  DT_CHECK(total > 0, "ChoiceSource::weighted with all-zero weights");
  uint64_t r = below(total);
  for (size_t i = 0; i < weights.size(); ++i) {
    if (r < weights[i]) return i;
    r -= weights[i];
  }
  return weights.size() - 1;
}

}  // namespace difftest
