// difftest reduce and difftest bisect: flags in, oracle/reduce_failure.h and oracle/bisect.h do
// the work.
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "compiler/ir/parser.h"
#include "compiler/ir/verifier.h"
#include "oracle/reduce_failure.h"
#include "oracle/reproducer.h"
#include "reference/inputs.h"
#include "reference/summary.h"
#include "tools/cli_common.h"

namespace difftest::cli {

namespace {

struct FailingProgram {
  difftest::Program program;
  difftest::oracle::CheckOptions options;
  std::optional<difftest::oracle::FailingRun> failing;
};

// FILE, parsed and verified, and its failing pipeline and binding under the flags (faults
// recorded beside it on).
FailingProgram failing_program(ReduceFlags& f) {
  FailingProgram r{difftest::parse_program_file(f.file), {}, std::nullopt};
  difftest::verify(r.program);
  for (const auto& fault : difftest::oracle::recorded_faults(f.file)) {
    if (std::find(f.check.inject.begin(), f.check.inject.end(), fault) != f.check.inject.end()) continue;
    fmt::print("fault {} recorded beside {}: turned on\n", fault, f.file);
    f.check.inject.push_back(fault);
  }
  f.check.orders = f.check.passes.empty() ? f.check.orders : 0;
  r.options = difftest::oracle::single_pipeline_checks(check_options(f.check));
  if (!f.bind.empty()) r.options.bindings = {difftest::reference::parse_binding(f.bind, "--bind")};
  r.failing = difftest::oracle::first_failing_run(r.program, r.options);
  return r;
}

}  // namespace

void add_reduce_flags(CLI::App* app, ReduceFlags& f, bool reduce) {
  app->add_option("file", f.file, "a failing IR file (a fault recorded in verdict.json beside it is turned on again)")
      ->required();
  add_check_flags(app, f.check, false);
  app->add_option("--bind", f.bind, "the failing binding, e.g. n=5 (default: the first failing one)");
  if (!reduce) return;
  app->add_option("--out", f.out_dir, "output directory (default FILE's name + .reduced)");
  app->add_option("--jobs", f.jobs, "candidates checked at once (the result does not depend on it)")->check(CLI::Range(1, 64));
  app->add_option("--time", f.time, "stop after this many seconds with the best program so far");
}

int run_bisect(ReduceFlags f) {
  namespace oracle = difftest::oracle;
  const auto [p, options, failing] = failing_program(f);
  if (!failing) {
    fmt::print("no failure: nothing to bisect\n");
    return kOk;
  }
  fmt::print("failing: {} under {}: {}\n", failing->pipeline.name, difftest::reference::binding_str(failing->binding),
             failing->verdict.signature());
  fmt::print("{}\n", oracle::format_culprit(oracle::find_culprit(p, failing->pipeline, failing->binding, options)));
  return kFailure;
}

int run_reduce(ReduceFlags f) {
  namespace oracle = difftest::oracle;
  const auto [p, options, failing] = failing_program(f);
  if (!failing) {
    fmt::print("no failure: nothing to reduce\n");
    return kOk;
  }
  const std::string out = f.out_dir.empty() ? f.file + ".reduced" : f.out_dir;
  difftest::fuzz::ReduceOptions ro;
  ro.jobs = f.jobs;
  ro.time_limit = f.time;
  const oracle::ReductionReport r = oracle::reduce_failure(p, *failing, options, ro, out);
  fmt::print("{}\nreduced {} ops to {} in {:.1f} s, {} oracle calls{}\n{}\nwritten to {}/ (repro.ir, inputs, "
             "verdict.json, report.md, repro_tvmscript.py)\n",
             oracle::format_culprit(r.culprit), r.original.num_calls(), r.reduced.program.num_calls(), r.seconds,
             r.oracle_calls, r.reduced.stats.timed_out ? " (time limit reached)" : "",
             fmt::format("reduced program: {} ({}){}", r.reduced_failure.signature(), r.reduced_failure.message,
                         r.reproduces ? "" : "\nWARNING: the reduced program does not reproduce the original failure"),
             out);
  return kFailure;
}

}  // namespace difftest::cli
