// What every pass test uses: IR-in/IR-out cases in the text form, and the properties that a
// pass preserves the reference's results.
//
//   expect_rewrite("FoldConstant", in, out)     the pass turns `in` into exactly `out`
//   expect_unchanged("CommonSubexprElimination", in)  the pass returns the very same program
//   preserves_reference(before, after)          `after`, interpreted natively, stays within the
//                                               error bounds of `before` under its bindings
//   compiled_agrees(p, passes)                  p compiled with a pass list agrees with its
//                                               bounded reference under its bindings
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/loop/parser.h"
#include "compiler/loop/printer.h"
#include "compiler/loop/verifier.h"
#include "compiler/pipeline/compile.h"
#include "compiler/faults/faults.h"
#include "compiler/pipeline/pass_manager.h"
#include "oracle/check/case.h"
#include "reference/inputs.h"
#include "reference/reference.h"
#include "reference/summary.h"
#include "tolerance/bounds.h"
#include "tolerance/compare.h"

namespace difftest::testing {

inline Program parse_case(const std::string& text) {
  Program p = parse_program(text, "<case>");
  verify(p);
  return p;
}

// The context a test's pass runs under: the default target and `faults` on.
inline CompileContext test_context(const std::vector<std::string>& faults = {}) {
  CompileContext c;
  c.faults = FaultSet::of(faults);
  return c;
}

inline Program run_graph_pass(const std::string& pass, const Program& p, const std::vector<std::string>& faults = {}) {
  const pipeline::PassInfo& info = pipeline::find_pass(pass);
  EXPECT_EQ(info.kind, pipeline::PassKind::Graph) << pass;
  if (info.graph_precondition) {
    const std::string why = info.graph_precondition(p);
    EXPECT_EQ(why, "") << pass << " refused its input";
  }
  Program out = info.graph(p, test_context(faults));
  verify(out);
  return out;
}

inline loop::Module run_loop_pass(const std::string& pass, const loop::Module& m) {
  const pipeline::PassInfo& info = pipeline::find_pass(pass);
  EXPECT_EQ(info.kind, pipeline::PassKind::Loop) << pass;
  loop::Module out = info.loop(m, test_context());
  loop::verify(out);
  return out;
}

// `intent` says what the case is about ("must not fold a symbolic-shape arange"); it is
// printed with any failure.
inline void expect_rewrite(const std::string& pass, const std::string& in, const std::string& want,
                           const std::string& intent) {
  const Program before = parse_case(in);
  const Program after = run_graph_pass(pass, before);
  EXPECT_EQ(print(after), print(parse_case(want))) << pass << ": " << intent;
  EXPECT_EQ(print(run_graph_pass(pass, after)), print(after)) << pass << " is not idempotent here: " << intent;
}

inline void expect_unchanged(const std::string& pass, const std::string& in, const std::string& intent) {
  const Program before = parse_case(in);
  const Program after = run_graph_pass(pass, before);
  EXPECT_EQ(print(after), print(before)) << pass << ": " << intent;
  EXPECT_TRUE(after.same_as(before)) << pass << " rebuilt a program it did not change: " << intent;
}

inline void expect_loop_rewrite(const std::string& pass, const std::string& in, const std::string& want,
                                const std::string& intent) {
  const loop::Module after = run_loop_pass(pass, loop::parse_module(in, "<case>"));
  EXPECT_EQ(loop::print(after), loop::print(loop::parse_module(want, "<want>"))) << pass << ": " << intent;
}

inline tolerance::Options probabilistic() {
  tolerance::Options o;
  o.mode = tolerance::BoundMode::Probabilistic;
  return o;
}

// The cases these properties compare with: inputs from seed 1, the probabilistic sound bounds
// (a pass may reorder sums; the statistical tier is the check's business, not a pass test's).
inline oracle::CaseOptions sound_cases() {
  oracle::CaseOptions o;
  o.input_seed = 1;
  o.tolerance = probabilistic();
  o.ensemble.members = 0;
  return o;
}

inline std::string describe_failures(const tolerance::Comparison& c) {
  std::string out;
  for (const auto& o : c.outputs) {
    if (o.passed()) continue;
    out += "output " + o.name + ": " + std::to_string(o.failing) + " of " + std::to_string(o.compared) +
           " failing, worst ratio " + std::to_string(o.worst_ratio) + " (got " + std::to_string(o.got) + ", want " +
           std::to_string(o.want) + ", bound " + std::to_string(o.bound) + ")\n";
  }
  return out;
}

// Under every standard binding of `before`: the reference's native evaluation of `after` is
// within the bounds of `before`. Programs whose reference is invalid under a binding (NaN/Inf)
// are skipped for that binding.
inline ::testing::AssertionResult preserves_reference(const Program& before, const Program& after) {
  const oracle::CaseOptions options = sound_cases();
  for (const sym::Env& env : reference::standard_bindings(before)) {
    const oracle::Case bounded = oracle::make_case(before, env, options);
    if (bounded.invalid()) continue;
    sym::Env after_env;
    for (const auto& d : after.dims()) after_env[d.name] = env.at(d.name);
    const auto got = reference::evaluate(after, after_env, bounded.inputs, reference::Mode::Native).outputs;
    const auto c = bounded.compare(before, got, options.tolerance);
    if (!c.passed()) {
      return ::testing::AssertionFailure() << "under " << reference::binding_str(env) << ":\n"
                                           << describe_failures(c) << "before:\n"
                                           << print(before) << "after:\n"
                                           << print(after);
    }
  }
  return ::testing::AssertionSuccess();
}

// Under every standard binding: `exe` (compiled from `p`) agrees with p's bounded reference;
// `shown` is printed with a failure (the program or the module).
inline ::testing::AssertionResult executable_agrees(const Program& p, const runtime::Executable& exe,
                                                    const std::string& shown) {
  const oracle::CaseOptions options = sound_cases();
  for (const sym::Env& env : reference::standard_bindings(p)) {
    const oracle::Case bounded = oracle::make_case(p, env, options);
    if (bounded.invalid()) continue;
    const auto c = bounded.compare(p, exe.run(bounded.inputs, env), options.tolerance);
    if (!c.passed()) {
      return ::testing::AssertionFailure() << "under " << reference::binding_str(env) << ":\n"
                                           << describe_failures(c) << shown;
    }
  }
  return ::testing::AssertionSuccess();
}

// Under every standard binding: `p` compiled with `passes` (and LLVM at `llvm_level`) agrees
// with the bounded reference.
inline ::testing::AssertionResult compiled_agrees(const Program& p, const std::vector<std::string>& passes,
                                                  int llvm_level = 0, const target::Target* target = nullptr) {
  pipeline::RunOptions options;
  options.context = test_context();
  if (target != nullptr) options.context.target = target;
  const runtime::Executable exe = pipeline::compile(p, pipeline::Pipeline{"test", passes, llvm_level}, options);
  return executable_agrees(p, exe, "program:\n" + print(p));
}

}  // namespace difftest::testing
