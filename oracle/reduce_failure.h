// `difftest reduce`: from a failing program to a minimal reproducer, its culprit pass and a
// report to file upstream. Bisection (oracle/bisect.h) finds the culprit and the smallest
// failing pass list; the reducer (fuzz/reduce.h) then shrinks the program while it still
// fails with the same failure key and the same culprit (no slippage to another bug).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "fuzz/reduce.h"
#include "oracle/bisect.h"
#include "oracle/check.h"

namespace difftest::oracle {

inline constexpr const char* kDifftestVersion = "0.1.0";

// A failing pipeline under one binding: what bisection and reduction start from.
struct FailingRun {
  pipeline::Pipeline pipeline;
  sym::Env binding;
  VariantVerdict verdict;
};

// The first failure of check_program(p, options) that one pipeline shows on its own (a
// cross-check between two pipelines or a specialized compile is reported as such by a
// UserError of kind Usage: check those pipelines separately).
std::optional<FailingRun> first_failing_run(const Program& p, const CheckOptions& options);

struct ReductionReport {
  Program original;
  FailingRun failing;           // on the original program
  Culprit culprit;              // on the original program
  fuzz::Reduced reduced;
  VariantVerdict reduced_failure;  // the reduced program under the minimal pass list
  bool reproduces = false;         // ... shows the original's failure key (a final check)
  std::vector<std::string> faults;
  bool passes_without_faults = false;  // with faults injected: the reduced program without them
  int oracle_calls = 0;         // bisection + reduction + final checks
  double seconds = 0;
};

// Bisects, reduces, and writes DIR/repro.ir, DIR/in_<name>.npy, DIR/verdict.json and
// DIR/report.md (the best program so far is in DIR/repro.ir after every accepted step).
ReductionReport reduce_failure(const Program& p, const FailingRun& failing, const CheckOptions& options,
                               fuzz::ReduceOptions reduce_options, const std::string& out_dir);

// The text of report.md.
std::string report_markdown(const ReductionReport& r);
nlohmann::json report_json(const ReductionReport& r);

}  // namespace difftest::oracle
