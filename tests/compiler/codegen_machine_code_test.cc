// The machine-code effort (JitOptions::machine_code) changes how much work LLVM's code generator
// does, never a result: every level, with either effort, contracts a*b+c into one FMA exactly when
// the variant allows contraction, and gives the same values otherwise. Expected values come from
// std::fma and plain float arithmetic, not from the code under test.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "compiler/codegen/jit.h"
#include "compiler/loop/parser.h"
#include "tests/support/jit_util.h"

namespace difftest::codegen {
namespace {

constexpr const char* kMultiplyAdd = R"(func @mad(X: f32[n], Y: f32[n], Z: f32[n], Out: f32[n]) dims(n) {
  for (i, 0, n) serial {
    Out[i] = ((X[i] * Y[i]) + Z[i])
  }
}
)";

struct MadOperands {
  std::vector<float> x, y, z;
};

// Products whose exact value a second rounding changes: (1 + e)^2 - (1 + 2e) is e^2 exactly with
// one rounding and 0 with two, for e = 2^-12; the rest are random.
MadOperands mad_operands(size_t n) {
  MadOperands o;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> value(-4.0f, 4.0f);
  const float e = std::ldexp(1.0f, -12);
  o.x.push_back(1 + e);
  o.y.push_back(1 + e);
  o.z.push_back(-(1 + 2 * e));
  while (o.x.size() < n) {
    o.x.push_back(value(rng));
    o.y.push_back(value(rng));
    o.z.push_back(value(rng));
  }
  return o;
}

// How many elements equal the single-rounding result and how many the two-rounding one.
struct Roundings {
  int64_t fused = 0, separate = 0;
};

const loop::Module& multiply_add() {
  static const loop::Module m = testing::for_this_host(loop::parse_module(kMultiplyAdd, "mad.loop"));
  return m;
}

Roundings run(MadOperands o, const JitOptions& options) {
  const auto n = static_cast<int64_t>(o.x.size());
  const JitModule jit(multiply_add(), options);
  std::vector<float> out(o.x.size());
  void* buffers[] = {o.x.data(), o.y.data(), o.z.data(), out.data()};
  jit.kernel("mad")(buffers, &n);
  Roundings r;
  for (size_t i = 0; i < out.size(); ++i) {
    const float product = o.x[i] * o.y[i];  // rounded to f32: the tests build without contraction
    r.fused += out[i] == std::fma(o.x[i], o.y[i], o.z[i]);
    r.separate += out[i] == product + o.z[i];
  }
  return r;
}

bool host_has_fma() { return target::has_feature(*multiply_add().target, "fma"); }

TEST(MachineCode, ContractionFollowsTheVariantWhateverTheEffort) {
  if (!host_has_fma()) GTEST_SKIP() << "the host's target has no FMA instructions";
  constexpr size_t n = 257;
  const MadOperands o = mad_operands(n);
  for (const MachineCode effort : {MachineCode::Optimized, MachineCode::Fast}) {
    for (int level = 0; level <= 3; ++level) {
      SCOPED_TRACE(
          fmt::format("LLVM level {}, {} machine code", level, effort == MachineCode::Fast ? "fast" : "optimized"));
      const Roundings contracted = run(o, JitOptions{level, /*fma_contraction=*/true, effort});
      EXPECT_EQ(contracted.fused, n);
      const Roundings kept_apart = run(o, JitOptions{level, /*fma_contraction=*/false, effort});
      EXPECT_EQ(kept_apart.separate, n);
      // The crafted first element tells the two apart, so neither count can pass by accident.
      EXPECT_LT(contracted.separate, n);
      EXPECT_LT(kept_apart.fused, n);
    }
  }
}

}  // namespace
}  // namespace difftest::codegen
