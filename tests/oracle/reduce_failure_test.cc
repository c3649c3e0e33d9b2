// Reduction of failing programs with faults injected: the culprit is the faulty pass, the
// reduced program is small, still fails the same way and passes without the fault; a
// reduction never slips to another failure kind. The expected culprits are the passes the
// faults live in (compiler/faults/faults.cc), not anything the reducer computed.
#include "oracle/reduce/reduce_failure.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "compiler/faults/faults.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/ops/op.h"
#include "fuzz/generator.h"
#include "tests/support/check_options.h"

namespace difftest::oracle {
namespace {

namespace fs = std::filesystem;

// No fault here hangs; a generous budget, so that a slow machine (a sanitizer build under
// load) never turns a compile into a timeout and the reduction into another failure.
CheckOptions options_for(const std::string& pipeline) { return testing::pipelines_only({pipeline}, 60); }

struct FaultCase {
  std::string fault;
  uint64_t seed;
  std::string pipeline;
  std::string culprit;  // the pass the fault lives in
  VerdictKind kind;
};

void PrintTo(const FaultCase& c, std::ostream* os) { *os << c.fault; }

class ReduceFault : public ::testing::TestWithParam<FaultCase> {};

TEST_P(ReduceFault, ReducesToAFewOpsBlamingTheFaultyPass) {
  const FaultCase& c = GetParam();
  const Program p = generate_program(c.seed);
  const CheckOptions options = testing::planting(options_for(c.pipeline), {c.fault});
  const auto failing = first_failing_run(p, options);
  ASSERT_TRUE(failing) << "seed " << c.seed << " must fail with " << c.fault << "\n" << print(p);
  ASSERT_EQ(failing->verdict.kind, c.kind) << failing->verdict.message;
  const fs::path dir = fs::temp_directory_path() / ("difftest_reduce_" + c.fault);
  fs::remove_all(dir);
  const ReductionReport r = reduce_failure(p, *failing, options, {}, dir.string());
  EXPECT_EQ(r.culprit.pass, c.culprit) << format_culprit(r.culprit);
  EXPECT_LE(r.reduced.program.num_calls(), 5u) << print(r.reduced.program);
  EXPECT_LT(r.reduced.program.num_calls(), p.num_calls() + (p.num_calls() == 1 ? 1u : 0u));
  EXPECT_EQ(FailureKey::of(r.reduced_failure), r.culprit.key) << r.reduced_failure.message;
  EXPECT_EQ(r.reduced_failure.kind, c.kind);
  EXPECT_TRUE(r.reproduces);
  EXPECT_TRUE(r.passes_without_faults) << "the reduced program must fail only because of the fault";
  EXPECT_GT(r.oracle_calls, 0);
  for (const char* f : {"repro.ir", "verdict.json", "report.md", "repro_tvmscript.py"}) {
    EXPECT_TRUE(fs::exists(dir / f)) << f;
  }
  const Program saved = parse_program(read_text_file((dir / "repro.ir").string()), "repro.ir");
  EXPECT_EQ(print(saved), print(r.reduced.program));
  const auto verdict = nlohmann::json::parse(read_text_file((dir / "verdict.json").string()));
  EXPECT_EQ(verdict["culprit"]["pass"], c.culprit);
  EXPECT_EQ(verdict["faults"], nlohmann::json::array({c.fault}));
  EXPECT_EQ(verdict["reproduces"], true);
  EXPECT_NE(read_text_file((dir / "report.md").string()).find(c.culprit), std::string::npos);
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Faults, ReduceFault,
                         ::testing::Values(FaultCase{"mul-drops-tail", 4, "O3", "LegalizeOps", VerdictKind::Mismatch},
                                           FaultCase{"legalize-null-deref", 1, "O1", "LegalizeOps",
                                                     VerdictKind::CompileCrash},
                                           FaultCase{"fold-constant-symbolic-shape", 17, "O3", "FoldConstant",
                                                     VerdictKind::Mismatch},
                                           FaultCase{"schedule-reduction-tail", 31, "O3", "ScheduleReduction",
                                                     VerdictKind::Mismatch},
                                           FaultCase{"decompose-window-off-by-one", 11, "O3", "DecomposeOps",
                                                     VerdictKind::Mismatch},
                                           // A codegen step, numbered after O3's passes: bisection names it too.
                                           FaultCase{"fma-contraction-drops-addend-sign", 4, "O3",
                                                     "ContractMultiplyAdds", VerdictKind::Mismatch}),
                         [](const auto& info) {
                           std::string n = info.param.fault;
                           for (auto& ch : n) ch = ch == '-' ? '_' : ch;
                           return n;
                         });

// Random pass orders repeat passes. With the culprit listed twice, the reduction must count from
// its first application (the one bisection found): else the limit "just before the culprit"
// already includes it, fails, and no candidate is ever accepted.
TEST(ReduceFault, ACulpritListedTwiceCountsFromItsFirstApplication) {
  const Program p = parse_program(R"(program @twice() {
  %a: f32[2, 37] = param
  %b: f32[2, 37] = neg(%a)
  %s: f32[2] = sum(%b, axes=[1])
  return %s
}
)",
                                  "twice.ir");
  CheckOptions options = testing::planting(options_for("O0"), {"schedule-reduction-tail"});
  options.levels.clear();
  options.custom = {
      testing::custom_list(pipeline::Pipeline{"custom", {"LegalizeOps", "ScheduleReduction", "ScheduleReduction"}, 2})};
  const auto failing = first_failing_run(p, options);
  ASSERT_TRUE(failing);
  ASSERT_EQ(failing->verdict.kind, VerdictKind::Mismatch) << failing->verdict.message;
  const ReductionReport r = reduce_failure(p, *failing, options, {}, "");
  EXPECT_EQ(r.culprit.pass, "ScheduleReduction") << format_culprit(r.culprit);
  EXPECT_EQ(r.reduced.program.num_calls(), 1u) << print(r.reduced.program);  // the sum alone
  EXPECT_EQ(r.reduced_failure.kind, VerdictKind::Mismatch);
}

// softmax without max subtraction fails only on large logits. Under input seed 1 %x is on the
// grid (reference/inputs.h: seed 0 gives it a tiny magnitude profile, which no logit scale
// brings past exp's range); a new parameter's grid inputs are small, so only a large constant
// can replace the scaling that makes them large.
TEST(ReduceFault, AFailureThatNeedsLargeValuesKeepsThemAsALargeSplat) {
  const Program p = parse_program(R"(program @logits() {
  %x: f32[2, 8] = param
  %k: f32[] = const 300
  %s: f32[2, 8] = mul(%x, %k)
  %y: f32[2, 8] = softmax(%s)
  return %y
}
)",
                                  "logits.ir");
  CheckOptions options = testing::planting(options_for("O2"), {"softmax-no-max-subtraction"});
  options.input_seed = 1;
  const auto failing = first_failing_run(p, options);
  ASSERT_TRUE(failing) << "logits up to 300 overflow exp in f32";
  const ReductionReport r = reduce_failure(p, *failing, options, {}, "");
  EXPECT_EQ(r.culprit.pass, "DecomposeOps") << format_culprit(r.culprit);
  EXPECT_EQ(r.reduced.program.num_calls(), 1u) << print(r.reduced.program);
  EXPECT_TRUE(r.reproduces);
  EXPECT_TRUE(r.passes_without_faults);
}

// mul-drops-tail gives a mismatch; codegen-stuck-loop hangs a kernel that is exp alone. At O2
// the exp is fused with the mul, so the program is a mismatch; bypassing the mul would leave a
// lone exp kernel that times out (at O3 a lone exp is unrolled: no loop to hang). The
// reduction must stay a mismatch. Also a static program's timeout keeps its empty binding.
TEST(ReduceNoSlippage, AMismatchDoesNotBecomeATimeout) {
  const Program p = parse_program(R"(program @slip() {
  %x: f32[4, 8] = param
  %w: f32[4, 8] = param
  %y: f32[4, 8] = mul(%x, %w)
  %z: f32[4, 8] = exp(%y)
  return %z
}
)",
                                  "slip.ir");
  CheckOptions options = testing::planting(options_for("O2"), {"mul-drops-tail", "codegen-stuck-loop"});
  const auto failing = first_failing_run(p, options);
  ASSERT_TRUE(failing);
  ASSERT_EQ(failing->verdict.kind, VerdictKind::Mismatch) << failing->verdict.message;
  const Program exp_alone = parse_program(R"(program @alone() {
  %x: f32[4, 8] = param
  %z: f32[4, 8] = exp(%x)
  return %z
}
)",
                                          "alone.ir");
  options.limits.cpu_seconds = 1;  // the slipped candidates hang: each costs this (CPU time: load does not matter)
  ASSERT_EQ(testing::check_pipeline(exp_alone, backends::builtin_pipeline(failing->variant.tested), {}, options).kind,
            VerdictKind::Timeout)
      << "the slippage this test guards against must be possible";
  const ReductionReport r = reduce_failure(p, *failing, options, {}, "");
  EXPECT_EQ(r.reduced_failure.kind, VerdictKind::Mismatch);
  EXPECT_TRUE(r.reproduces);
  bool has_mul = false;
  for (const auto& b : r.reduced.program.bindings()) has_mul = has_mul || (b.is_call() && b.op().name == "mul");
  EXPECT_TRUE(has_mul) << print(r.reduced.program);
}

}  // namespace
}  // namespace difftest::oracle
