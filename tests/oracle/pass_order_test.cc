// Pass-order differential: random valid pass orders and subsets drawn from the registry, on
// generated programs, agree with the reference; and the draw itself is valid and reproducible.
#include "backends/builtin/random_orders.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "compiler/pipeline/pass_manager.h"
#include "fuzz/generator.h"
#include "tests/support/campaign_size.h"
#include "tests/support/pass_testing.h"

namespace difftest::oracle {
namespace {

TEST(PassOrders, AreValidListsAndDependOnlyOnTheSeed) {
  std::set<std::string> seen;
  for (uint64_t seed = 0; seed < testing::campaign_size(200); ++seed) {
    PcgChoices a(seed), b(seed);
    const pipeline::Pipeline x = backends::random_pass_order(a, "o");
    const pipeline::Pipeline y = backends::random_pass_order(b, "o");
    EXPECT_EQ(x.passes, y.passes);
    EXPECT_EQ(x.llvm_opt_level, y.llvm_opt_level);
    EXPECT_EQ(std::count(x.passes.begin(), x.passes.end(), "LegalizeOps"), 1);
    bool lowered = false;
    for (const auto& name : x.passes) {
      const auto& info = pipeline::find_pass(name);
      if (info.kind == pipeline::PassKind::Lowering) lowered = true;
      EXPECT_EQ(info.kind == pipeline::PassKind::Loop, lowered && info.kind != pipeline::PassKind::Lowering) << name;
      seen.insert(name);
    }
  }
  for (const auto& p : pipeline::all_passes()) {
    if (p.kind == pipeline::PassKind::Codegen) {
      EXPECT_FALSE(seen.count(p.name)) << p.name << " is a codegen step: the fma setting draws it";
    } else {
      EXPECT_TRUE(seen.count(p.name)) << p.name << " never drawn";
    }
  }
}

// The acceptance test: 200 random orders on generated programs agree with the
// reference under the largest standard binding.
TEST(PassOrders, TwoHundredRandomOrdersAgreeWithTheReference) {
  const tolerance::Options opt = testing::probabilistic();
  const uint64_t seeds = testing::campaign_size(200);
  uint64_t compared = 0;
  for (uint64_t seed = 0; seed < seeds; ++seed) {
    GeneratorOptions g;
    g.max_ops = 8;
    const Program p = generate_program(seed, g);
    PcgChoices choices(seed, 7);
    const pipeline::Pipeline order = backends::random_pass_order(choices, "order");
    const sym::Env env = reference::standard_bindings(p).back();
    const auto inputs = reference::generate_inputs(p, env, 1);
    const auto bounds = tolerance::bound_program(p, env, inputs, opt);
    if (bounds.invalid) continue;
    const runtime::Executable exe = pipeline::compile(p, order);
    const auto c = tolerance::compare_outputs(p, bounds, exe.run(inputs, env), opt);
    EXPECT_TRUE(c.passed()) << "seed " << seed << " with --passes " << ::testing::PrintToString(order.passes)
                            << " LLVM -O" << order.llvm_opt_level << "\n"
                            << testing::describe_failures(c);
    ++compared;
  }
  EXPECT_GT(compared, seeds * 19 / 20);  // few generated programs are invalid
}

}  // namespace
}  // namespace difftest::oracle
