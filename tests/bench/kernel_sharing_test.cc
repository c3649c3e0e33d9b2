// The kernel-sharing measurement of bench/campaign_bench (bench/kernel_sharing.h):
// what it counts as the same kernel.
#include "bench/kernel_sharing.h"
#include "tests/support/builtin.h"

#include <gtest/gtest.h>

namespace difftest::oracle {
namespace {

CheckOptions pipelines(std::vector<std::string> names) {
  CheckOptions o = testing::builtin_checks();
  o.levels = std::move(names);
  o.random_orders = 0;
  o.specialize = false;
  return o;
}

TEST(KernelSharing, ThePipelineCompiledTwiceHitsOnEveryKernelTheSecondTime) {
  const KernelSharing once = measure_kernel_sharing(3, 5, pipelines({"O2"}), GeneratorOptions{});
  const KernelSharing twice = measure_kernel_sharing(3, 5, pipelines({"O2", "O2"}), GeneratorOptions{});
  ASSERT_GT(once.kernels, 0);
  EXPECT_EQ(twice.programs, 3);
  EXPECT_EQ(twice.kernels, 2 * once.kernels);
  EXPECT_EQ(twice.hits_in_program, once.kernels + once.hits_in_program);
  EXPECT_EQ(twice.hit_lines_in_program, once.lines + once.hit_lines_in_program);
}

TEST(KernelSharing, AnotherLlvmLevelIsAnotherKernel) {
  // O2 and O3 differ in their loop passes too; the same loop passes at two LLVM levels differ in
  // the level alone, and the level changes the machine code.
  CheckOptions o = pipelines({});
  o.custom = {testing::custom_list(pipeline::Pipeline{"a", {"LegalizeOps"}, 1}),
              testing::custom_list(pipeline::Pipeline{"b", {"LegalizeOps"}, 2})};
  const KernelSharing s = measure_kernel_sharing(3, 5, o, GeneratorOptions{});
  ASSERT_GT(s.kernels, 0);
  o.custom[1].settings["llvm_opt_level"] = 1;
  const KernelSharing same = measure_kernel_sharing(3, 5, o, GeneratorOptions{});
  // Each level alone hits on its repeated kernels; at one level the second compile hits on all.
  EXPECT_EQ(same.hits_in_program, s.kernels / 2 + s.hits_in_program / 2);
  EXPECT_LT(s.hits_in_program, s.kernels / 2);
}

}  // namespace
}  // namespace difftest::oracle
