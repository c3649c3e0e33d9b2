// Two legitimate forms of f16/bf16 arithmetic (docs/tolerance.md, "Legitimate forms";
// tolerance/half_forms.h) are accepted by both tiers on generated programs:
//
//   1. f16 computed in f32, as ONNX Runtime's CPU provider runs f16 nodes it has no kernel for:
//      every f16 value is computed in f32 and rounded to f16 only at the program's casts to f16
//      and at its outputs;
//   2. f16/bf16 accumulated in f32 where the program declares a narrow accumulator (or none),
//      as fused kernels do.
//
// The stand-in implementation of each form is the program rewritten into it
// (tolerance/half_forms.h) and compiled by the builtin compiler at O0: an implementation
// independent of the reference and its ensemble, which evaluates the same rewrite. It
// runs on the original program's inputs and is judged against the original program's bounds, as
// the oracle judges a compiler under test (check/case.h), so an element outside them is a false
// finding the oracle would report against a correct implementation.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/printer.h"
#include "compiler/ops/op.h"
#include "compiler/pipeline/compile.h"
#include "fuzz/generator.h"
#include "oracle/check/case.h"
#include "oracle/check/check.h"
#include "reference/inputs.h"
#include "reference/summary.h"
#include "tolerance/half_forms.h"

namespace difftest::oracle {
namespace {

constexpr uint64_t kSeeds = 300;
constexpr int kMinPrograms = 30;

std::string producer(const Program& p, const Value& v) {
  for (const auto& b : p.bindings()) {
    for (const auto& r : b.results()) {
      if (r.same_as(v)) return b.is_call() ? b.op().name : "param or const";
    }
  }
  return "?";
}

struct Tally {
  int programs = 0;  // with at least one binding judged
  int invalid = 0;   // bindings where the reference is invalid
  int rejected = 0;  // programs whose form the compiler rejects
};

// The form `form` of the generated program `p` (seed `seed`) compiled at O0 and run under `p`'s
// standard bindings, each judged against `p`'s bounds (both tiers, `options`' cases) as the
// oracle judges a compiler's outputs. Returns whether every output was accepted.
bool judge_form(uint64_t seed, const Program& p, const Program& form, const CheckOptions& options, Tally& tally) {
  std::optional<runtime::Executable> exe;
  try {
    exe.emplace(pipeline::compile(form, pipeline::find_pipeline("O0")));
  } catch (const UserError&) {
    ++tally.rejected;
    return true;
  }
  bool judged = false, accepted = true;
  for (const sym::Env& binding : reference::standard_bindings(p)) {
    const Case c = make_case(p, binding, options.cases());
    if (c.invalid()) {
      ++tally.invalid;
      continue;
    }
    judged = true;
    const tolerance::Comparison cmp = c.compare(p, exe->run(c.inputs, c.env), options.tolerance);
    for (const auto& o : cmp.outputs) {
      accepted = accepted && o.failing == 0 && o.outliers == 0 && !o.bias.biased();
      const std::string where = fmt::format("seed {} under {}: output {} of {} ({})", seed,
                                            reference::binding_str(c.env), o.index, o.name,
                                            producer(p, p.outputs()[o.index]));
      EXPECT_EQ(o.failing, 0) << where << ": mismatch, " << o.failing << " of " << o.compared
                              << " elements, worst ratio " << o.worst_ratio << " at "
                              << ::testing::PrintToString(o.worst_index) << ": got " << o.got << " want " << o.want
                              << " bound " << o.bound;
      EXPECT_EQ(o.outliers, 0) << where << ": outlier, " << o.outliers << " of " << o.checked
                               << " elements, worst excess " << o.worst_excess << " at "
                               << ::testing::PrintToString(o.excess_index) << ": got " << o.excess_got << " want "
                               << o.excess_want << " allowance " << o.excess_allowance << " sigma " << o.excess_sigma;
      EXPECT_FALSE(o.bias.biased()) << where << ": " << o.bias.describe();
    }
  }
  if (judged) ++tally.programs;
  return accepted;
}

// Every generated program of seeds 0..kSeeds-1 that `selects` takes, in its form `rewrite`. The
// form of a program with a finding is printed, to replay it with `difftest run`.
void expect_form_accepted(const std::function<std::optional<tolerance::ProgramForm>(const Program&)>& rewrite,
                          const CheckOptions& options) {
  Tally tally;
  for (uint64_t seed = 0; seed < kSeeds; ++seed) {
    const Program p = generate_program(seed);
    const std::optional<tolerance::ProgramForm> rewritten = rewrite(p);
    if (!rewritten) continue;
    const Program& form = rewritten->program;
    if (!judge_form(seed, p, form, options, tally)) {
      std::printf("seed %d, its form:\n%s", static_cast<int>(seed), print(form).c_str());
    }
  }
  std::printf("%d programs judged, %d rejected by the compiler, %d invalid bindings\n", tally.programs,
              tally.rejected, tally.invalid);
  EXPECT_GE(tally.programs, kMinPrograms);
}

// Judged as the oracle judges ONNX Runtime, whose CPU provider computes f16 this way
// (backends::Backend::computes_half_in_f32: q4f16_1 codes its f16 steps decide are uncertain).
TEST(HalfFormsStandIn, F16ComputedInF32IsAccepted) {
  CheckOptions options;
  options.tolerance.half_may_compute_in_f32 = true;
  expect_form_accepted(tolerance::f16_computed_in_f32, options);
}

TEST(HalfFormsStandIn, NarrowAccumulatorsWidenedToF32AreAccepted) {
  expect_form_accepted(tolerance::narrow_acc_in_f32, CheckOptions{});
}

}  // namespace
}  // namespace difftest::oracle
