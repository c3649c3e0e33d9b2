// Generated programs are valid by construction: they verify, and the reference computes
// finite values for them under every standard binding (no NaN/Inf, nothing beyond the range
// of a dtype). The invalid share is printed and must stay below 1%.
#include <gtest/gtest.h>

#include <chrono>

#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "fuzz/generator.h"
#include "reference/inputs.h"
#include "reference/summary.h"
#include "tests/support/campaign_size.h"
#include "tolerance/bounds.h"

namespace difftest {
namespace {

// Generates seeds 0..n-1 with `options`; every program must verify, and fewer than 1% may be
// invalid under a standard binding.
void expect_valid(uint64_t n, const GeneratorOptions& options) {
  tolerance::Options opt;
  opt.mode = tolerance::BoundMode::Probabilistic;
  int invalid = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (uint64_t seed = 0; seed < n; ++seed) {
    const Program p = generate_program(seed, options);
    ASSERT_NO_THROW(verify(p)) << "seed " << seed << "\n" << print(p);
    for (const auto& env : reference::standard_bindings(p)) {
      const auto inputs = reference::generate_inputs(p, env, 0);
      const auto bp = tolerance::bound_program(p, env, inputs, opt);
      if (bp.invalid) {
        ++invalid;
        std::printf("seed %llu invalid under %s: %s\n", static_cast<unsigned long long>(seed),
                    reference::binding_str(env).c_str(), bp.invalid_reason.c_str());
        break;
      }
    }
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%llu programs, %d invalid (%.2f%%), %.1f s\n", static_cast<unsigned long long>(n), invalid,
              100.0 * invalid / static_cast<double>(n), secs);
  EXPECT_LT(invalid * 100, static_cast<int>(n)) << "more than 1% of generated programs are invalid";
}

TEST(GeneratorValidity, ProgramsVerifyAndEvaluateFinitely) { expect_valid(testing::campaign_size(2000), {}); }

// Programs made of motifs only (fuzz/motifs.h), in ONNX Runtime's float dtypes.
TEST(GeneratorValidity, MotifProgramsVerifyAndEvaluateFinitely) {
  GeneratorOptions motifs;
  motifs.motif_percent = 100;
  motifs.float_dtypes = {DType::f32, DType::f16, DType::f64};
  expect_valid(testing::campaign_size(200), motifs);
}

}  // namespace
}  // namespace difftest
