// Generated inputs beyond the grid (reference/inputs.h): specials, magnitudes, trained-weight
// spreads and non-finite values appear over seeds, only where the program's ops keep its values
// finite, and a program that would overflow under them gets the grid instead.
#include <gtest/gtest.h>

#include <cmath>

#include "compiler/ir/parser.h"
#include "reference/inputs.h"
#include "reference/reference.h"

namespace difftest {
namespace {

constexpr int kSeeds = 96;

// Every float a call computes (inputs may hold what their uses absorb).
bool all_finite(const Program& p, const std::map<std::string, Tensor>& inputs) {
  const reference::Evaluation ev = reference::evaluate(p, {}, inputs, reference::Mode::F64);
  for (const auto& b : p.bindings()) {
    if (!b.is_call()) continue;
    const Tensor& t = ev.values.at(b.result().get());
    if (!is_float(t.dtype())) continue;
    for (int64_t i = 0; i < t.numel(); ++i) {
      if (!std::isfinite(t.get(i))) return false;
    }
  }
  return true;
}

// exp(-inf) = 0 and a comparison with NaN is false.
const char* kAbsorbing = R"(program @absorbing() {
  %x: f32[64] = param
  %c: f32[64] = param
  %e: f32[64] = exp(%x)
  %zero: f32[] = const 0
  %b: bool[64] = less(%c, %zero)
  return %e, %b
})";

bool on_grid_magnitude(double x) { return std::fabs(x) <= 2 + 1.0 / 16; }

TEST(InputProfiles, SpecialValuesAndMagnitudesAppearAcrossSeedsAndTheGridStaysTheMost) {
  const Program p = parse_program(R"(program @wide() {
  %x: f32[8, 8] = param
  %y: f32[8, 8] = param
  %s: f32[8, 8] = add(%x, %y)
  return %s
})");
  int negative_zero = 0, subnormal = 0, tie = 0, large = 0, tiny_tensor = 0, grid_tensor = 0;
  for (uint64_t seed = 0; seed < kSeeds; ++seed) {
    for (const auto& [name, t] : reference::generate_inputs(p, {}, seed)) {
      double max_abs = 0;
      for (int64_t i = 0; i < t.numel(); ++i) {
        const double v = t.get(i);
        max_abs = std::max(max_abs, std::fabs(v));
        negative_zero += v == 0 && std::signbit(v);
        subnormal += v != 0 && std::fabs(v) < 0x1p-126;
        tie += std::fabs(v) == 0.5 || std::fabs(v) == 1.5;
      }
      large += max_abs >= 64;
      tiny_tensor += max_abs < 0x1p-6;
      grid_tensor += on_grid_magnitude(max_abs) && max_abs > 0.5;
    }
  }
  EXPECT_GT(negative_zero, 0);
  EXPECT_GT(subnormal, 0);
  EXPECT_GT(tie, 0);
  EXPECT_GT(large, 0);
  EXPECT_GT(tiny_tensor, 0);
  EXPECT_GT(grid_tensor, kSeeds);  // of 2 * kSeeds tensors, more than half keep the grid's range
}

TEST(InputProfiles, NonFiniteValuesGoOnlyWhereEveryUseMapsThemToFiniteResults) {
  // add passes anything through.
  const Program absorbing = parse_program(kAbsorbing);
  const Program passing = parse_program(R"(program @passing() {
  %x: f32[64] = param
  %y: f32[64] = param
  %s: f32[64] = add(%x, %y)
  return %s
})");
  int minus_inf = 0, other_in_exp = 0, nan_in_compare = 0, nonfinite_in_add = 0;
  for (uint64_t seed = 0; seed < kSeeds; ++seed) {
    const auto in = reference::generate_inputs(absorbing, {}, seed);
    for (int64_t i = 0; i < 64; ++i) {
      const double x = in.at("x").get(i);
      minus_inf += std::isinf(x) && x < 0;
      other_in_exp += std::isnan(x) || (std::isinf(x) && x > 0);
      nan_in_compare += std::isnan(in.at("c").get(i));
    }
    EXPECT_TRUE(all_finite(absorbing, in)) << "seed " << seed;
    for (const auto& [name, t] : reference::generate_inputs(passing, {}, seed)) {
      for (int64_t i = 0; i < t.numel(); ++i) nonfinite_in_add += !std::isfinite(t.get(i));
    }
  }
  EXPECT_GT(minus_inf, 0);
  EXPECT_EQ(other_in_exp, 0);
  EXPECT_GT(nan_in_compare, 0);
  EXPECT_EQ(nonfinite_in_add, 0);
}

TEST(InputProfiles, AProgramThatWouldOverflowUnderAWideProfileGetsTheGrid) {
  // exp of 2^12-scaled inputs overflows f32; the same parameter names under add get them.
  const Program overflowing = parse_program(R"(program @overflowing() {
  %x: f32[16] = param
  %k: f32[] = const 8
  %m: f32[16] = mul(%x, %k)
  %e: f32[16] = exp(%m)
  return %e
})");
  const Program linear = parse_program(R"(program @linear() {
  %x: f32[16] = param
  %k: f32[] = const 8
  %m: f32[16] = mul(%x, %k)
  return %m
})");
  int large_in_linear = 0;
  for (uint64_t seed = 0; seed < kSeeds; ++seed) {
    const auto in = reference::generate_inputs(overflowing, {}, seed);
    EXPECT_TRUE(all_finite(overflowing, in)) << "seed " << seed;
    double max_abs = 0;
    for (int64_t i = 0; i < 16; ++i) max_abs = std::max(max_abs, std::fabs(reference::generate_inputs(linear, {}, seed).at("x").get(i)));
    large_in_linear += max_abs >= 64;
  }
  EXPECT_GT(large_in_linear, 0);
}

TEST(InputProfiles, AWeightHasATrainedLayersSpread) {
  // linear's weight [N, K] = [16, 64]: values near 1/sqrt(64) = 1/8 rather than the grid's 2.
  const Program p = parse_program(R"(program @dense() {
  %x: f32[4, 64] = param
  %w: f32[16, 64] = param
  %y: f32[4, 16] = linear(%x, %w)
  return %y
})");
  int spread = 0;
  for (uint64_t seed = 0; seed < kSeeds; ++seed) {
    const Tensor w = reference::generate_inputs(p, {}, seed).at("w");
    double sum_sq = 0;
    for (int64_t i = 0; i < w.numel(); ++i) sum_sq += w.get(i) * w.get(i);
    const double rms = std::sqrt(sum_sq / static_cast<double>(w.numel()));
    spread += rms < 0.5;  // the grid's rms is about 1.2
  }
  EXPECT_GT(spread, kSeeds / 4);
  EXPECT_LT(spread, kSeeds);
}

TEST(InputProfiles, TheSameSeedGivesTheSameBytes) {
  const Program p = parse_program(kAbsorbing);
  for (uint64_t seed = 0; seed < 16; ++seed) {
    const auto a = reference::generate_inputs(p, {}, seed);
    const auto b = reference::generate_inputs(p, {}, seed);
    for (const auto& [name, t] : a) EXPECT_TRUE(t.same_bytes(b.at(name))) << name << " seed " << seed;
  }
}

}  // namespace
}  // namespace difftest
