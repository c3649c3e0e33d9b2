// What the schedule-rule tests share: lowering a graph program to the loop module a rule sees,
// and structural facts about a module that say whether a rule fired.
#pragma once

#include <string>
#include <vector>

#include "tests/support/jit_util.h"
#include "tests/support/pass_testing.h"

namespace difftest::testing {

// For the text default target (avx512), whatever the host: the expectations count its lanes.
inline loop::Module lowered(const std::string& program_text, const std::vector<std::string>& passes = {"LegalizeOps"}) {
  pipeline::RunOptions options;
  options.context.target = &target::text_default_target();
  return pipeline::run_passes(parse_case(program_text), passes, options).module;
}

// How many times `needle` occurs in the module's text form ("vectorized", "parallel", ...).
inline int occurrences(const loop::Module& m, const std::string& needle) {
  const std::string text = loop::print(m);
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}

// A rule on the module of `program_text` rewrites at least `at_least` functions, and the
// program compiled with it at LLVM O3 agrees with the bounded reference.
inline ::testing::AssertionResult rule_fires_and_agrees(const std::string& rule, const std::string& program_text,
                                                        int at_least = 1) {
  const loop::Module before = lowered(program_text);
  const loop::Module after = run_loop_pass(rule, before);
  int changed = 0;
  for (size_t f = 0; f < before.funcs.size(); ++f) changed += !after.funcs[f].body.same_as(before.funcs[f].body);
  if (changed < at_least) {
    return ::testing::AssertionFailure() << rule << " rewrote " << changed << " functions, expected at least "
                                         << at_least << ":\n" << loop::print(before);
  }
  return compiled_agrees(parse_case(program_text), {"LegalizeOps", rule}, 3);
}

// A hand-written module (e.g. what fusion would produce) for program `p`, compiled at
// `llvm_level`, agrees with p's bounded reference under every standard binding.
inline ::testing::AssertionResult module_agrees(const Program& p, const loop::Module& m, int llvm_level = 3) {
  loop::verify(m);
  const runtime::Executable exe(p, for_this_host(m), codegen::JitOptions{llvm_level, false});
  return executable_agrees(p, exe, "module:\n" + loop::print(m));
}

}  // namespace difftest::testing
