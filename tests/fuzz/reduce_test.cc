// The program reducer on its own, with predicates written here (no compiler): it reaches a
// fixpoint of small programs, every step keeps the program valid, and the result does not
// depend on --jobs.
#include <gtest/gtest.h>

#include <atomic>

#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/ops/op.h"
#include "fuzz/generator.h"
#include "fuzz/reduce.h"

namespace difftest::fuzz {
namespace {

bool has_op(const Program& p, const std::string& op) {
  for (const auto& b : p.bindings()) {
    if (b.is_call() && b.op().name == op) return true;
  }
  return false;
}

Program parse(const std::string& text) {
  Program p = parse_program(text, "<reduce_test>");
  verify(p);
  return p;
}

constexpr const char* kChain = R"(program @chain(n: 1..64) {
  %x: f32[n, 16] = param
  %w: f32[16, 8] = param
  %b: f32[8] = const uniform(-1, 1, seed=3)
  %h: f32[n, 8] = matmul(%x, %w)
  %g: f32[n, 8] = add(%h, %b)
  %e: f32[n, 8] = exp(%g)
  %s: f32[n] = sum(%e, axes=[1])
  %t: f32[n, 8] = tanh(%h)
  return %s, %t
}
)";

TEST(Reduce, KeepsOnlyWhatThePredicateNeeds) {
  const Program p = parse(kChain);
  std::atomic<int> calls{0};
  const Interesting has_exp = [&](const Program& c, const sym::Env&) {
    ++calls;
    return has_op(c, "exp");
  };
  ReduceOptions o;
  o.binding = {{"n", 5}};
  const Reduced r = reduce_program(p, has_exp, o);
  EXPECT_NO_THROW(verify(r.program));
  EXPECT_TRUE(has_op(r.program, "exp")) << print(r.program);
  EXPECT_EQ(r.program.num_calls(), 1u) << print(r.program);
  EXPECT_TRUE(r.program.dims().empty()) << "n is fixed to its failing value\n" << print(r.program);
  EXPECT_TRUE(r.binding.empty());
  EXPECT_EQ(r.stats.tested, calls.load());
  EXPECT_GT(r.stats.accepted, 0);
  const ProgramSize before = program_size(p, o.binding), after = program_size(r.program, r.binding);
  EXPECT_TRUE(after < before) << before.str() << " -> " << after.str();
  EXPECT_EQ(after.elements, 2) << "exp of a 1-element input: " << print(r.program);
}

// Dropping the outputs of a split one at a time never makes the program smaller (the split
// stays until its last output goes), so the reducer must also try dropping them together.
TEST(Reduce, AMultiResultCallWhoseOutputsAreAllReturnedGoesAsAWhole) {
  const Program p = parse(R"(program @parts() {
  %x: f32[4] = param
  %e: f32[4] = exp(%x)
  %y: f32[4, 6] = param
  %a: f32[4, 2], %b: f32[4, 3], %c: f32[4, 1] = split(%y, indices=[2, 5], axis=1)
  return %e, %a, %b, %c
}
)");
  const Interesting has_exp = [&](const Program& c, const sym::Env&) { return has_op(c, "exp"); };
  const Reduced r = reduce_program(p, has_exp, ReduceOptions{});
  EXPECT_FALSE(has_op(r.program, "split")) << print(r.program);
  EXPECT_EQ(r.program.num_calls(), 1u) << print(r.program);
}

TEST(Reduce, NothingSmallerIsInterestingLeavesTheProgram) {
  const Program p = parse(kChain);
  const Interesting only_itself = [&](const Program& c, const sym::Env&) { return program_hash(c) == program_hash(p); };
  ReduceOptions o;
  o.binding = {{"n", 5}};
  const Reduced r = reduce_program(p, only_itself, o);
  EXPECT_EQ(print(r.program), print(p));
  EXPECT_EQ(r.stats.accepted, 0);
  EXPECT_GT(r.stats.tested, 5);
}

TEST(Reduce, ResultDoesNotDependOnJobsAndIsDeterministic) {
  for (uint64_t seed : {3u, 11u, 42u}) {
    const Program p = generate_program(seed);
    if (p.num_calls() < 3) continue;
    const std::string target = p.bindings().back().is_call() ? p.bindings().back().op().name : "";
    const Interesting keeps = [&](const Program& c, const sym::Env&) {
      return c.num_calls() >= 2 || (!target.empty() && has_op(c, target));
    };
    sym::Env env;
    for (const auto& d : p.dims()) env[d.name] = d.range.lo;
    ReduceOptions o;
    o.binding = env;
    const Reduced one = reduce_program(p, keeps, o);
    const Reduced again = reduce_program(p, keeps, o);
    o.jobs = 3;
    const Reduced three = reduce_program(p, keeps, o);
    EXPECT_EQ(print(one.program), print(again.program)) << "seed " << seed;
    EXPECT_EQ(print(one.program), print(three.program)) << "seed " << seed;
    EXPECT_EQ(one.binding, three.binding);
    EXPECT_NO_THROW(verify(one.program));
  }
}

TEST(Reduce, TimeLimitReturnsTheBestSoFar) {
  const Program p = parse(kChain);
  int accepted = 0;
  ReduceOptions o;
  o.binding = {{"n", 5}};
  o.time_limit = 1e-9;
  o.on_accept = [&](const Program&, const sym::Env&) { ++accepted; };
  const Reduced r = reduce_program(p, [](const Program&, const sym::Env&) { return true; }, o);
  EXPECT_TRUE(r.stats.timed_out);
  EXPECT_EQ(accepted, r.stats.accepted);
  EXPECT_NO_THROW(verify(r.program));
}

}  // namespace
}  // namespace difftest::fuzz
