// Culprit-pass bisection (LLVM's opt-bisect, driven automatically): for a variant that fails
// on a program under one binding, the first step application (a pass of the builtin compiler)
// after which the failure appears, and the smallest subsequence of the variant's steps that
// still fails the same way. What it may do with a step the compiler under test says
// (CompilerUnderTest::step_role, program_after, fixed_culprit).
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "oracle/check/check.h"
#include "oracle/check/variant.h"

namespace difftest::oracle {

// What makes two failures "the same": the verdict kind and the masked message (a mismatch's
// message is all numbers, so a mismatch is just its kind). The output and the stage are left
// out, because reducing a program renames and removes values.
struct FailureKey {
  VerdictKind kind = VerdictKind::Ok;
  std::string message;  // normalize_message'd; empty for a non-failure and an output finding

  static FailureKey of(const VariantVerdict& v);
  // "mismatch", "compile_error|unknown op <N>", as reports record it.
  std::string str() const;
  bool operator==(const FailureKey& o) const { return kind == o.kind && message == o.message; }
  bool operator!=(const FailureKey& o) const { return !(*this == o); }
};

// `base` without the comparisons of two compiles (cross-checks, the specialized compile).
CheckOptions single_pipeline_checks(CheckOptions base);

// The caller's deadline (CheckOptions::limits.deadline) stopped a check before it had a verdict.
struct DeadlineReached : std::runtime_error {
  DeadlineReached() : std::runtime_error("the time limit was reached") {}
};

// check_variant's outcome (oracle/check.h); throws DeadlineReached when the deadline stopped it.
VariantVerdict check_variant_outcome(const Program& p, const VariantId& id, const sym::Env& binding,
                                     const CheckOptions& base);

// A CPU budget relative to measured work: `factor` x `work_cpu_seconds`, at least
// `kMinRelativeBudget` seconds and at most `base`'s own budget. Bisection and reduction check
// many programs no larger than one whose work they measured; where a probe hangs, this budget,
// not the user's, is what it costs.
inline constexpr double kRelativeBudgetFactor = 10;
inline constexpr double kMinRelativeBudget = 0.5;
CheckOptions relative_budget(CheckOptions base, double work_cpu_seconds);

struct Culprit {
  bool reproduced = false;      // the whole pipeline fails (with `key`)
  FailureKey key;               // of the whole variant's failure
  VariantVerdict failure;       // the verdict at the culprit's limit
  int application = -1;         // opt-bisect number of the culprit (0: no optional step is needed)
  std::string pass;  // its name; the compiler's fixed_culprit ("LegalizeOps", "codegen") when application is 0
  std::string confirmation;     // for a graph pass: what the reference says of its output program
  // A graph pass after which the failure appears although the reference agrees with the program
  // it leaves: it exposed a lowering bug (then `pass` is LegalizeOps or codegen, application 0).
  std::string exposed_by;
  int exposed_at = -1;
  std::vector<std::string> minimal_passes;  // the smallest failing subsequence found (greedy)
  // A compiler's own search (CompilerUnderTest::own_culprit_search): what it found, as the
  // report prints it (`pass` names the culprits, `minimal_passes` lists them).
  std::string summary;
  bool shrink_complete = true;              // false: the deadline stopped the shrinking of the pass list
  // The largest CPU time (seconds) of a check that finished, failing or passing: the work a
  // program of this size takes, for relative budgets.
  double work_cpu_seconds = 0;
  int oracle_calls = 0;
};

// A failing variant under one binding: what bisection and reduction start from.
struct FailingRun {
  VariantId variant;
  sym::Env binding;
  VariantVerdict verdict;
  // CPU seconds a check of this program takes where it finishes (other variants, or the stages
  // before the one that hung); 0 when unknown. Hang bisection and reduction budget relative to it.
  double work_cpu_seconds = 0;
};

// The work a verdict shows: the largest CPU time of a variant that finished, and of the stages
// that finished before a timeout.
double measured_work(const Verdict& v);
double measured_work(const VariantVerdict& v);

// Reports each oracle call: the number of calls so far and what it checked.
using BisectProgress = std::function<void(int calls, const std::string& step)>;

// Binary search of `bisect_limit` over [0, number of passes] (assumes the failure, once it
// appears, stays), then, for a graph pass, the reference run on the program that pass produced
// (when the reference agrees with it, the pass only exposed a bug of the lowering, which becomes
// the culprit); then greedy removal of every other pass while the same failure and culprit remain.
// For a timeout, probes get a budget relative to `failing.work_cpu_seconds` and to the work of
// the probes that finish.
// DeadlineReached when `base.limits.deadline` passes before the search ends (the shrinking of
// the pass list just stops, `shrink_complete` false).
Culprit find_culprit(const Program& p, const FailingRun& failing, const CheckOptions& base, bool shrink_passes = true,
                     const BisectProgress& on_call = {});

// "(7) FuseOps" style, with the confirmation, for terminals and reports.
std::string format_culprit(const Culprit& c);

}  // namespace difftest::oracle
