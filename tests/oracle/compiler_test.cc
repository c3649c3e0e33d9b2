// A compiler under test that is not the builtin one plugs into the same path: its variants are
// compiled and run in isolated children, compared with the same cases, and signed like the
// builtin's; its failures are bisected to its own steps and reduced, with its own reproducer
// files. The test compilers run the reference interpreter in native mode (a correct compiler),
// once with one output element off by one, once crashing in a stage of its own; the stepwise one
// applies its steps in order, one of which puts an element off by one.
#include "oracle/check/compiler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "oracle/check/check.h"
#include "oracle/check/wire.h"
#include "oracle/gate/gate.h"
#include "oracle/reduce/reduce_failure.h"
#include "reference/reference.h"
#include "tests/support/builtin.h"

namespace difftest::oracle {
namespace {

Variant test_variant(const std::string& name, std::vector<std::string> steps = {}) {
  return Variant{VariantKind::Named, name, std::move(steps)};
}

// What the oracle asks of every compiler beyond compiling: names, roles of steps, reproducers.
class StandInCompiler : public CompilerUnderTest {
 public:
  std::string name() const override { return "stand-in"; }
  Variant named(const std::string& name, const std::string&) const override { return test_variant(name); }
  Variant recorded(const std::string& name, std::vector<std::string> steps, const nlohmann::json&,
                   const std::string&) const override {
    return Variant{VariantKind::Custom, name, std::move(steps)};
  }
  StepRole step_role(const std::string& step) const override {
    return step == "Lower" ? StepRole::Required : StepRole::Other;
  }
  std::optional<Program> program_after(const Program&, const Variant&, int) const override { return std::nullopt; }
  std::string fixed_culprit(const Stage&) const override { return "its kernels"; }
  std::string environment(const Variant& v) const override { return identity() + " " + v.name(); }
  std::string replay_flags(const Variant& v) const override { return "--steps " + v.steps.front(); }
  void write_reproducer(const std::string& dir, const Program&, const sym::Env&, const VariantVerdict& failure,
                        const CheckOptions&) const override {
    std::ofstream(std::filesystem::path(dir) / "stand_in.txt") << failure.variant.name() << "\n";
  }
  std::string reproducer_files() const override { return "stand_in.txt names the variant"; }
};

// The reference's results under each case (a correct compiler), element 0 of the first output
// off by one when `off`.
CompiledRuns reference_runs(const Program& p, const std::vector<const Case*>& cases, Progress& progress, bool off) {
  CompiledRuns out;
  for (const Case* c : cases) {
    progress.stage(encode_stage(Stage::run(c->env)));
    CompiledRuns::Run run;
    run.outputs = reference::evaluate(p, c->env, c->inputs, reference::Mode::Native).outputs;
    if (off) run.outputs[0].set(0, run.outputs[0].get(0) + 1);
    out.runs.push_back(std::move(run));
  }
  return out;
}

class ReferenceAsCompiler final : public StandInCompiler {
 public:
  std::string identity() const override { return "the reference as a compiler 1.0"; }
  std::vector<Variant> variants(const Program&, const CheckOptions&) const override {
    return {test_variant("exact"), test_variant("off-by-one"), test_variant("crashes")};
  }
  std::optional<Variant> specialized(const Variant&) const override { return std::nullopt; }
  CompiledRuns compile_and_run(const Program& p, const Variant& variant, const std::vector<const Case*>& cases,
                               Progress& progress) const override {
    progress.stage(encode_stage(Stage::compile("Fuse")));
    if (variant.name() == "crashes") std::abort();
    return reference_runs(p, cases, progress, variant.name() == "off-by-one");
  }
};

// Applies its steps in order, each application numbered as opt-bisect numbers them; only the
// first `limit` are applied (the required "Lower" always is). "OffByOne" adds 1 to element 0.
class StepwiseCompiler final : public StandInCompiler {
 public:
  std::string identity() const override { return "a stepwise compiler 2.0"; }
  std::vector<Variant> variants(const Program&, const CheckOptions&) const override {
    return {test_variant("full", {"Lower", "Nop", "OffByOne", "Nop"})};
  }
  std::optional<Variant> specialized(const Variant&) const override { return std::nullopt; }
  CompiledRuns compile_and_run(const Program& p, const Variant& variant, const std::vector<const Case*>& cases,
                               Progress& progress) const override {
    bool off = false;
    for (size_t i = 0; i < variant.steps.size(); ++i) {
      const bool applied =
          step_role(variant.steps[i]) == StepRole::Required || variant.limit < 0 || static_cast<int>(i) < variant.limit;
      if (!applied) continue;
      progress.stage(encode_stage(Stage::compile(variant.steps[i])));
      off = off || variant.steps[i] == "OffByOne";
    }
    return reference_runs(p, cases, progress, off);
  }
};

// "opt" puts element 0 off by one in every program; "none", its baseline, is right only while
// the program still has an `add` (a stand-in for a baseline kernel that is wrong on programs the
// reduction could drift to). Without a baseline declared it is just another variant.
class BaselineCompiler final : public StandInCompiler {
 public:
  explicit BaselineCompiler(bool declares_baseline) : declares_baseline_(declares_baseline) {}
  std::string identity() const override { return "a compiler with a baseline 3.0"; }
  std::vector<Variant> variants(const Program&, const CheckOptions&) const override {
    return {test_variant("none"), test_variant("opt", {"Fold"})};
  }
  std::optional<Variant> specialized(const Variant&) const override { return std::nullopt; }
  std::optional<Variant> baseline() const override {
    return declares_baseline_ ? std::optional<Variant>(test_variant("none")) : std::nullopt;
  }
  CompiledRuns compile_and_run(const Program& p, const Variant& variant, const std::vector<const Case*>& cases,
                               Progress& progress) const override {
    progress.stage(encode_stage(Stage::compile("Fold")));
    bool has_add = false;
    for (const auto& b : p.bindings()) has_add = has_add || (b.is_call() && b.op().name == "add");
    return reference_runs(p, cases, progress, variant.name() == "opt" || !has_add);
  }

 private:
  bool declares_baseline_;
};

// Elementwise only: the reference's matrix kernels (OpenBLAS threads) do not run in a forked child.
const char* kElementwiseProgram = R"(program @ew(n: 1..8) {
  %a: f32[n, 4] = param
  %b: f32[n, 4] = param
  %y: f32[n, 4] = add(%a, %b)
  %z: f32[n, 4] = tanh(%y)
  return %z
}
)";

// The compiler's own variants only, under the standard bindings.
CheckOptions checks_of(const CompilerUnderTest& compiler) {
  CheckOptions o;
  o.compiler = &compiler;
  o.levels = {};
  o.random_bindings = 0;
  o.limits.cpu_seconds = 30;
  return o;
}

TEST(CompilerUnderTest, AnotherCompilerIsCheckedAndSignedByTheSamePath) {
  const ReferenceAsCompiler compiler;
  const CheckOptions o = checks_of(compiler);
  const Verdict v = check_program(parse_program(kElementwiseProgram, "ew.ir"), o);
  int exact = 0, off = 0, crashed = 0;
  for (const auto& var : v.variants) {
    const std::string name = var.variant.name();
    if (name == "exact") {
      ++exact;
      EXPECT_EQ(var.kind, VerdictKind::Ok) << var.message;
    } else if (name == "off-by-one") {
      ++off;
      EXPECT_EQ(var.kind, VerdictKind::Mismatch) << var.message;
      EXPECT_EQ(var.signature().str(), "mismatch|off-by-one|compare|output of tanh");
      EXPECT_EQ(var.index, (std::vector<int64_t>{0, 0}));
    } else if (name == "crashes") {
      ++crashed;
      EXPECT_EQ(var.kind, VerdictKind::CompileCrash) << var.message;
      EXPECT_EQ(var.stage, Stage::compile("Fuse"));
      EXPECT_EQ(var.signature().str().rfind("compile_crash|crashes|Fuse|killed by signal N", 0), 0u)
          << var.signature().str();
    }
  }
  const int bindings = static_cast<int>(default_bindings(parse_program(kElementwiseProgram, "ew.ir"), 0).size());
  EXPECT_EQ(exact, bindings);
  EXPECT_EQ(off, bindings);
  EXPECT_EQ(crashed, 1) << "a compile that crashes is one verdict, whatever the bindings";
  EXPECT_EQ(v.overall(), VerdictKind::Mismatch);
}

// The step that breaks the output is found by its number and kept alone with the required one;
// the reduction writes the compiler's own reproducer file and names it in the report.
TEST(CompilerUnderTest, AnotherCompilersFailureIsBisectedToItsStepAndReduced) {
  const StepwiseCompiler compiler;
  const CheckOptions o = checks_of(compiler);
  const Program p = parse_program(kElementwiseProgram, "ew.ir");
  const std::optional<FailingRun> failing = first_failing_run(p, o);
  ASSERT_TRUE(failing);
  EXPECT_EQ(failing->verdict.kind, VerdictKind::Mismatch);
  const Culprit c = find_culprit(p, *failing, o);
  ASSERT_TRUE(c.reproduced);
  EXPECT_EQ(c.pass, "OffByOne") << format_culprit(c);
  EXPECT_EQ(c.application, 3);
  EXPECT_EQ(c.minimal_passes, (std::vector<std::string>{"Lower", "OffByOne"}));

  const std::string dir = (std::filesystem::path(::testing::TempDir()) / "stepwise_reduction").string();
  std::filesystem::remove_all(dir);
  fuzz::ReduceOptions ro;
  ro.time_limit = 120;
  const ReductionReport r = reduce_failure(p, *failing, o, ro, dir);
  EXPECT_TRUE(r.reproduces);
  EXPECT_EQ(r.culprit.pass, "OffByOne");
  EXPECT_LE(r.reduced.program.num_calls(), p.num_calls());
  std::ifstream written(std::filesystem::path(dir) / "stand_in.txt");
  std::string line;
  std::getline(written, line);
  EXPECT_EQ(line, "full");
  const std::string report = report_markdown(r);
  EXPECT_NE(report.find("a stepwise compiler 2.0 full"), std::string::npos) << report;
  EXPECT_NE(report.find("--steps Lower"), std::string::npos) << report;
  EXPECT_NE(report.find("stand_in.txt names the variant"), std::string::npos) << report;
}

// A reduction keeps the compiler's baseline right: the add its baseline needs stays in the
// reduced program, while without a declared baseline the reducer drops it.
TEST(CompilerUnderTest, AReductionKeepsTheBaselineRight) {
  const Program p = parse_program(kElementwiseProgram, "ew.ir");
  for (const bool declares : {true, false}) {
    const BaselineCompiler compiler(declares);
    const CheckOptions o = checks_of(compiler);
    const std::optional<FailingRun> failing = first_failing_run(p, o);
    ASSERT_TRUE(failing);
    ASSERT_EQ(failing->variant.name(), "opt");
    fuzz::ReduceOptions ro;
    ro.time_limit = 120;
    const ReductionReport r = reduce_failure(p, *failing, o, ro, "");
    EXPECT_TRUE(r.reproduces);
    bool has_add = false;
    for (const auto& b : r.reduced.program.bindings()) has_add = has_add || (b.is_call() && b.op().name == "add");
    EXPECT_EQ(has_add, declares) << print(r.reduced.program);
  }
}

// A correct compiler with one variant: the reference's results.
class ExactCompiler final : public StandInCompiler {
 public:
  std::string identity() const override { return "an exact compiler 1.0"; }
  std::vector<Variant> variants(const Program&, const CheckOptions&) const override { return {test_variant("exact")}; }
  std::optional<Variant> specialized(const Variant&) const override { return std::nullopt; }
  CompiledRuns compile_and_run(const Program& p, const Variant&, const std::vector<const Case*>& cases,
                               Progress& progress) const override {
    return reference_runs(p, cases, progress, false);
  }
};

// difftest's test faults live in the builtin compiler: under another compiler a corpus entry
// that plants one is held to its clean half (a correct result), and the gate says why.
TEST(CompilerUnderTest, OnlyTheBuiltinTakesPlantedFaultsAndTheGateHoldsAnotherToAFaultEntrysCleanHalf) {
  EXPECT_NE(backends::builtin_compiler().planted_faults(), nullptr);
  const ExactCompiler exact;
  EXPECT_EQ(exact.planted_faults(), nullptr);
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("planted_faults." + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "fault.ir") << "# fault: mul-drops-tail\n# expect: mismatch|O0|compare|output of mul\n"
                                  << R"(program @mul(n: 1..8) {
  %a: f32[n, 4] = param
  %b: f32[n, 4] = param
  %y: f32[n, 4] = mul(%a, %b)
  return %y
}
)";
  GateOptions o;
  o.corpus = dir.string();
  o.corpus_compiler = &backends::builtin_compiler();
  o.campaign.unbounded = true;
  o.campaign.check.compiler = &exact;
  o.campaign.check.cross_checks.clear();
  o.campaign.check.specialize = false;
  o.campaign.check.bindings = {{{"n", 3}}};
  const GateResult r = run_gate(o);
  std::filesystem::remove_all(dir);
  ASSERT_EQ(r.cases.size(), 1u);
  EXPECT_TRUE(r.passed()) << r.cases[0].detail;
  EXPECT_NE(r.cases[0].detail.find("its faults (mul-drops-tail) are the builtin compiler's"), std::string::npos)
      << r.cases[0].detail;
}

}  // namespace
}  // namespace difftest::oracle

namespace difftest::oracle {
namespace {

// Bisection asks what program a step leaves (program_after) in the harness's own process: the
// builtin answers from its graph passes alone, so a lowering that crashes (legalize-null-deref's
// write through null) stays in the forked compiles and never takes the harness down (the
// detection benchmark died of it, reducing a seed of 3200000).
TEST(CompilerUnderTest, TheBuiltinsProgramAfterAStepRunsNoLoweringInProcess) {
  const Program p = parse_program(R"(program @dead(n: 1..8) {
  %a: f32[n, 4] = param
  %b: f32[n, 4] = add(%a, %a)
  %c: f32[n, 4] = neg(%a)
  return %b
}
)",
                                  "dead.ir");
  const CompilerUnderTest& crashing = testing::builtin_with({"legalize-null-deref"});
  Variant v;
  v.label = "custom";
  v.steps = {"DeadCodeElimination", "LegalizeOps", "LoopSimplify"};
  const std::optional<Program> after = crashing.program_after(p, v, 3);
  ASSERT_TRUE(after);
  EXPECT_EQ(after->num_calls(), 1u) << print(*after);  // DCE ran, LegalizeOps did not
  const std::optional<Program> none = crashing.program_after(p, v, 0);
  ASSERT_TRUE(none);
  EXPECT_EQ(none->num_calls(), 2u);  // nothing ran
}

}  // namespace
}  // namespace difftest::oracle
