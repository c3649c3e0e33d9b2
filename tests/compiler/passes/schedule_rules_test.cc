// The four schedule rules together, in the order the O3 pipeline should run them, on every
// corpus program: each program compiled at LLVM O3 for every target this host runs agrees with
// its bounded reference.
#include <gtest/gtest.h>

#include <filesystem>

#include "compiler/ir/parser.h"
#include "tests/compiler/passes/schedule_testing.h"

namespace difftest {
namespace {

const std::vector<std::string> kRules = {"LegalizeOps", "ScheduleGEMV", "ScheduleMatmul", "ScheduleReduction",
                                         "ScheduleElementwise"};

class ScheduleRules : public ::testing::TestWithParam<std::string> {};

TEST_P(ScheduleRules, TogetherAgreeWithTheReferenceOnTheCorpus) {
  const target::Target& target = target::find_target(GetParam());
  if (!target::missing_host_features(target).empty()) GTEST_SKIP() << "this host cannot run " << target.name;
  pipeline::RunOptions options;
  options.context.target = &target;
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(std::string(DIFFTEST_SOURCE_DIR) + "/corpus")) {
    if (e.path().extension() == ".ir") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 10u);
  int rewritten = 0;
  for (const auto& f : files) {
    const Program p = parse_program_file(f.string());
    verify(p);
    const loop::Module plain = pipeline::run_passes(p, {"LegalizeOps"}, options).module;
    const loop::Module scheduled = pipeline::run_passes(p, kRules, options).module;
    EXPECT_EQ(scheduled.target, &target);
    rewritten += loop::print(plain) != loop::print(scheduled);
    EXPECT_TRUE(testing::compiled_agrees(p, kRules, 3, &target)) << f.filename();
  }
  EXPECT_GE(rewritten, 10) << "the rules should find work in most corpus programs";
}

INSTANTIATE_TEST_SUITE_P(Targets, ScheduleRules, ::testing::Values("avx512", "avx2"));

}  // namespace
}  // namespace difftest
