// The fault-injection registry (compiler/faults): names, errors, the sets a compiler under test
// holds; a fault that is not
// on changes nothing; and each fault, when on, gives the oracle's verdict it is meant to give
// on a program containing its op, and ok on a program without it.
#include "compiler/faults/faults.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "compiler/codegen/codegen.h"
#include "compiler/support/diagnostics.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/verifier.h"
#include "compiler/loop/printer.h"
#include "compiler/pipeline/compile.h"
#include "compiler/pipeline/pass_manager.h"
#include "oracle/check/check.h"
#include "reference/inputs.h"
#include "tests/compiler/fault_cases.h"
#include "tests/support/ir_util.h"
#include "tests/support/builtin.h"

namespace difftest {
namespace {

std::vector<std::string> fault_names() {
  std::vector<std::string> names;
  for (const auto& f : faults::all_faults()) names.push_back(f.name);
  return names;
}

// Every op a current fault touches: elementwise binary arithmetic (add, mul), an elementwise
// math function (exp), and ops none touches.
const char* kEveryAffectedOp = R"(program @affected(n: 1..8) {
  %a: f32[n, 5] = param
  %b: f32[n, 5] = param
  %c: f32[5] = param
  %sum: f32[n, 5] = add(%a, %b)
  %prod: f32[n, 5] = mul(%sum, %c)
  %e: f32[n, 5] = exp(%a)
  %r: f32[n, 5] = relu(%prod)
  %m: f32[n] = max(%e, axes=[1])
  return %r, %m
}
)";

// Two or more [a-z0-9]+ words joined by single hyphens.  (std::regex trips GCC 12's
// -Wmaybe-uninitialized under -fsanitize=address, so this is spelled out.)
bool is_kebab_case(const std::string& name) {
  if (name.empty() || name.front() == '-' || name.back() == '-') return false;
  if (name.find("--") != std::string::npos || name.find('-') == std::string::npos) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
}

TEST(Faults, NamesAreKebabCaseSortedAndDescribed) {
  const auto names = fault_names();
  ASSERT_FALSE(names.empty());
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_EQ(std::adjacent_find(names.begin(), names.end()), names.end()) << "duplicate name";
  for (const auto& f : faults::all_faults()) {
    EXPECT_TRUE(is_kebab_case(f.name)) << f.name;
    EXPECT_FALSE(f.description.empty()) << f.name;
    EXPECT_FALSE(f.models.empty()) << f.name << ": the real bug it models";
    EXPECT_EQ(f.description.find('\n'), std::string::npos) << f.name;
    if (f.pass != "codegen") {
      EXPECT_NO_THROW(pipeline::find_pass(f.pass)) << f.name << ": " << f.pass;
    }
  }
}

TEST(Faults, UnknownNameIsAUsageErrorListingTheKnownOnes) {
  try {
    (void)FaultSet::of({"mul-drops-tail", "no-such-fault"});
    ADD_FAILURE() << "accepted";
  } catch (const UserError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
    EXPECT_NE(e.message().find("no-such-fault"), std::string::npos) << e.message();
    for (const auto& n : fault_names()) EXPECT_NE(e.message().find(n), std::string::npos) << e.message();
  }
  EXPECT_THROW(testing::builtin_with({"no-such-fault"}), UserError);
}

TEST(Faults, AFaultSetIsSortedWithoutRepeats) {
  const auto names = fault_names();
  std::vector<std::string> reversed(names.rbegin(), names.rend());
  reversed.push_back(names.front());  // twice: still listed once
  const FaultSet all = FaultSet::of(reversed);
  EXPECT_EQ(all.names(), names);
  for (const auto& n : names) EXPECT_TRUE(all.contains(*faults::find(n))) << n;
  const FaultSet none;
  EXPECT_TRUE(none.empty());
  for (const auto& n : names) EXPECT_FALSE(none.contains(*faults::find(n))) << n;
}

// A planted set is a compiler under test of its own, for good: with() and without() give the
// others, the same object for the same set, and the compiler asked stays as it was.
TEST(Faults, ACompilerUnderTestHoldsItsPlantedSetForGood) {
  const auto names = fault_names();
  ASSERT_GE(names.size(), 2u);
  const oracle::CompilerUnderTest& clean = backends::builtin_compiler();
  EXPECT_TRUE(clean.enabled_faults().empty());
  const oracle::CompilerUnderTest& first = testing::builtin_with({names[0]});
  EXPECT_EQ(&first, &clean.planted_faults()->with({names[0]}));
  const oracle::CompilerUnderTest& both = first.planted_faults()->with({names[1]});
  EXPECT_EQ(both.enabled_faults(), (std::vector<std::string>{names[0], names[1]}));
  EXPECT_EQ(first.planted_faults()->with(names).enabled_faults(), names);
  EXPECT_EQ(both.planted_faults()->without({names[0]}).enabled_faults(), std::vector<std::string>{names[1]});
  EXPECT_EQ(&both.planted_faults()->without({}), &clean);
  EXPECT_THROW(first.planted_faults()->with({"no-such-fault"}), UserError);
  EXPECT_EQ(first.enabled_faults(), std::vector<std::string>{names[0]});
  EXPECT_TRUE(clean.enabled_faults().empty());
  EXPECT_EQ(first.target(), clean.target());
}

// What the compiler produces for a program: loop IR text, LLVM IR text (fixed prefix) and the
// outputs' bytes under one binding.
struct Compiled {
  std::string loop_ir, llvm_ir;
  std::vector<Tensor> outputs;
};

Compiled compile_and_run(const Program& p) {
  const pipeline::Pipeline& o0 = pipeline::find_pipeline("O0");
  const pipeline::Lowered lowered = pipeline::run_passes(p, o0.passes);
  Compiled c{loop::print(lowered.module), codegen::emit_llvm_text(lowered.module, "faults_"), {}};
  const sym::Env env = reference::resolve_binding(p, {{"n", 3}}, nullptr);
  c.outputs = pipeline::compile(p, o0).run(reference::generate_inputs(p, env, 7), env);
  return c;
}

TEST(Faults, NothingLeaksOnceDisabled) {
  const Program p = testing::verified_program(kEveryAffectedOp, "faults.ir");
  const Compiled before = compile_and_run(p);
  {
    // Lower and generate code with faults that can run in process in the compile's context, so
    // that anything a fault could cache (lowerings, codegen state) is exercised.
    pipeline::RunOptions faulty;
    faulty.context.faults = FaultSet::of({"codegen-stuck-loop", "mul-drops-tail"});
    const pipeline::Lowered lowered = pipeline::run_passes(p, pipeline::find_pipeline("O0").passes, faulty);
    const std::string faulty_loop = loop::print(lowered.module);
    const std::string faulty_llvm = codegen::emit_llvm_text(lowered.module, "faults_", faulty.context.faults);
    EXPECT_NE(faulty_loop, before.loop_ir);
    EXPECT_NE(faulty_llvm, before.llvm_ir);
  }
  const Compiled after = compile_and_run(p);
  EXPECT_EQ(after.loop_ir, before.loop_ir);
  EXPECT_EQ(after.llvm_ir, before.llvm_ir);
  ASSERT_EQ(after.outputs.size(), before.outputs.size());
  for (size_t i = 0; i < before.outputs.size(); ++i) EXPECT_TRUE(after.outputs[i].same_bytes(before.outputs[i])) << i;
}

// ------------------------------------------------------------------ faults through the oracle

using testing::FaultCase;

// `timeout`: seconds per stage; short only where a hang is expected (each one costs it), so that
// a slow machine never turns a compile into a timeout elsewhere.
// `faults`: planted in the builtin compiler checked.
oracle::Verdict check(const std::vector<std::string>& faults, const char* text, const std::string& pipeline = "O0",
                      int64_t n = 3, double timeout = 60) {
  oracle::CheckOptions options = testing::planting(testing::builtin_checks(), faults);
  options.levels = {pipeline};
  options.bindings = {{{"n", n}}};
  options.specialize = false;  // one variant: the pipeline under one binding
  options.limits.cpu_seconds = timeout;
  return oracle::check_program(testing::verified_program(text, "faults.ir"), options);
}

class FaultVerdict : public ::testing::TestWithParam<FaultCase> {};

TEST_P(FaultVerdict, AffectedProgramFailsAsExpected) {
  const FaultCase& c = GetParam();
  ASSERT_EQ(check({}, c.affected, c.pipeline).overall(), oracle::VerdictKind::Ok) << "without the fault";
  const oracle::Verdict v =
      check({c.fault}, c.affected, c.pipeline, 3, c.expected == oracle::VerdictKind::Timeout ? 5 : 60);
  ASSERT_EQ(v.variants.size(), 1u);
  EXPECT_EQ(verdict_kind_name(v.overall()), std::string(verdict_kind_name(c.expected))) << v.variants[0].message;
  const std::string stage = v.variants[0].stage.name();
  if (c.expected == oracle::VerdictKind::CompileCrash) {
    EXPECT_TRUE(stage == c.stage || stage == "LegalizeOps") << stage << ": " << v.variants[0].message;
  } else {
    EXPECT_EQ(stage, c.stage) << v.variants[0].message;
  }
  if (c.expected == oracle::VerdictKind::Mismatch) {
    EXPECT_EQ(v.variants[0].output, "%y");
    if (c.worst_last_index >= 0) {
      EXPECT_EQ(v.variants[0].index.back(), c.worst_last_index);
    }
    EXPECT_NE(v.variants[0].message.find(c.differing), std::string::npos) << v.variants[0].message;
  }
}

TEST_P(FaultVerdict, ProgramWithoutTheOpIsOk) {
  const FaultCase& c = GetParam();
  const oracle::Verdict v = check({c.fault}, c.unaffected, c.pipeline);
  EXPECT_EQ(verdict_kind_name(v.overall()), std::string("ok"))
      << (v.first_failure() ? v.first_failure()->message : "");
}

const FaultCase& case_of(const std::string& fault) {
  for (const auto& c : testing::all_fault_cases()) {
    if (c.fault == fault) return c;
  }
  throw std::logic_error("no case for " + fault);
}

std::string failure(const oracle::Verdict& v) { return v.first_failure() ? v.first_failure()->message : ""; }

// The checklist of docs/faults.md ("Writing a fault"), kept whole: every declared fault has a
// case of its verdict, a row in the catalog's tables and a reduced reproducer in the corpus, and
// nothing names a fault that is not declared.
TEST(Faults, EveryDeclaredFaultHasACaseACatalogRowAndAReproducer) {
  const std::vector<std::string> declared = fault_names();
  std::set<std::string> cases, rows, reproducers;
  for (const auto& c : testing::all_fault_cases()) cases.insert(c.fault);
  std::ifstream doc(std::string(DIFFTEST_SOURCE_DIR) + "/docs/faults.md");
  ASSERT_TRUE(doc) << "docs/faults.md";
  bool in_catalog = false;
  for (std::string line; std::getline(doc, line);) {
    if (line.rfind("## ", 0) == 0) in_catalog = line == "## The catalog";
    if (in_catalog && line.rfind("| `", 0) == 0) rows.insert(line.substr(3, line.find('`', 3) - 3));
  }
  for (const auto& entry : std::filesystem::directory_iterator(std::string(DIFFTEST_SOURCE_DIR) + "/corpus/faults")) {
    if (entry.path().extension() == ".ir") reproducers.insert(entry.path().stem().string());
  }
  const std::set<std::string> names(declared.begin(), declared.end());
  EXPECT_EQ(cases, names) << "tests/compiler/fault_cases_*.cc";
  EXPECT_EQ(rows, names) << "docs/faults.md, The catalog";
  EXPECT_EQ(reproducers, names) << "corpus/faults/";
}

// Culprit-pass bisection must be able to name the pass a fault lives in: the same pipeline
// without that one pass is right with the fault on.
TEST(Faults, PipelineWithoutTheFaultsPassIsOk) {
  int checked = 0;
  for (const auto& f : faults::all_faults()) {
    if (f.pass == "LegalizeOps" || f.pass == "codegen") continue;  // required: cannot be dropped
    const FaultCase& c = case_of(f.name);
    oracle::CheckOptions options = testing::planting(testing::builtin_checks(), {f.name});
    options.levels.clear();
    pipeline::Pipeline without = pipeline::find_pipeline(c.pipeline);
    if (pipeline::find_pass(f.pass).kind == pipeline::PassKind::Codegen) {
      // A codegen step is the pipeline's setting: the one it has is contraction.
      ASSERT_EQ(f.pass, "ContractMultiplyAdds") << f.name;
      ASSERT_TRUE(without.fma_contraction) << f.name << ": " << c.pipeline << " does not contract";
      without.fma_contraction = false;
    } else {
      const auto it = std::find(without.passes.begin(), without.passes.end(), f.pass);
      ASSERT_NE(it, without.passes.end()) << f.name << ": " << c.pipeline << " does not run " << f.pass;
      without.passes.erase(it);
    }
    without.name = std::string(c.pipeline) + "-without-" + f.pass;
    options.custom = {testing::custom_list(without)};
    options.bindings = {{{"n", 3}}};
    options.specialize = false;
    const oracle::Verdict v = oracle::check_program(testing::verified_program(c.affected, "faults.ir"), options);
    EXPECT_EQ(verdict_kind_name(v.overall()), std::string("ok")) << f.name << ": " << failure(v);
    ++checked;
  }
  EXPECT_GE(checked, 3);
}

// No fault is on for the process: checks of the clean compiler and of one with a fault planted,
// interleaved in one process, each give their own verdict.
TEST(Faults, ChecksOfDifferentPlantedSetsShareAProcess) {
  const FaultCase& c = case_of("mul-drops-tail");
  EXPECT_EQ(check({}, c.affected, c.pipeline).overall(), oracle::VerdictKind::Ok);
  EXPECT_EQ(check({c.fault}, c.affected, c.pipeline).overall(), c.expected);
  EXPECT_EQ(check({}, c.affected, c.pipeline).overall(), oracle::VerdictKind::Ok);
  EXPECT_EQ(check({c.fault}, c.affected, c.pipeline).overall(), c.expected);
}

// The folded arange is right at the guessed dim (its lower bound) and only there.
TEST(Faults, SymbolicFoldIsRightAtTheGuessedDim) {
  const FaultCase& c = case_of("fold-constant-symbolic-shape");
  EXPECT_EQ(verdict_kind_name(check({c.fault}, c.affected, "O2", 1).overall()), std::string("ok"));
  EXPECT_EQ(verdict_kind_name(check({c.fault}, c.affected, "O2", 2).overall()), std::string("mismatch"));
}

// With a symbolic K the remainder loop is always emitted; it must only lose an element when
// the lanes (16 for f32) do not divide K.
TEST(Faults, ReductionTailOnlyBreaksWhenLanesDoNotDivideK) {
  const char* text = R"(program @row_sum(k: 1..64) {
  %a: f32[3, k] = param
  %y: f32[3] = sum(%a, axes=[1])
  return %y
}
)";
  auto at = [&](int64_t k) {
    oracle::CheckOptions options = testing::planting(testing::builtin_checks(), {"schedule-reduction-tail"});
    options.levels = {"O3"};
    options.bindings = {{{"k", k}}};
    options.specialize = false;
    return oracle::check_program(testing::verified_program(text, "faults.ir"), options);
  };
  for (int64_t k : {16, 32, 48}) {
    const oracle::Verdict v = at(k);
    EXPECT_EQ(verdict_kind_name(v.overall()), std::string("ok")) << "K = " << k << ": " << failure(v);
  }
  for (int64_t k : {1, 15, 17, 33}) {
    EXPECT_EQ(verdict_kind_name(at(k).overall()), std::string("mismatch")) << "K = " << k;
  }
}

INSTANTIATE_TEST_SUITE_P(Faults, FaultVerdict, ::testing::ValuesIn(testing::all_fault_cases()),
                         [](const ::testing::TestParamInfo<FaultCase>& info) {
                           std::string name = info.param.fault;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

}  // namespace
}  // namespace difftest
