// Every failure a campaign saves can be reduced, whichever variant showed it: the verdict
// records the variant (a pipeline, a random order, the shape-specialized compile, a
// cross-check of two compiles), bisection and reduction check that variant again on its own.
// And with faults injected, a campaign attributes a failure to them only where the same
// variant passes with them off. The faults used are where they break the compiler
// (compiler/faults): mul-drops-tail in every mul lowering, schedule-reduction-tail in the
// O3-only reduction schedule.
#include "oracle/check/variant.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "compiler/faults/faults.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "oracle/campaign/campaign.h"
#include "oracle/check/check.h"
#include "oracle/check/compiler.h"
#include "oracle/reduce/reduce_failure.h"
#include "tests/support/check_options.h"

namespace difftest::oracle {
namespace {

using backends::builtin_compiler;

namespace fs = std::filesystem;

const char* kMulTanh = R"(program @mt(n: 2..8) {
  %a: f32[n, 4] = param
  %b: f32[n, 4] = param
  %m: f32[n, 4] = mul(%a, %b)
  %t: f32[n, 4] = tanh(%m)
  %y: f32[n, 4] = add(%t, %a)
  return %y
}
)";

const char* kSum = R"(program @s(n: 2..8) {
  %a: f32[n, 37] = param
  %y: f32[n] = sum(%a, axes=[1])
  %e: f32[n, 37] = tanh(%a)
  return %y, %e
}
)";

CheckOptions quiet() { return testing::pipelines_only({}, 30); }

TEST(Variant, NamesAndRecordsRoundTrip) {
  VariantVerdict v;
  v.variant = VariantId(*builtin_compiler().specialized(builtin_compiler().named("O2", "test")),
                        builtin_compiler().named("O2", "test"));
  v.kind = VerdictKind::Mismatch;
  v.binding = {{"n", 3}};
  const VariantId& spec = v.variant;
  EXPECT_TRUE(spec.specialized());
  ASSERT_TRUE(spec.against);
  EXPECT_EQ(spec.against->name(), "O2");
  EXPECT_EQ(spec.tested.steps.front(), "SpecializeShapes");
  EXPECT_EQ(spec.name(), "O2~O2-specialized");
  const VariantVerdict back = VariantVerdict::from_json(v.to_json(), "test", builtin_compiler());
  EXPECT_EQ(back.variant.name(), spec.name());
  EXPECT_TRUE(back.variant.specialized());
  EXPECT_EQ(back.binding, v.binding);
  // Older records have no "specialized"/"against" fields: the names say it.
  const VariantId old = VariantId::from_json(nlohmann::json{{"pipeline", "O0~O3"}}, "test", builtin_compiler());
  ASSERT_TRUE(old.against);
  EXPECT_EQ(old.against->name(), "O0");
  EXPECT_EQ(old.tested.name(), "O3");
  EXPECT_THROW(VariantId::from_json(nlohmann::json{{"pipeline", "O9"}}, "verdict.json", builtin_compiler()),
               UserError);
  EXPECT_THROW(VariantVerdict::from_json(nlohmann::json{{"pipeline", "O3"}, {"kind", "exploded"}}, "v.json",
                                         builtin_compiler()),
               UserError);
}

TEST(Variant, TheRecordedFailureIsTheVariantWithTheVerdictsSignature) {
  VariantVerdict ok, first, chosen;
  ok.variant = builtin_compiler().named("O0", "test");
  first.variant = builtin_compiler().named("O1", "test");
  first.kind = VerdictKind::Mismatch;
  first.output_op = "mul";
  chosen.variant = *builtin_compiler().specialized(builtin_compiler().named("O3", "test"));
  chosen.kind = VerdictKind::Mismatch;
  chosen.output_op = "tanh";
  chosen.binding = {{"n", 5}};
  chosen.cpu_ms = 400;
  nlohmann::json verdict = {{"variants", {ok.to_json(), first.to_json(), chosen.to_json()}},
                            {"signature", chosen.signature().str()}};
  const Program p = parse_program(kMulTanh, "mt.ir");
  const auto run = recorded_failing_run(p, verdict, "verdict.json", builtin_compiler());
  ASSERT_TRUE(run);
  EXPECT_EQ(run->variant.name(), "O3-specialized");
  EXPECT_TRUE(run->variant.specialized());
  EXPECT_EQ(run->binding, chosen.binding);
  EXPECT_EQ(run->work_cpu_seconds, 0.4);
  verdict.erase("signature");
  EXPECT_EQ(recorded_failing_run(p, verdict, "verdict.json", builtin_compiler())->variant.name(), "O1")
      << "else the first failure";
  // A compile failure has no binding of its own: reduction still needs one for sizes and inputs.
  VariantVerdict crash;
  crash.variant = builtin_compiler().named("O1", "test");
  crash.kind = VerdictKind::CompileCrash;
  crash.stage = Stage::compile("LegalizeOps");
  verdict = {{"variants", {crash.to_json()}}};
  const auto crashed = recorded_failing_run(p, verdict, "verdict.json", builtin_compiler());
  ASSERT_TRUE(crashed);
  EXPECT_EQ(crashed->binding, (sym::Env{{"n", 2}})) << "the first standard binding: every dim at its lower bound";
  verdict["variants"] = nlohmann::json::array({ok.to_json()});
  EXPECT_FALSE(recorded_failing_run(p, verdict, "verdict.json", builtin_compiler()));
  EXPECT_THROW(recorded_failing_run(p, nlohmann::json::array(), "verdict.json", builtin_compiler()), UserError);
}

TEST(Variant, AShapeSpecializedCompileCrashKeepsTheBindingItCompiled) {
  // legalize-null-deref crashes every compile with a mul; a specialized compile is one binding's.
  const Program p = parse_program(kMulTanh, "mt.ir");
  CheckOptions options = testing::planting(quiet(), {"legalize-null-deref"});
  const sym::Env binding = {{"n", 5}};
  const Verdict specialized =
      check_variant(p, VariantId(*builtin_compiler().specialized(builtin_compiler().named("O1", "test"))), binding,
                    options);
  const VariantVerdict* crash = specialized.first_failure();
  ASSERT_NE(crash, nullptr);
  EXPECT_EQ(crash->kind, VerdictKind::CompileCrash) << crash->message;
  EXPECT_EQ(crash->binding, binding) << "a replay under another binding compiles another program";
  const Verdict generic = check_variant(p, VariantId(builtin_compiler().named("O1", "test")), binding, options);
  ASSERT_NE(generic.first_failure(), nullptr);
  EXPECT_EQ(generic.first_failure()->kind, VerdictKind::CompileCrash);
  EXPECT_TRUE(generic.first_failure()->binding.empty()) << "one compile serves every binding";
}

TEST(Variant, AShapeSpecializedFailureReducesAndIsWrittenWithItsDimsFixed) {
  const Program p = parse_program(kMulTanh, "mt.ir");
  FailingRun failing;
  failing.variant = *builtin_compiler().specialized(builtin_compiler().named("O1", "test"));
  failing.binding = {{"n", 3}};
  failing.verdict.kind = VerdictKind::Mismatch;
  const fs::path dir = fs::temp_directory_path() / fmt::format("difftest_specialized.{}", ::getpid());
  fs::remove_all(dir);
  const ReductionReport r =
      reduce_failure(p, failing, testing::planting(quiet(), {"mul-drops-tail"}), {}, dir.string());
  EXPECT_TRUE(r.reproduces) << r.reduced_failure.message;
  EXPECT_TRUE(r.passes_without_faults);
  EXPECT_EQ(r.reduced.program.num_calls(), 1u) << print(r.reduced.program);
  EXPECT_TRUE(r.reduced_failure.variant.specialized());
  const Program written = parse_program(read_text_file((dir / "repro.ir").string()), "repro.ir");
  for (const auto& d : written.dims()) EXPECT_EQ(d.range.lo, d.range.hi) << "dims fixed to the failing binding";
  EXPECT_NE(read_text_file((dir / "report.md").string()).find("shape-specialized"), std::string::npos);
  // The written verdict records the variant, so `difftest reduce` on repro.ir finds it again.
  const auto again =
      recorded_failing_run(p, nlohmann::json::parse(read_text_file((dir / "verdict.json").string())), "verdict.json",
                           builtin_compiler());
  ASSERT_TRUE(again);
  EXPECT_TRUE(again->variant.specialized());
  fs::remove_all(dir);
}

TEST(Variant, ACrossCheckFailureReducesAsTheDisagreementOfTwoCompiles) {
  const Program p = parse_program(kSum, "s.ir");
  FailingRun failing;
  failing.variant = VariantId(builtin_compiler().named("O3", "test"), builtin_compiler().named("O0", "test"));
  failing.binding = {{"n", 2}};
  failing.verdict.kind = VerdictKind::Mismatch;
  const ReductionReport r =
      reduce_failure(p, failing, testing::planting(quiet(), {"schedule-reduction-tail"}), {}, "");
  EXPECT_EQ(r.culprit.pass, "ScheduleReduction") << format_culprit(r.culprit);
  EXPECT_TRUE(r.reproduces);
  EXPECT_TRUE(r.passes_without_faults);
  EXPECT_EQ(r.reduced.program.num_calls(), 1u) << print(r.reduced.program);
  EXPECT_NE(report_markdown(r).find("a cross-check"), std::string::npos);
}

TEST(Variant, ACampaignAttributesAFailureToItsFaultsOnlyWhereTheCleanCompilerPasses) {
  // mul-drops-tail stands for a bug of the compiler under test (on, but not the campaign's
  // injected fault); schedule-reduction-tail is the fault the campaign measures.
  const fs::path dir = fs::temp_directory_path() / fmt::format("difftest_attrib.{}", ::getpid());
  fs::remove_all(dir);
  CampaignOptions c;
  c.first_seed = 0;
  c.last_seed = 39;
  c.jobs = 2;
  c.out_dir = dir.string();
  c.check = testing::planting(quiet(), {"mul-drops-tail", "schedule-reduction-tail"});
  c.check.levels = {"O3"};
  c.faults = {"schedule-reduction-tail"};
  const CampaignSummary s = run_campaign(c);
  int not_attributable = 0;
  for (const auto& rec : read_campaign_journal(dir.string(), builtin_compiler()).records) {
    if (!rec.signature) continue;
    ASSERT_TRUE(rec.attributable.has_value()) << rec.to_json().dump();
    const std::string sig = rec.signature->str();
    if (*rec.attributable) {
      EXPECT_EQ(sig.find("mul"), std::string::npos) << "a mul failure is the other bug's: " << sig;
    } else {
      ++not_attributable;
    }
  }
  EXPECT_GT(not_attributable, 0) << "programs with a mul fail without the injected fault too";
  for (const auto& f : s.failures) {
    if (f.signature.str().find("output of mul") != std::string::npos) {
      EXPECT_FALSE(f.attributable) << f.signature.str();
    }
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace difftest::oracle
