// The typed records between the oracle's parts and their one text or JSON form each: a
// signature, a stage, a seed's journal record. The text forms are those of journals and
// baselines written before the types existed, so old files still read the same.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "compiler/support/diagnostics.h"
#include "oracle/campaign/record.h"
#include "oracle/check/compiler.h"
#include "oracle/check/signature.h"
#include "oracle/check/stage.h"
#include "oracle/check/verdict.h"
#include "tests/support/builtin.h"

namespace difftest::oracle {
namespace {

using backends::builtin_compiler;

TEST(Records, SignaturesReadAsTheyAreWritten) {
  const std::optional<Signature> mismatch = Signature::parse("mismatch|O0~O3|compare|output of mul");
  ASSERT_TRUE(mismatch);
  EXPECT_EQ(mismatch->kind, "mismatch");
  EXPECT_EQ(mismatch->place, "O0~O3");
  EXPECT_EQ(mismatch->stage, "compare");
  EXPECT_EQ(mismatch->what, "output of mul");
  // The masked message is the rest: it may hold the separator itself.
  const std::optional<Signature> crash = Signature::parse("compile_crash|custom|FuseOps|a|b");
  ASSERT_TRUE(crash);
  EXPECT_EQ(crash->what, "a|b");
  const std::optional<Signature> harness = Signature::parse("harness_error|worker killed by signal N");
  ASSERT_TRUE(harness);
  EXPECT_EQ(harness->what, "worker killed by signal N");
  EXPECT_EQ(harness->place, "");
  const std::optional<Signature> lost =
      Signature::parse("lost-detection|q4.ir|mismatch|O0|compare|output of dequantize");
  ASSERT_TRUE(lost);
  EXPECT_EQ(lost->place, "q4.ir");
  EXPECT_EQ(lost->what, "mismatch|O0|compare|output of dequantize");
  for (const char* text : {"mismatch|O0~O3|compare|output of mul", "compile_crash|custom|FuseOps|a|b",
                           "harness_error|worker killed by signal N", "timeout|O3|run|",
                           "lost-detection|q4.ir|mismatch|O0|compare|output of dequantize"}) {
    ASSERT_TRUE(Signature::parse(text)) << text;
    EXPECT_EQ(Signature::parse(text)->str(), text);
  }
  for (const char* text : {"", "mismatch", "mismatch|O0", "mismatch|O0|compare", "|O0|compare|x", "lost-detection|a"}) {
    EXPECT_FALSE(Signature::parse(text)) << text;
  }
  // Sets of signatures list them in the order of their text, as baselines always have.
  EXPECT_LT(*Signature::parse("mismatch|O10|compare|x"), *Signature::parse("mismatch|O1|compare|x"));
}

// A verdict's signature masks numbers wherever they are, in an op's name too: baselines of
// earlier versions hold "output of atanN".
TEST(Records, AVerdictsSignatureMasksEveryNumber) {
  VariantVerdict v;
  v.variant = builtin_compiler().named("O3", "test");
  v.kind = VerdictKind::Mismatch;
  v.stage = Stage::compare();
  v.output_op = "atan2";
  v.message = "3 of 8 elements of %y";
  EXPECT_EQ(v.signature().str(), "mismatch|O3|compare|output of atanN");
  v.kind = VerdictKind::CompileCrash;
  v.stage = Stage::compile("FuseOps");
  v.message = "killed by signal 11 in @p at [2, 3]";
  EXPECT_EQ(v.signature().str(), "compile_crash|O3|FuseOps|killed by signal N in @_ at [_]");
}

TEST(Records, StagesHaveANameForSignaturesAndADescriptionForPeople) {
  EXPECT_EQ(Stage::compile("FuseOps").name(), "FuseOps");
  EXPECT_EQ(Stage::compile("FuseOps").describe(), "compile FuseOps");
  EXPECT_EQ(Stage::compile().name(), "compile");
  EXPECT_EQ(Stage::codegen().describe(), "compile codegen");
  EXPECT_EQ(Stage::run({{"n", 3}}).describe(), "run n=3");
  EXPECT_EQ(Stage::run({}).describe(), "run (no dim variables)");
  EXPECT_EQ(Stage::run({{"n", 3}}).name(), "run");
  for (const Stage& s : {Stage::reference(), Stage::compile(), Stage::compile("LICM"), Stage::codegen(),
                         Stage::run({{"m", 2}, {"n", 3}}), Stage::run({}), Stage::compare()}) {
    EXPECT_EQ(Stage::from_description(s.describe(), "test"), s) << s.describe();
    Stage named = s;
    named.binding.clear();
    EXPECT_EQ(Stage::from_name(s.name()), named) << s.name();
  }
  EXPECT_THROW(Stage::from_description("run n=", "verdict.json"), UserError);
}

// A journal line of the shape a campaign wrote before records were typed, with every field a
// record can have: read and written again, byte for byte.
TEST(Records, AJournalRecordReadsAndWritesBackByteForByte) {
  const std::string line =
      R"({"attributable":true,"detail":{"exercised":["pass:LegalizeOps","pass:LoopSimplify"],)"
      R"("faults":["mul-drops-tail"],"hash":"00c0ffee00c0ffee","program":"g7",)"
      R"("seed":7,"times":{"compare_ms":0.5,"compile_ms":120.25,"generate_ms":0.125,"reference_ms":3.0,)"
      R"("run_ms":1.5},"variants":[{"binding":{"n":2},"compile_ms":60.0,"cpu_ms":75.5,"index":[1,3],)"
      R"("kind":"mismatch","message":"1 of 8 elements of %y outside their bounds","pipeline":"O0","run_ms":0.5,)"
      R"("elements":8,"elements_checked":7,)"
      R"("stage":"compare","worst_excess":12.5,"worst_ratio":3.25,"got":1.5,"want":null,"bound":0.001,)"
      R"("output":"y","output_op":"mul","signature":"mismatch|O0|compare|output of mul"},)"
      R"({"binding":{"n":2},"compile_ms":0.0,"fma_contraction":true,"kind":"timeout","llvm_opt_level":2,)"
      R"("message":"no result within N s","passes":["FuseOps","LegalizeOps"],"pipeline":"order1","run_ms":0.0,)"
      R"("signature":"timeout|custom|run|no result within N s","stage":"run","tries":[{"cpu_budget_s":10.0,)"
      R"("cpu_s":10.1,"finished_cpu_s":0.4,"outcome":"timed_out","stage":"run n=2","wall_s":10.3},)"
      R"({"blocked":true,"cpu_budget_s":40.0,"cpu_s":0.2,"finished_cpu_s":0.4,"outcome":"timed_out",)"
      R"("stage":"run n=2","wall_s":400.0}]},{"binding":{"n":5},"compile_ms":0.0,"kind":"invalid_program",)"
      R"("message":"not finite","pipeline":"reference","run_ms":0.0,"stage":"reference"},)"
      R"({"against":"O0","binding":{"n":2},"compile_ms":0.0,"kind":"ok","message":"","pipeline":"O0~O3-specialized",)"
      R"("run_ms":0.0,"specialized":true,"stage":"compare","worst_excess":0.0,"worst_ratio":0.5}],"verdict":"mismatch"},)"
      R"("elements":8,"elements_checked":7,"exercised":["pass:LegalizeOps","pass:LoopSimplify"],)"
      R"("hash":"00c0ffee00c0ffee","refuted_timeouts":1,"seed":7,"signature":"mismatch|O0|compare|output of mul",)"
      R"("times":{"compare_ms":0.5,"compile_ms":120.25,"generate_ms":0.125,"reference_ms":3.0,"run_ms":1.5},)"
      R"("verdict":"mismatch","worst_excess":12.5,"worst_ratio":3.25})";
  const nlohmann::json j = nlohmann::json::parse(line);
  const SeedRecord rec = SeedRecord::from_json(j, "journal.jsonl:1", builtin_compiler());
  EXPECT_EQ(rec.seed, 7u);
  EXPECT_EQ(rec.kind, VerdictKind::Mismatch);
  ASSERT_TRUE(rec.signature);
  EXPECT_EQ(rec.signature->place, "O0");
  ASSERT_TRUE(rec.detail);
  ASSERT_EQ(rec.detail->variants.size(), 4u);
  EXPECT_EQ(rec.detail->variants[1].variant.tested.kind, VariantKind::RandomOrder);
  EXPECT_EQ(rec.detail->variants[1].tries[1].stage, Stage::run({{"n", 2}}));
  EXPECT_EQ(rec.detail->variants[2].variant.tested.kind, VariantKind::Reference);
  EXPECT_TRUE(rec.detail->variants[3].variant.specialized());
  EXPECT_EQ(rec.exercised, (std::vector<std::string>{"pass:LegalizeOps", "pass:LoopSimplify"}));
  EXPECT_EQ(rec.detail->exercised.count("pass:LoopSimplify"), 1u);
  EXPECT_EQ(rec.to_json().dump(), j.dump());

  const std::string harness =
      R"({"message":"boom","seed":9,"signature":"harness_error|boom","verdict":"harness_error"})";
  EXPECT_EQ(SeedRecord::from_json(nlohmann::json::parse(harness), "j", builtin_compiler()).to_json().dump(), harness);
  EXPECT_TRUE(SeedRecord::from_json(nlohmann::json::parse(harness), "j", builtin_compiler()).harness_error);

  for (const char* bad : {R"({"verdict":"ok"})", R"({"seed":-1})", R"({"seed":1,"verdict":"exploded"})",
                          R"({"seed":1,"signature":"no bars"})", R"({"seed":1,"detail":{"variants":[{"kind":"ok"}]}})",
                          R"({"seed":1,"hash":"zz"})", R"([1])"}) {
    EXPECT_THROW(SeedRecord::from_json(nlohmann::json::parse(bad), "journal.jsonl:3", builtin_compiler()), UserError)
        << bad;
  }
}

}  // namespace
}  // namespace difftest::oracle
