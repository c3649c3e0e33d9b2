// fuzz, gate, reduce and bisect (commands.h): the commands that run for minutes, with a
// progress line.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <optional>

#include "backends/builtin/builtin_compiler.h"
#include "commands/commands.h"
#include "compiler/faults/faults.h"
#include "compiler/support/diagnostics.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/verifier.h"
#include "compiler/tensor/npy.h"
#include "oracle/campaign/campaign_reduce.h"
#include "oracle/campaign/reproducer.h"
#include "oracle/gate/gate.h"
#include "oracle/gate/known_findings.h"
#include "oracle/io/output_paths.h"
#include "oracle/isolate/clock.h"
#include "oracle/reduce/reduce_failure.h"
#include "reference/inputs.h"
#include "reference/summary.h"

namespace difftest::commands {

namespace {

namespace fs = std::filesystem;

struct FailingProgram {
  Program program;
  oracle::CheckOptions options;
  std::optional<oracle::FailingRun> failing;
  std::string found;  // how the failure was found
};

// FILE, parsed and verified, and its failing variant and binding: the one verdict.json beside
// FILE records (a campaign's reproducer, a reduction's output), unless flags choose pipelines
// or a binding; otherwise the first failure of checking FILE under the flags. Faults recorded
// beside it are turned on, and its recorded target is compiled for unless --target says otherwise.
FailingProgram failing_program(ReduceRequest& f, const oracle::Deadline& deadline, const Print& out) {
  FailingProgram r{parse_program_file(f.file), {}, std::nullopt, ""};
  verify(r.program);
  const oracle::RecordedSettings recorded = oracle::recorded_settings(f.file);
  for (const auto& fault : recorded.faults) {
    if (std::find(f.check.inject.begin(), f.check.inject.end(), fault) != f.check.inject.end()) continue;
    out(fmt::format("fault {} recorded beside {}: turned on\n", fault, f.file));
    f.check.inject.push_back(fault);
  }
  if (!recorded.target.empty() && f.check.target.empty() && f.check.backend == "builtin") {
    out(fmt::format("target {} recorded beside {}: compiled for it (--target overrides)\n", recorded.target, f.file));
    f.check.target = recorded.target;
  }
  if (!f.check.passes.empty() && !f.check.was_given("--orders")) f.check.orders = 0;
  r.options = check_options(f.check);
  r.options.limits.deadline = deadline;
  if (!f.bind.empty()) r.options.bindings = {reference::parse_binding(f.bind, "--bind")};
  auto located = oracle::locate_failure(r.program, f.file, r.options, !f.check.pipelines_given() && f.bind.empty());
  r.failing = std::move(located.failing);
  r.found = std::move(located.how);
  return r;
}

}  // namespace

int fuzz_command(const FuzzRequest& f, ProgressLine& progress, const Print& out) {
  if (f.seeds.seeds.empty() && !(f.seeds.time > 0)) {
    throw UserError(ErrorKind::Usage, "fuzz: give --seeds A..B or --time SECONDS");
  }
  oracle::CampaignOptions o = campaign_options(f.check, f.seeds, "--time");
  if (!o.shard_from.empty()) out(fmt::format("fuzz: shard {}/{} from {}\n", o.shard.index, o.shard.count, o.shard_from));
  o.out_dir = f.out;
  o.resume = f.resume;
  o.coverage_path = f.coverage;
  o.steer = f.steer;
  o.fail_on_unchecked = std::find(f.fail_on.begin(), f.fail_on.end(), "unchecked") != f.fail_on.end();
  const oracle::KnownFindings known = oracle::KnownFindings::read(f.known, backends::builtin_compiler(),
                                                                   o.check.under_test().name(), o.faults);
  if (!known.empty()) {
    o.known_as = [&known](const oracle::Signature& s) { return known.match(s); };
    out(fmt::format("known findings: {}\n", fmt::join(known.sources(), ", ")));
  }
  const auto summary = oracle::run_campaign(o, [&](const oracle::CampaignStatus& s) {
    progress.update("fuzz: " + oracle::format_progress(s, o.time_limit));
  });
  progress.finish();
  out(oracle::format_summary(summary));
  out(fmt::format("journal: {}/journal.jsonl  summary: {}/summary.json\n", f.out, f.out));
  if (f.reduce && !summary.failures.empty()) {
    fuzz::ReduceOptions ro;
    ro.jobs = f.seeds.jobs;
    ro.time_limit = f.reduce_time;
    const auto reductions = oracle::reduce_campaign_failures(
        summary, o, ro,
        [&](const oracle::FailureClass& c) {
          progress.note(fmt::format("reducing {} (seed {})", c.signature.str(), c.first_seed));
        },
        [&](const oracle::ReduceProgress& p) { progress.update(oracle::format_reduce_progress(p)); });
    progress.finish();
    out(fmt::format("reductions ({}/reductions.json):\n{}", f.out, oracle::format_reductions(reductions)));
  }
  return summary.found_failure() ? kFailure : kOk;
}

int gate_command(const GateRequest& f, ProgressLine& progress, const Print& out) {
  if (f.update_baseline && f.baseline.empty()) {
    throw UserError(ErrorKind::Usage, "--update-baseline needs --baseline FILE");
  }
  oracle::GateOptions o;
  o.corpus = f.corpus == "none" ? "" : f.corpus;
  o.corpus_compiler = &backends::builtin_compiler();  // whose passes and faults its headers name
  std::error_code ec;
  if (!f.check.was_given("--corpus") && !fs::exists(o.corpus, ec)) {
    o.notes.push_back(
        fmt::format("no {}/ here: only seeds are checked (a regression corpus is a directory of .ir "
                    "files with an '# expect:' header, docs/gate.md)",
                    o.corpus));
    o.corpus.clear();
  }
  o.campaign = campaign_options(f.check, f.seeds, "--budget");
  if (!o.campaign.shard_from.empty()) {
    out(fmt::format("gate: shard {}/{} from {}\n", o.campaign.shard.index, o.campaign.shard.count, o.campaign.shard_from));
  }
  o.campaign.out_dir = (fs::path(f.out) / "campaign").string();
  o.batch = f.batch;
  o.fail_fast = f.fail_fast;
  o.fail_on_outliers = std::find(f.fail_on.begin(), f.fail_on.end(), "outlier") != f.fail_on.end();
  o.campaign.fail_on_unchecked = std::find(f.fail_on.begin(), f.fail_on.end(), "unchecked") != f.fail_on.end();
  // Every output path is checked before an hour of work can end in "cannot write".
  oracle::require_writable_dir(f.out, "--out");
  if (!f.junit.empty()) oracle::require_writable_file(f.junit, "--junit");
  if (!f.json.empty()) oracle::require_writable_file(f.json, "--json");
  if (!f.baseline.empty()) {
    if (fs::is_directory(f.baseline, ec)) {
      throw UserError(ErrorKind::Io, fmt::format("--baseline {}: is a directory", f.baseline));
    }
    if (f.update_baseline) oracle::require_writable_file(f.baseline, "--baseline");
    if (fs::exists(f.baseline, ec)) {
      o.baseline = oracle::read_baseline(f.baseline);
    } else if (!f.update_baseline) {
      o.notes.push_back(
          fmt::format("no baseline {} yet: every failure counts as new; to accept the failures this run "
                      "shows, run it again with --update-baseline and commit {}",
                      f.baseline, f.baseline));
    }
  }
  const oracle::GateResult r =
      oracle::run_gate(o, [&](const oracle::GateProgress& p) { progress.update(oracle::format_gate_progress(p)); });
  progress.finish();
  out(oracle::format_gate(r, o.baseline));
  if (!f.junit.empty()) write_file_atomic(f.junit, oracle::gate_junit(r));
  if (!f.json.empty()) write_file_atomic(f.json, oracle::gate_json(r, o.baseline).dump(2) + "\n");
  if (f.update_baseline) {
    oracle::write_baseline(f.baseline, r.seen);
    out(fmt::format("baseline: wrote {} signature{} to {}\n", r.seen.size(), r.seen.size() == 1 ? "" : "s",
                    f.baseline));
    return kOk;
  }
  return r.passed() ? kOk : kFailure;
}

int bisect_command(ReduceRequest f, ProgressLine& progress, const Print& out) {
  const auto [p, options, failing, found] = failing_program(f, std::nullopt, out);
  if (!failing) {
    out("no failure: nothing to bisect\n");
    return kOk;
  }
  out(fmt::format("failing: {} under {}: {} ({})\n", failing->variant.name(), reference::binding_str(failing->binding),
                  failing->verdict.signature().str(), found));
  const oracle::Culprit c = oracle::find_culprit(p, *failing, options, true, [&](int calls, const std::string& step) {
    progress.update(fmt::format("bisect: {} oracle calls, last: {}", calls, step));
  });
  progress.finish();
  out(fmt::format("{}\n", oracle::format_culprit(c)));
  return c.reproduced ? kFailure : kOk;
}

int reduce_command(ReduceRequest f, ProgressLine& progress, const Print& out) {
  const std::string out_dir = f.out_dir.empty() ? f.file + ".reduced" : f.out_dir;
  oracle::require_writable_dir(out_dir, "--out");
  const auto t0 = std::chrono::steady_clock::now();
  const auto [p, options, failing, found] = failing_program(f, oracle::deadline_in(f.time), out);
  if (!failing) {
    out("no failure: nothing to reduce\n");
    return kOk;
  }
  out(fmt::format("failing: {} under {}: {} ({})\n", failing->variant.name(), reference::binding_str(failing->binding),
                  failing->verdict.signature().str(), found));
  fuzz::ReduceOptions ro;
  ro.jobs = f.jobs;
  if (f.time > 0) {
    ro.time_limit = std::max(1e-3, f.time - oracle::seconds_since(t0));
  }
  const oracle::ReductionReport r = oracle::reduce_failure(
      p, *failing, options, ro, out_dir,
      [&](const oracle::ReduceProgress& s) { progress.update(oracle::format_reduce_progress(s)); });
  progress.finish();
  if (r.stopped_in == "bisection") {
    out(fmt::format(
        "the time limit ran out during bisection ({} oracle calls): no culprit; the original program and its "
        "verdict are written to {}/\n",
        r.oracle_calls, out_dir));
    return kFailure;
  }
  // What the reproducer holds depends on the compiler (repro_tvmscript.py, model.onnx, a manifest's templates).
  std::vector<std::string> written;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(out_dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("in_", 0) != 0) written.push_back(name);
  }
  std::sort(written.begin(), written.end());
  written.push_back("inputs");
  out(fmt::format(
      "{}\nreduced {} ops to {} in {:.1f} s, {} oracle calls{}\n{}\nwritten to {}/ ({})\n",
      oracle::format_culprit(r.culprit), r.original.num_calls(), r.reduced.program.num_calls(), r.seconds,
      r.oracle_calls, r.stopped_in.empty() ? "" : fmt::format(" (time limit reached in the {})", r.stopped_in),
      r.stopped_in == "final check"
          ? std::string("reduced program: not checked again (no time left)")
          : fmt::format("reduced program: {} ({}){}", r.reduced_failure.signature().str(), r.reduced_failure.message,
                        r.reproduces ? "" : "\nWARNING: the reduced program does not reproduce the original failure"),
      out_dir, fmt::join(written, ", ")));
  return kFailure;
}

}  // namespace difftest::commands
