#include "oracle/reduce/reduce_failure.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>

#include "compiler/support/diagnostics.h"
#include "compiler/ir/fix_dims.h"
#include "compiler/ir/printer.h"
#include "compiler/tensor/npy.h"
#include "oracle/io/json_file.h"
#include "oracle/isolate/clock.h"
#include "reference/inputs.h"
#include "reference/summary.h"

namespace difftest::oracle {

namespace fs = std::filesystem;

namespace {

// A compile failure has no binding of its own; bisection and reduction still need one for sizes
// and inputs.
sym::Env failing_binding(const Program& p, const VariantVerdict& f, const CheckOptions& options) {
  if (!f.binding.empty() || p.dims().empty()) return f.binding;
  return options.bindings.empty() ? default_bindings(p, 0).front() : options.bindings.front();
}

// The work the failing variant's own finished stages measured (its compile, for a hang while
// running), else the largest any variant of the program measured.
double work_of(const VariantVerdict& failing, const Verdict& all) {
  const double own = measured_work(failing);
  return own > 0 ? own : measured_work(all);
}

}  // namespace

std::optional<FailingRun> first_failing_run(const Program& p, const CheckOptions& options) {
  CheckOptions first = options;
  first.first_failure_only = true;
  const Verdict v = check_program(p, first);
  if (v.cancelled) throw DeadlineReached();
  const VariantVerdict* f = v.first_failure();
  if (!f) return std::nullopt;
  return FailingRun{f->variant, failing_binding(p, *f, options), *f, work_of(*f, v)};
}

std::optional<FailingRun> recorded_failing_run(const Program& p, const nlohmann::json& verdict,
                                               const std::string& where, const VariantLadder& compiler) {
  const Verdict all = Verdict::from_json(verdict, where, compiler);
  const std::optional<Signature> signature = verdict.contains("signature") && verdict["signature"].is_string()
                                                 ? Signature::parse(verdict["signature"].get<std::string>())
                                                 : std::nullopt;
  const VariantVerdict* chosen = nullptr;
  for (const VariantVerdict& v : all.variants) {
    if (!is_failure(v.kind)) continue;
    if (!chosen || (signature && v.signature() == *signature && chosen->signature() != *signature)) chosen = &v;
  }
  if (!chosen) return std::nullopt;
  // The recorded CPU times: what the original's checks took where they finished.
  return FailingRun{chosen->variant, failing_binding(p, *chosen, CheckOptions{}), *chosen, work_of(*chosen, all)};
}

LocatedFailure locate_failure(const Program& p, const std::string& file, const CheckOptions& options,
                              bool recorded_first) {
  const fs::path recorded = fs::path(file).parent_path() / "verdict.json";
  std::error_code ec;
  if (recorded_first && fs::exists(recorded, ec)) {
    if (auto failing =
            recorded_failing_run(p, read_json_file(recorded.string()), recorded.string(), options.under_test())) {
      return {std::move(failing), fmt::format("recorded in {}", recorded.string())};
    }
  }
  return {first_failing_run(p, options), "found by checking it"};
}

namespace {

void write_outputs(const std::string& dir, const ReductionReport& r, const CheckOptions& options) {
  fs::create_directories(dir);
  const sym::Env env = reference::resolve_binding(r.reduced.program, r.reduced.binding, nullptr);
  // A specialized compile's failure is the program with its dims fixed (n: 5..5): so it is
  // written, and `difftest run` with the pass list (SpecializeShapes first) reproduces it.
  const Program p = r.failing.variant.specialized() ? fix_dims(r.reduced.program, env) : r.reduced.program;
  reference::dump_tensors(dir, reference::generate_inputs(p, env, options.input_seed), {},
                          fmt::format("inputs of the reduced program under {} (input seed {})",
                                      reference::binding_str(env), options.input_seed));
  write_file_atomic((fs::path(dir) / "repro.ir").string(), print(p));
  write_file_atomic((fs::path(dir) / "verdict.json").string(), report_json(r).dump(2) + "\n");
  write_file_atomic((fs::path(dir) / "report.md").string(), report_markdown(r));
  r.compiler->write_reproducer(dir, p, env, r.reduced_failure, options);
  r.compiler->write_report(dir, r, options);
}

}  // namespace

ReductionReport reduce_failure(const Program& p, const FailingRun& failing, const CheckOptions& options,
                               fuzz::ReduceOptions reduce_options, const std::string& out_dir,
                               const std::function<void(const ReduceProgress&)>& on_progress) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto elapsed = [&] { return seconds_since(t0); };
  ReductionReport r{p,  failing, {}, {p, failing.binding, {}}, {}, false, options.under_test().enabled_faults(), false,
                    "", 0,       0,  &options.under_test()};
  CheckOptions timed = options;
  timed.limits.deadline = deadline_in(reduce_options.time_limit);
  std::mutex progress_mutex;
  ReduceProgress progress{"bisect", 0, 0, reduce_options.time_limit, static_cast<int64_t>(p.num_calls()), ""};
  const auto report_progress = [&](const std::string& step) {
    if (!on_progress) return;
    const std::lock_guard<std::mutex> lock(progress_mutex);
    progress.elapsed = elapsed();
    progress.step = step;
    on_progress(progress);
  };
  const auto finish = [&](const std::string& stopped_in) {
    r.stopped_in = stopped_in;
    r.seconds = elapsed();
    if (!out_dir.empty()) write_outputs(out_dir, r, options);
    return r;
  };
  try {
    r.culprit = find_culprit(p, failing, timed, true, [&](int calls, const std::string& step) {
      progress.oracle_calls = calls;
      report_progress(step);
    });
  } catch (const DeadlineReached&) {
    r.culprit.minimal_passes = failing.variant.tested.steps;
    r.reduced_failure = failing.verdict;
    return finish("bisection");
  }
  r.oracle_calls = r.culprit.oracle_calls;
  if (!r.culprit.reproduced) {
    throw UserError(ErrorKind::Usage, fmt::format("the failure of {} under {} does not reproduce",
                                                  failing.variant.name(), reference::binding_str(failing.binding)));
  }
  VariantId minimal = failing.variant;
  minimal.tested = failing.variant.tested.with_steps(r.culprit.minimal_passes);
  const std::vector<std::string>& minimal_passes = minimal.tested.steps;
  // The culprit's application number in the minimal list: the limit just below it must not
  // fail. A pass listed twice (random orders repeat passes) counts from its first application,
  // the one bisection found (shrinking the list keeps it the first failing one).
  int culprit_at = 0;
  for (size_t i = 0; i < minimal_passes.size() && r.culprit.application > 0 && culprit_at == 0; ++i) {
    if (minimal_passes[i] == r.culprit.pass) culprit_at = static_cast<int>(i) + 1;
  }
  // Candidates are no larger than the original: a budget relative to its work bounds what a
  // hanging candidate costs.
  const FailureKey key = r.culprit.key;
  CheckOptions candidate_options =
      relative_budget(timed, std::max(r.culprit.work_cpu_seconds, failing.work_cpu_seconds));
  // A candidate that times out is not a mismatch (or a crash) whether or not a rerun would
  // confirm the timeout: only a reduction of a hang needs the rerun.
  candidate_options.confirm_timeouts = r.culprit.failure.kind == VerdictKind::Timeout;
  std::atomic<int> calls{0};
  std::atomic<bool> out_of_time{false};
  // A compiler's baseline that runs the failing program right must still run each candidate
  // right: else the reduction may drift to a program the unoptimized compiler also gets wrong
  // (ORT: a kernel's own error) and the optimizer is blamed for it.
  std::optional<VariantId> baseline;
  if (const auto b = r.compiler->baseline(); b && b->name() != failing.variant.name()) {
    ++r.oracle_calls;
    try {
      if (check_variant_outcome(p, VariantId(*b), failing.binding, timed).kind == VerdictKind::Ok) {
        baseline = VariantId(*b);
      }
    } catch (const DeadlineReached&) {
      // No time left to hold the baseline: the reduction below stops at once as well.
    }
  }
  const fuzz::Interesting interesting = [&](const Program& candidate, const sym::Env& env) {
    try {
      ++calls;
      if (FailureKey::of(check_variant_outcome(candidate, minimal, env, candidate_options)) != key) return false;
      if (baseline) {
        ++calls;
        if (check_variant_outcome(candidate, *baseline, env, candidate_options).kind != VerdictKind::Ok) return false;
      }
      if (culprit_at == 0) return true;
      VariantId before = minimal;
      before.tested = minimal.tested.limited(culprit_at - 1);
      ++calls;
      return FailureKey::of(check_variant_outcome(candidate, before, env, candidate_options)) !=
             key;  // still this pass's doing
    } catch (const DeadlineReached&) {
      out_of_time = true;
      return false;
    }
  };
  reduce_options.binding = failing.binding;
  // The final checks need time too: about one check each (a hang's costs its budget and the
  // confirming rerun), held back from the reducer's share.
  if (reduce_options.time_limit > 0) {
    const double one_check = candidate_options.confirm_timeouts
                                 ? candidate_options.limits.cpu_seconds * (1 + candidate_options.confirm_factor)
                                 : 2 * std::max(r.culprit.work_cpu_seconds, failing.work_cpu_seconds);
    const double reserve =
        std::min(0.25 * reduce_options.time_limit, std::max(1.0, one_check * (r.faults.empty() ? 1 : 2)));
    reduce_options.time_limit = std::max(1e-3, reduce_options.time_limit - elapsed() - reserve);
  }
  auto user_accept = reduce_options.on_accept;
  reduce_options.on_accept = [&](const Program& best, const sym::Env& env) {
    progress.ops = static_cast<int64_t>(best.num_calls());
    if (!out_dir.empty()) {
      fs::create_directories(out_dir);
      write_file_atomic((fs::path(out_dir) / "repro.ir").string(), print(best));
    }
    if (user_accept) user_accept(best, env);
  };
  progress.phase = "reduce";
  reduce_options.on_step = [&](const fuzz::ReduceStats&, const std::string& step) {
    progress.oracle_calls = r.oracle_calls + calls.load();
    report_progress(step);
  };
  r.reduced = fuzz::reduce_program(p, interesting, reduce_options);
  r.oracle_calls += calls.load();
  if (out_of_time) r.reduced.stats.timed_out = true;
  progress.phase = "final check";
  report_progress("the reduced program");
  try {
    ++r.oracle_calls;
    r.reduced_failure = check_variant_outcome(r.reduced.program, minimal, r.reduced.binding, candidate_options);
    r.reproduces = FailureKey::of(r.reduced_failure) == key;
    if (!r.faults.empty()) {
      CheckOptions without_faults = candidate_options;
      without_faults.compiler = &options.under_test().planted_faults()->without({});
      ++r.oracle_calls;
      r.passes_without_faults =
          !is_failure(check_variant_outcome(r.reduced.program, minimal, r.reduced.binding, without_faults).kind);
    }
  } catch (const DeadlineReached&) {
    // Not checked again: the reproducers are written for the variant and failure the reduction
    // kept (they show whether the reduced program still fails), not for an empty variant.
    r.reduced_failure = failing.verdict;
    r.reduced_failure.variant = minimal;
    return finish("final check");
  }
  return finish(r.reduced.stats.timed_out ? "reduction" : "");
}

std::string format_reduce_progress(const ReduceProgress& p) {
  return fmt::format("reduce: {}  {} oracle calls  {}{}  {} ops  last: {}", p.phase, p.oracle_calls,
                     format_duration(p.elapsed),
                     p.time_limit > 0 ? " of " + format_duration(p.time_limit) : std::string(), p.ops, p.step);
}

nlohmann::json report_json(const ReductionReport& r) {
  const Variant& tested = r.failing.variant.tested;
  const fuzz::ReduceStats& st = r.reduced.stats;
  nlohmann::json j = {
      {"signature", r.reduced_failure.signature().str()},
      {"failure_key", r.culprit.key.str()},
      {"culprit",
       {{"application", r.culprit.application},
        {"pass", r.culprit.pass},
        {"confirmation", r.culprit.confirmation},
        {"exposed_by", r.culprit.exposed_by}}},
      {"pipeline",
       [&] {
         nlohmann::json pipe = {
             {"name", tested.name()}, {"passes", tested.steps}, {"minimal_passes", r.culprit.minimal_passes}};
         pipe.update(tested.settings);
         return pipe;
       }()},
      {"variant", r.failing.variant.name()},
      {"binding", r.reduced.binding},
      {"faults", r.faults},
      {"difftest_version", kDifftestVersion},
      {"verdict", r.reduced_failure.to_json()},
      {"reduction",
       {{"ops_before", r.original.num_calls()},
        {"ops_after", r.reduced.program.num_calls()},
        {"size_before", fuzz::program_size(r.original, r.failing.binding).str()},
        {"size_after", fuzz::program_size(r.reduced.program, r.reduced.binding).str()},
        {"oracle_calls", r.oracle_calls},
        {"candidates", st.candidates},
        {"invalid_candidates", st.invalid},
        {"cache_hits", st.cache_hits},
        {"accepted", st.accepted},
        {"timed_out", st.timed_out},
        {"seconds", r.seconds}}},
  };
  if (const std::string target = r.compiler->target(); !target.empty()) j["target"] = target;
  if (!r.faults.empty()) j["passes_without_faults"] = r.passes_without_faults;
  j["reproduces"] = r.reproduces;
  if (!r.stopped_in.empty()) j["time_limit_reached_in"] = r.stopped_in;
  // The failing variant, as `difftest reduce` and `bisect` re-find it in this file.
  j["variants"] = nlohmann::json::array({r.reduced_failure.to_json()});
  return j;
}

std::string report_markdown(const ReductionReport& r) {
  const VariantVerdict& f = r.reduced_failure;
  const VariantId& variant = r.failing.variant;
  const std::string replay =
      r.compiler->replay_flags(variant.tested.with_steps(r.culprit.minimal_passes)) + r.compiler->target_flag();
  const std::string bind = r.reduced.binding.empty() ? "" : reference::binding_str(r.reduced.binding);
  const bool bisected = r.stopped_in != "bisection";
  std::string out = bisected
                        ? fmt::format("# {} in {} ({})\n\n", verdict_kind_name(f.kind), r.culprit.pass, variant.name())
                        : fmt::format("# {} in {} (no culprit: the time limit ran out during bisection)\n\n",
                                      verdict_kind_name(f.kind), variant.name());
  out += "## Environment\n\n";
  out += fmt::format("- {}\n", r.compiler->environment(variant.tested));
  if (!r.faults.empty() && r.stopped_in.empty()) {
    out += fmt::format("- injected faults: {} (the reduced program {} without them)\n", fmt::join(r.faults, ", "),
                       r.passes_without_faults ? "passes" : "still FAILS");
  } else if (!r.faults.empty()) {
    out += fmt::format("- injected faults: {}\n", fmt::join(r.faults, ", "));
  }
  if (variant.specialized()) out += "- compiled shape-specialized: the program's dims fixed to the binding\n";
  if (variant.against) {
    out += fmt::format(
        "- a cross-check: the results of these passes compared with those of {}, each element within "
        "the sum of both error bounds\n",
        variant.against->name());
  }
  out += fmt::format("- binding: {}\n", bind.empty() ? "(static shapes)" : bind);
  if (!r.stopped_in.empty()) out += fmt::format("- the time limit was reached during the {}\n", r.stopped_in);
  out += "\n";
  out += fmt::format("## Minimal program ({} ops, reduced from {})\n\n```\n{}```\n\n", r.reduced.program.num_calls(),
                     r.original.num_calls(), print(r.reduced.program));
  out += "## Expected vs actual\n\n";
  if (f.kind == VerdictKind::Mismatch) {
    out += fmt::format(
        "Output `{}` (from `{}`) at [{}]: got {:.9g}, {} gives {:.9g}; the error bound there "
        "is {:.3g} (ratio {:.3g}).\n\n{}\n\n",
        f.output, f.output_op, fmt::join(f.index, ", "), f.got,
        variant.against ? variant.against->name() : std::string("the reference"), f.want, f.bound, f.worst_ratio,
        f.message);
  } else if (f.kind == VerdictKind::Outlier) {
    out += fmt::format(
        "Output `{}` (from `{}`): within its first-tier error bound, but outside the spread of legitimate results "
        "an ensemble of the reference in the program's precision showed (the members sample summation orders, "
        "contraction, rounding directions and the normalizations' folded forms; docs/tolerance.md).\n\n{}\n\n",
        f.output, f.output_op, f.message);
  } else {
    out += fmt::format("Expected: the program compiles and runs. Actual: {} during {}: {}\n\n",
                       verdict_kind_name(f.kind), f.stage.name(), f.message);
  }
  if (bisected) {
    out += fmt::format("## Culprit pass\n\nThe pass blamed belongs to {}.\n\n{}\n\n", r.compiler->identity(),
                       format_culprit(r.culprit));
  }
  const std::string inject = r.faults.empty() ? "" : fmt::format(" --inject {}", fmt::join(r.faults, " --inject "));
  out += "## To reproduce\n\n```\n";
  if (variant.against) {
    // A cross-check is not one pipeline's verdict: bisect re-checks the variant verdict.json records.
    out += fmt::format("difftest bisect repro.ir{}\n```\n", inject);
  } else {
    out += fmt::format("difftest run repro.ir --opt none --orders 0 {}{}{}\n", replay,
                       bind.empty() ? "" : " --bind " + bind, inject);
    out += fmt::format("difftest bisect repro.ir {}{}{}\n```\n", replay, bind.empty() ? "" : " --bind " + bind, inject);
  }
  out += fmt::format("\nReduced in {:.1f} s with {} oracle calls; {}.\n", r.seconds, r.oracle_calls,
                     r.compiler->reproducer_files());
  return out;
}

}  // namespace difftest::oracle
