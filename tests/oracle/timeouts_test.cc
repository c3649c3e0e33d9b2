// Timeouts that hold on a busy machine: a compile or run is limited by the CPU time it uses, a
// timeout stands only when a rerun with four times the budget also times out (both tries are
// recorded), the caller's deadline cancels a check rather than failing it, and reductions stay
// within their time limit. The hangs here come from the codegen-stuck-loop fault (an exp
// kernel whose loop never advances), the slow-but-finishing work from a naive 512^3 matmul.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "compiler/faults/faults.h"
#include "compiler/ir/parser.h"
#include "oracle/reduce/bisect.h"
#include "oracle/check/check.h"
#include "oracle/reduce/reduce_failure.h"
#include "tests/support/builtin.h"

namespace difftest::oracle {
namespace {

namespace fs = std::filesystem;

const char* kStaticExp = R"(program @exp() {
  %x: f32[4, 8] = param
  %y: f32[4, 8] = exp(%x)
  return %y
}
)";

// About 1.3e8 multiply-adds: a few tenths of a second of CPU at O0, far more than 10 ms.
const char* kMatmul = R"(program @mm() {
  %a: f32[512, 512] = param
  %b: f32[512, 512] = param
  %y: f32[512, 512] = matmul(%a, %b)
  return %y
}
)";

// `faults`: planted in the builtin compiler checked.
CheckOptions one_pipeline(const std::string& name, double cpu_seconds, const std::vector<std::string>& faults = {}) {
  CheckOptions o = testing::planting(testing::builtin_checks(), faults);
  o.levels = {name};
  o.random_orders = 0;
  o.cross_checks.clear();
  o.specialize = false;
  o.limits.cpu_seconds = cpu_seconds;
  return o;
}

TEST(Timeouts, AHangIsATimeoutOnlyAfterARerunWithFourTimesTheBudget) {
  const Verdict v = check_program(parse_program(kStaticExp, "exp.ir"), one_pipeline("O0", 0.5, {"codegen-stuck-loop"}));
  ASSERT_EQ(v.variants.size(), 1u);
  const VariantVerdict& t = v.variants.front();
  EXPECT_EQ(t.kind, VerdictKind::Timeout) << t.message;
  ASSERT_EQ(t.tries.size(), 2u);
  EXPECT_EQ(t.tries[0].cpu_budget, 0.5);
  EXPECT_EQ(t.tries[1].cpu_budget, 2.0);
  for (const auto& attempt : t.tries) {
    EXPECT_EQ(attempt.outcome, "timed_out");
    EXPECT_GE(attempt.cpu_seconds, attempt.cpu_budget) << "stopped by its CPU time, not the wall clock";
    EXPECT_FALSE(attempt.blocked);
    EXPECT_EQ(attempt.stage.describe().rfind("run", 0), 0u) << attempt.stage.describe();
  }
  EXPECT_NE(t.message.find("no result within 0.5 s of CPU time, nor within 2.0 s on a rerun (during run)"),
            std::string::npos)
      << t.message;
  const nlohmann::json j = t.to_json();
  ASSERT_EQ(j["tries"].size(), 2u);
  EXPECT_EQ(j["tries"][1]["cpu_budget_s"], 2.0);
  EXPECT_EQ(v.refuted_timeouts(), 0);
}

TEST(Timeouts, ATimeoutTheRerunRefutesIsNotAFailure) {
  CheckOptions o = one_pipeline("O0", 0.01);
  o.confirm_factor = 3000;  // the rerun gets 30 s
  const Verdict v = check_program(parse_program(kMatmul, "mm.ir"), o);
  ASSERT_EQ(v.variants.size(), 1u);
  const VariantVerdict& t = v.variants.front();
  EXPECT_EQ(t.kind, VerdictKind::Ok) << t.message;
  ASSERT_EQ(t.tries.size(), 2u);
  EXPECT_EQ(t.tries[0].outcome, "timed_out");
  EXPECT_EQ(t.tries[1].outcome, "ok");
  EXPECT_EQ(v.refuted_timeouts(), 1);
  EXPECT_GT(t.cpu_ms, 10.0) << "the work took more than the first budget";
}

TEST(Timeouts, WithoutConfirmationTheFirstTryIsTheVerdict) {
  CheckOptions o = one_pipeline("O0", 0.3, {"codegen-stuck-loop"});
  o.confirm_timeouts = false;
  const VariantVerdict t = check_program(parse_program(kStaticExp, "exp.ir"), o).variants.front();
  EXPECT_EQ(t.kind, VerdictKind::Timeout);
  EXPECT_EQ(t.tries.size(), 1u);
  EXPECT_NE(t.message.find("not rerun"), std::string::npos) << t.message;
}

TEST(Timeouts, OnceAProgramsHangIsConfirmedItsOtherTimeoutsAreNotRerun) {
  CheckOptions o = one_pipeline("O0", 0.3, {"codegen-stuck-loop"});
  o.levels = {"O0", "O1"};
  const Verdict v = check_program(parse_program(kStaticExp, "exp.ir"), o);
  ASSERT_EQ(v.variants.size(), 2u);
  EXPECT_EQ(v.variants[0].kind, VerdictKind::Timeout);
  EXPECT_EQ(v.variants[0].tries.size(), 2u) << "the first is confirmed";
  EXPECT_EQ(v.variants[1].kind, VerdictKind::Timeout);
  EXPECT_EQ(v.variants[1].tries.size(), 1u) << "the program's hang is already a fact";
}

TEST(Timeouts, TheCallersDeadlineCancelsACheckInsteadOfFailingIt) {
  CheckOptions o = one_pipeline("O0", 60, {"codegen-stuck-loop"});
  o.levels = {"O0", "O1"};
  o.limits.deadline = deadline_in(0.5);
  const Verdict v = check_program(parse_program(kStaticExp, "exp.ir"), o);
  EXPECT_TRUE(v.cancelled);
  EXPECT_TRUE(v.variants.empty()) << "a cancelled compile is no verdict";
  EXPECT_THROW(testing::check_pipeline(parse_program(kStaticExp, "exp.ir"), pipeline::find_pipeline("O0"), {}, o),
               DeadlineReached);
}

TEST(Timeouts, BudgetsRelativeToMeasuredWorkStayWithinTheUsersBudget) {
  CheckOptions o;
  o.limits.cpu_seconds = 10;
  EXPECT_EQ(relative_budget(o, 0.05).limits.cpu_seconds, kMinRelativeBudget);
  EXPECT_EQ(relative_budget(o, 0.5).limits.cpu_seconds, 5.0);
  EXPECT_EQ(relative_budget(o, 3).limits.cpu_seconds, 10.0);
  VariantVerdict hung;
  hung.kind = VerdictKind::Timeout;
  hung.cpu_ms = 20000;
  hung.tries = {TimeoutTry{10, 10.2, 11, false, Stage::run({{"n", 3}}), 0.4, "timed_out"}};
  EXPECT_EQ(measured_work(hung), 0.4) << "what finished before the hang, not the hang";
  VariantVerdict finished;
  finished.cpu_ms = 250;
  EXPECT_EQ(measured_work(finished), 0.25);
}

// Reducing a hang: the original's stages before the hang were measured, so candidates get a
// budget of a second or so, not the user's 30 s (plus its 120 s rerun).
TEST(Timeouts, AHangReducesWithBudgetsRelativeToTheOriginalsWork) {
  const Program p = parse_program(R"(program @hang() {
  %x: f32[4, 8] = param
  %w: f32[4, 8] = param
  %y: f32[4, 8] = add(%x, %w)
  %z: f32[4, 8] = exp(%y)
  %u: f32[4, 8] = neg(%z)
  return %u
}
)",
                                  "hang.ir");
  CheckOptions o = one_pipeline("O0", 30, {"codegen-stuck-loop"});
  // A failure as a campaign records it: the hang, with the CPU its compile took before the run.
  FailingRun failing;
  failing.variant = backends::builtin_compiler().named("O0", "test");
  failing.verdict.kind = VerdictKind::Timeout;
  failing.work_cpu_seconds = 0.05;
  const ReductionReport r = reduce_failure(p, failing, o, {}, "");
  EXPECT_TRUE(r.reproduces);
  EXPECT_EQ(r.reduced_failure.kind, VerdictKind::Timeout);
  EXPECT_EQ(r.reduced.program.num_calls(), 1u) << "the exp alone";
  EXPECT_EQ(r.reduced_failure.tries.size(), 2u);
  // Ten times the original's measured work: well under a second here, a few seconds on a slow
  // host; the user's 30 s only if the budgets were not relative.
  EXPECT_LT(r.reduced_failure.tries.front().cpu_budget, o.limits.cpu_seconds / 4) << "a relative budget, not 30 s";
}

TEST(Timeouts, AReductionStopsAtItsTimeLimitWithItsResultsWritten) {
  const Program p = parse_program(R"(program @chain() {
  %x: f32[4, 8] = param
  %w: f32[4, 8] = param
  %a: f32[4, 8] = mul(%x, %w)
  %b: f32[4, 8] = add(%a, %x)
  %c: f32[4, 8] = tanh(%b)
  %d: f32[4, 8] = mul(%c, %w)
  return %d
}
)",
                                  "chain.ir");
  const CheckOptions o = one_pipeline("O3", 30, {"mul-drops-tail"});
  const auto failing = first_failing_run(p, o);
  ASSERT_TRUE(failing);
  const fs::path dir = fs::temp_directory_path() / fmt::format("difftest_time_limit.{}", ::getpid());
  fs::remove_all(dir);
  fuzz::ReduceOptions ro;
  ro.time_limit = 0.01;  // less than any host needs for one O3 compile
  const auto t0 = std::chrono::steady_clock::now();
  const ReductionReport r = reduce_failure(p, *failing, o, ro, dir.string());
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_FALSE(r.stopped_in.empty());
  EXPECT_LT(seconds, 60) << "a cap, not a hint (generous: a loaded machine is slow)";
  for (const char* f : {"repro.ir", "verdict.json", "report.md"}) EXPECT_TRUE(fs::exists(dir / f)) << f;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace difftest::oracle
