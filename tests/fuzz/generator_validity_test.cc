// Generated programs are valid by construction: they verify, and the reference computes
// finite values for them under every standard binding (no NaN/Inf, nothing beyond the range
// of a dtype). The invalid share is printed and must stay below 1%.
#include <gtest/gtest.h>

#include <chrono>
#include <map>

#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "fuzz/generator.h"
#include "reference/inputs.h"
#include "reference/summary.h"
#include "tolerance/bounds.h"
#include "tests/support/campaign_size.h"

namespace difftest {
namespace {

TEST(GeneratorValidity, ProgramsVerifyAndEvaluateFinitely) {
  const uint64_t n = testing::campaign_size(2000);
  tolerance::Options opt;
  opt.mode = tolerance::BoundMode::Probabilistic;
  int invalid = 0;
  std::map<std::string, int> reasons;
  const auto t0 = std::chrono::steady_clock::now();
  for (uint64_t seed = 0; seed < n; ++seed) {
    const Program p = generate_program(seed);
    ASSERT_NO_THROW(verify(p)) << "seed " << seed << "\n" << print(p);
    for (const auto& env : reference::standard_bindings(p)) {
      const auto inputs = reference::generate_inputs(p, env, 0);
      const auto bp = tolerance::bound_program(p, env, inputs, opt);
      if (bp.invalid) {
        ++invalid;
        ++reasons[bp.invalid_reason.substr(0, 60)];
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

}  // namespace
}  // namespace difftest
