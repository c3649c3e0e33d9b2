// Deterministic randomness. The algorithm is fixed (PCG32, O'Neill's pcg32_random_r with the
// pcg32_srandom_r seeding) and every derived draw is written here with integer arithmetic
// only, never std::*_distribution (whose output is implementation-defined). Same seed, same
// stream, on every machine.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace difftest {

class Pcg32 {
 public:
  Pcg32(uint64_t seed, uint64_t stream);
  uint32_t next();
  uint64_t next64();  // two outputs, high word first

 private:
  uint64_t state_ = 0;
  uint64_t inc_ = 0;
};

// The source of every random decision a generator makes. PcgChoices draws from PCG32; the
// tests implement it with RapidCheck generators, so the same generation code shrinks.
// Index 0 of every choice is the "simplest" one (what shrinking moves toward).
class ChoiceSource {
 public:
  virtual ~ChoiceSource() = default;
  virtual uint64_t below(uint64_t n) = 0;  // uniform in [0, n); n >= 1

  int64_t range(int64_t lo, int64_t hi);            // inclusive, lo <= hi
  bool chance(uint32_t numerator, uint32_t denominator);
  double unit();                                    // [0, 1) in steps of 2^-53
  size_t weighted(const std::vector<uint32_t>& weights);
  template <typename T>
  const T& pick(const std::vector<T>& xs) {
    return xs[static_cast<size_t>(below(xs.size()))];
  }
};

class PcgChoices : public ChoiceSource {
 public:
  explicit PcgChoices(uint64_t seed, uint64_t stream = 0) : rng_(seed, stream) {}
  uint64_t below(uint64_t n) override;

 private:
  Pcg32 rng_;
};

}  // namespace difftest
