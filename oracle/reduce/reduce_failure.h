// `difftest reduce`: from a failing program to a minimal reproducer, its culprit pass and a
// report to file upstream. Bisection (oracle/bisect.h) finds the culprit and the smallest
// failing pass list; the reducer (fuzz/reduce.h) then shrinks the program while it still
// fails with the same failure key and the same culprit (no slippage to another bug).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "fuzz/reduce.h"
#include "oracle/reduce/bisect.h"
#include "oracle/check/check.h"

namespace difftest::oracle {

// The first failure check_program(p, options) shows, whichever variant showed it (a pipeline,
// a random order, the specialized compile, a cross-check); nullopt when there is none.
std::optional<FailingRun> first_failing_run(const Program& p, const CheckOptions& options);

// The failure a saved verdict of `p` records (verdict.json beside a reproducer, as a campaign
// or `--save` writes it): the variant with the verdict's "signature", else its first failing
// variant; a compile failure (no binding of its own) gets p's first standard binding. nullopt
// when it records no failure; UserError naming `where` when it is malformed.
std::optional<FailingRun> recorded_failing_run(const Program& p, const nlohmann::json& verdict,
                                               const std::string& where, const VariantLadder& compiler);

// The failure to bisect or reduce in the saved program `file` (parsed as `p`): when
// `recorded_first`, the one the verdict.json beside it records (a campaign's reproducer, a
// reduction's output); otherwise, or when it records none, the first failure checking `p` with
// `options` shows. `how` says which; `failing` is nullopt when there is no failure.
struct LocatedFailure {
  std::optional<FailingRun> failing;
  std::string how;
};
LocatedFailure locate_failure(const Program& p, const std::string& file, const CheckOptions& options,
                              bool recorded_first);

// Where a reduction is (for progress lines).
struct ReduceProgress {
  std::string phase;  // "bisect", "reduce", "final check"
  int oracle_calls = 0;
  double elapsed = 0, time_limit = 0;  // seconds; time_limit 0: none
  int64_t ops = 0;                     // of the best program so far
  std::string step;                    // what the last call checked
};

struct ReductionReport {
  Program original;
  FailingRun failing;           // on the original program
  Culprit culprit;              // on the original program
  fuzz::Reduced reduced;
  VariantVerdict reduced_failure;  // the reduced program under the minimal pass list
  bool reproduces = false;         // ... shows the original's failure key (a final check)
  std::vector<std::string> faults;
  bool passes_without_faults = false;  // with faults injected: the reduced program without them
  // Where the time limit stopped the work ("" when it did not): "bisection" (no culprit, the
  // original program is the result), "reduction", or "final check" (reproduces and
  // passes_without_faults were not checked).
  std::string stopped_in;
  int oracle_calls = 0;         // bisection + reduction + final checks
  double seconds = 0;
  const CompilerUnderTest* compiler = nullptr;  // whose failure it is: the report's environment
};

// "reduce: bisect  14 oracle calls  0m41s of 2m00s  23 ops  last: ..."
std::string format_reduce_progress(const ReduceProgress& p);

// Bisects, reduces, and writes DIR/repro.ir, DIR/in_<name>.npy, DIR/verdict.json and
// DIR/report.md (the best program so far is in DIR/repro.ir after every accepted step).
// `reduce_options.time_limit` bounds the whole of it, bisection and final checks included;
// candidates get CPU budgets relative to the original's measured work (bisect.h).
ReductionReport reduce_failure(const Program& p, const FailingRun& failing, const CheckOptions& options,
                               fuzz::ReduceOptions reduce_options, const std::string& out_dir,
                               const std::function<void(const ReduceProgress&)>& on_progress = {});

// The text of report.md.
std::string report_markdown(const ReductionReport& r);
nlohmann::json report_json(const ReductionReport& r);

}  // namespace difftest::oracle
