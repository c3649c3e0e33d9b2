// difftest reduce and difftest bisect: flags in, oracle/reduce_failure.h and oracle/bisect.h do
// the work.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <optional>

#include "compiler/ir/parser.h"
#include "compiler/ir/verifier.h"
#include "oracle/campaign/reproducer.h"
#include "oracle/check/clock.h"
#include "oracle/io/output_paths.h"
#include "oracle/reduce/reduce_failure.h"
#include "reference/inputs.h"
#include "reference/summary.h"
#include "tools/cli_common.h"
#include "tools/progress_line.h"

namespace difftest::cli {

namespace {

namespace fs = std::filesystem;

struct FailingProgram {
  difftest::Program program;
  difftest::oracle::CheckOptions options;
  std::optional<difftest::oracle::FailingRun> failing;
  std::string found;  // how the failure was found
};

// FILE, parsed and verified, and its failing variant and binding: the one verdict.json beside
// FILE records (a campaign's reproducer, a reduction's output), unless flags choose pipelines
// or a binding; otherwise the first failure of checking FILE under the flags. Faults recorded
// beside it are turned on.
FailingProgram failing_program(ReduceFlags& f, const difftest::oracle::Deadline& deadline) {
  namespace oracle = difftest::oracle;
  FailingProgram r{difftest::parse_program_file(f.file), {}, std::nullopt, ""};
  difftest::verify(r.program);
  for (const auto& fault : oracle::recorded_faults(f.file)) {
    if (std::find(f.check.inject.begin(), f.check.inject.end(), fault) != f.check.inject.end()) continue;
    fmt::print("fault {} recorded beside {}: turned on\n", fault, f.file);
    f.check.inject.push_back(fault);
  }
  if (!f.check.passes.empty() && !f.check.given("--orders")) f.check.orders = 0;
  r.options = check_options(f.check);
  r.options.limits.deadline = deadline;
  if (!f.bind.empty()) r.options.bindings = {difftest::reference::parse_binding(f.bind, "--bind")};
  auto located = oracle::locate_failure(r.program, f.file, r.options, !f.check.pipelines_given() && f.bind.empty());
  r.failing = std::move(located.failing);
  r.found = std::move(located.how);
  return r;
}

}  // namespace

void add_reduce_flags(CLI::App* app, ReduceFlags& f, bool reduce) {
  app->add_option("file", f.file,
                  "a failing IR file (the failure and faults recorded in verdict.json beside it are used again)")
      ->required();
  add_check_flags(app, f.check, false);
  app->add_option("--bind", f.bind, "the failing binding, e.g. n=5 (default: the first failing one)");
  if (!reduce) return;
  app->add_option("--out", f.out_dir, "output directory (default FILE's name + .reduced)");
  app->add_option("--jobs", f.jobs, "candidates checked at once (the result does not depend on it)")->check(CLI::Range(1, 64));
  app->add_option("--time", f.time,
                  "seconds for the whole reduction, bisection included; the best program so far is "
                  "written when they run out")
      ->check(seconds());
}

int run_bisect(ReduceFlags f) {
  namespace oracle = difftest::oracle;
  const auto [p, options, failing, found] = failing_program(f, std::nullopt);
  if (!failing) {
    fmt::print("no failure: nothing to bisect\n");
    return kOk;
  }
  fmt::print("failing: {} under {}: {} ({})\n", failing->variant.name(),
             difftest::reference::binding_str(failing->binding), failing->verdict.signature().str(), found);
  ProgressLine progress;
  const oracle::Culprit c = oracle::find_culprit(p, *failing, options, true, [&](int calls, const std::string& step) {
    progress.update(fmt::format("bisect: {} oracle calls, last: {}", calls, step));
  });
  progress.finish();
  fmt::print("{}\n", oracle::format_culprit(c));
  return c.reproduced ? kFailure : kOk;
}

int run_reduce(ReduceFlags f) {
  namespace oracle = difftest::oracle;
  const std::string out = f.out_dir.empty() ? f.file + ".reduced" : f.out_dir;
  oracle::require_writable_dir(out, "--out");
  const auto t0 = std::chrono::steady_clock::now();
  const auto [p, options, failing, found] = failing_program(f, oracle::deadline_in(f.time));
  if (!failing) {
    fmt::print("no failure: nothing to reduce\n");
    return kOk;
  }
  fmt::print("failing: {} under {}: {} ({})\n", failing->variant.name(),
             difftest::reference::binding_str(failing->binding), failing->verdict.signature().str(), found);
  difftest::fuzz::ReduceOptions ro;
  ro.jobs = f.jobs;
  if (f.time > 0) {
    ro.time_limit = std::max(1e-3, f.time - difftest::oracle::seconds_since(t0));
  }
  ProgressLine progress;
  const oracle::ReductionReport r = oracle::reduce_failure(
      p, *failing, options, ro, out,
      [&](const oracle::ReduceProgress& s) { progress.update(oracle::format_reduce_progress(s)); });
  progress.finish();
  if (r.stopped_in == "bisection") {
    fmt::print(
        "the time limit ran out during bisection ({} oracle calls): no culprit; the original program and its "
        "verdict are written to {}/\n",
        r.oracle_calls, out);
    return kFailure;
  }
  fmt::print(
      "{}\nreduced {} ops to {} in {:.1f} s, {} oracle calls{}\n{}\nwritten to {}/ (repro.ir, inputs, "
      "verdict.json, report.md, repro_tvmscript.py)\n",
      oracle::format_culprit(r.culprit), r.original.num_calls(), r.reduced.program.num_calls(), r.seconds,
      r.oracle_calls, r.stopped_in.empty() ? "" : fmt::format(" (time limit reached in the {})", r.stopped_in),
      r.stopped_in == "final check"
          ? std::string("reduced program: not checked again (no time left)")
          : fmt::format("reduced program: {} ({}){}", r.reduced_failure.signature().str(), r.reduced_failure.message,
                        r.reproduces ? "" : "\nWARNING: the reduced program does not reproduce the original failure"),
      out);
  return kFailure;
}

}  // namespace difftest::cli
