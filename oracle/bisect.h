// Culprit-pass bisection (LLVM's opt-bisect, driven automatically): for a pipeline that fails
// on a program under one binding, the first pass application after which the failure appears,
// and the smallest subsequence of the pipeline's passes that still fails the same way.
#pragma once

#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/pipeline/pipelines.h"
#include "oracle/check.h"

namespace difftest::oracle {

// What makes two failures "the same": the verdict kind and the masked message (a mismatch's
// message is all numbers, so a mismatch is just its kind). The output and the stage are left
// out, because reducing a program renames and removes values.
std::string failure_key(const VariantVerdict& v);

// `base` without the comparisons of two compiles (cross-checks, the specialized compile): the
// failures bisection and reduction can work on are those of one pipeline on its own.
CheckOptions single_pipeline_checks(CheckOptions base);

// One compile-and-run of `pipe` on `p` under `binding`, compared with the reference (no
// cross-checks, no specialization, no random orders): the worst variant.
VariantVerdict check_pipeline(const Program& p, const pipeline::Pipeline& pipe, const sym::Env& binding,
                              const CheckOptions& base);

struct Culprit {
  bool reproduced = false;      // the whole pipeline fails (with `key`)
  std::string key;              // failure_key of the whole pipeline's failure
  VariantVerdict failure;       // the verdict at the culprit's limit
  int application = -1;         // opt-bisect number of the culprit (0: no optional pass is needed)
  std::string pass;             // its name; "LegalizeOps" or "codegen" when application is 0
  std::string confirmation;     // for a graph pass: what the reference says of its output program
  // A graph pass after which the failure appears although the reference agrees with the program
  // it leaves: it exposed a lowering bug (then `pass` is LegalizeOps or codegen, application 0).
  std::string exposed_by;
  int exposed_at = -1;
  std::vector<std::string> minimal_passes;  // the smallest failing subsequence found (greedy)
  int oracle_calls = 0;
};

// Binary search of `bisect_limit` over [0, number of passes] (assumes the failure, once it
// appears, stays), then, for a graph pass, the reference run on the program that pass produced
// (when the reference agrees with it, the pass only exposed a bug of the lowering, which becomes
// the culprit); then greedy removal of every other pass while the same failure and culprit remain.
Culprit find_culprit(const Program& p, const pipeline::Pipeline& pipe, const sym::Env& binding,
                     const CheckOptions& base, bool shrink_passes = true);

// "(7) FuseOps" style, with the confirmation, for terminals and reports.
std::string format_culprit(const Culprit& c);

}  // namespace difftest::oracle
