#include "oracle/check/check.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <optional>

#include "compiler/support/diagnostics.h"
#include "compiler/ir/fix_dims.h"
#include "compiler/ir/printer.h"
#include "compiler/support/rng.h"
#include "oracle/check/wire.h"
#include "oracle/isolate/clock.h"
#include "reference/inputs.h"
#include "tolerance/bounds.h"
#include "tolerance/compare.h"
#include "tolerance/precision.h"

namespace difftest::oracle {

namespace {

VerdictKind failure_kind(const ChildOutcome& o, const Stage& stage) {
  const bool compiling = stage.compiling();
  switch (o.status) {
    case ChildOutcome::Status::TimedOut: return VerdictKind::Timeout;
    case ChildOutcome::Status::Error:
      if (compiling) return o.user_error ? VerdictKind::CompileReject : VerdictKind::CompileCrash;
      return VerdictKind::RuntimeCrash;
    default: return compiling ? VerdictKind::CompileCrash : VerdictKind::RuntimeCrash;
  }
}

std::string producer(const Program& p, size_t output) {
  const ValueNode* v = p.outputs()[output].get();
  for (const auto& b : p.bindings()) {
    for (const auto& r : b.results()) {
      if (r.get() == v) return b.is_call() ? b.op().name : (b.kind() == BindingKind::Param ? "param" : "constant");
    }
  }
  return "?";
}

// A finding at one element of output `o`.
void record_element(const Program& p, const tolerance::OutputComparison& o, VerdictKind kind,
                    const std::vector<int64_t>& index, double got, double want, double bound, VariantVerdict& v) {
  v.kind = kind;
  v.output = o.name;
  v.output_op = producer(p, o.index);
  v.index = index;
  v.got = got;
  v.want = want;
  v.bound = bound;
}

// The verdict of one compiled run: a mismatch (beyond a sound bound) first, else an outlier
// (beyond the ensemble's allowance, or biased), else unchecked when an output had too few
// elements compared by either tier. Each names the first output, in the program's order, that
// shows it: in a probed program (probes.h) the first value that diverged.
void judge(const Program& p, const tolerance::Comparison& cmp, const CheckOptions& options, VariantVerdict& v) {
  v.stage = Stage::compare();
  v.worst_ratio = cmp.worst_ratio();
  for (const auto& o : cmp.outputs) {
    v.worst_excess = std::max(v.worst_excess, o.worst_excess);
    v.elements += o.elements();
    v.elements_checked += o.checked_elements();
  }
  for (const auto& o : cmp.outputs) {
    if (o.passed()) continue;
    record_element(p, o, VerdictKind::Mismatch, o.worst_index, o.got, o.want, o.bound, v);
    v.message = fmt::format(
        "{} of {} elements of {} outside their bounds; worst ratio {:.3g} at [{}]: got {:.9g}, "
        "want {:.9g}, bound {:.3g}",
        o.failing, o.compared, o.name, o.worst_ratio, fmt::join(o.worst_index, ", "), o.got, o.want, o.bound);
    return;
  }
  for (const auto& o : cmp.outputs) {
    if (!o.has_outlier()) continue;
    record_element(p, o, VerdictKind::Outlier, o.excess_index, o.excess_got, o.excess_want, o.excess_allowance, v);
    v.message = o.outliers > 0 ? fmt::format(
                                     "{} of {} elements of {} outside the ensemble's allowance; worst excess "
                                     "{:.3g} at [{}]: got {:.9g}, want {:.9g}, allowance {:.3g} "
                                     "(sigma {:.3g})",
                                     o.outliers, o.checked, o.name, o.worst_excess, fmt::join(o.excess_index, ", "),
                                     o.excess_got, o.excess_want, o.excess_allowance, o.excess_sigma)
                               : fmt::format("{}: {}", o.name, o.bias.describe());
    return;
  }
  for (const auto& o : cmp.outputs) {
    if (!o.unchecked(options.min_checked_share)) continue;
    v.kind = VerdictKind::Unchecked;
    v.output = o.name;
    v.output_op = producer(p, o.index);
    v.message = fmt::format("only {:.1f}% of {} compared ({} of {} elements; {} uncertain in the sound bounds)",
                            100 * o.checked_share(), o.name, o.calibrated ? o.checked : o.compared,
                            o.compared + o.uncertain, o.uncertain);
    return;
  }
}

// Two compiled results compared with each other: each element may differ by the sum of both
// bounds. A pair that each agree with the reference always passes; this catches disagreement
// where the reference comparison is blind (uncertain elements are excluded from both).
VariantVerdict cross_check(const Program& p, const Case& c, const Variant& a, const std::vector<Tensor>& got_a,
                           const Variant& b, const std::vector<Tensor>& got_b, const tolerance::Options& opt) {
  VariantVerdict v;
  v.variant = VariantId(b, a);
  v.binding = c.env;
  v.stage = Stage::compare();
  for (size_t i = 0; i < got_a.size(); ++i) {
    const tolerance::OutputComparison o = tolerance::compare_candidates(*c.bounds.outputs[i], got_a[i], got_b[i], opt);
    v.worst_ratio = std::max(v.worst_ratio, o.worst_ratio);
    if (o.passed() || (v.kind == VerdictKind::Mismatch && o.worst_ratio <= v.worst_ratio)) continue;
    v.kind = VerdictKind::Mismatch;
    v.output = p.outputs()[i].name();
    v.output_op = producer(p, i);
    v.index = o.worst_index;
    v.got = o.got;
    v.want = o.want;
    v.bound = o.bound;
    v.message = fmt::format(
        "{} of {} elements of {} differ between {} and {} by more than both bounds; worst ratio "
        "{:.3g} at [{}]: {} {:.9g}, {} {:.9g}",
        o.failing, o.compared, v.output, a.name(), b.name(), o.worst_ratio, fmt::join(o.worst_index, ", "), a.name(),
        o.got, b.name(), o.want);
  }
  return v;
}

std::string timeout_message(const std::vector<TimeoutTry>& tries, const std::string& stage) {
  const TimeoutTry& first = tries.front();
  const TimeoutTry& rerun = tries.back();
  if (tries.size() == 1) {
    return fmt::format("no result within {:.1f} s of CPU time, not rerun (during {})", first.cpu_budget, stage);
  }
  if (first.blocked && rerun.blocked) {
    return fmt::format(
        "blocked: no result after {:.0f} s of wall time using {:.2f} s of CPU, the last stretch without using "
        "any, nor after {:.0f} s on a rerun (during {})",
        first.wall_seconds, first.cpu_seconds, rerun.wall_seconds, stage);
  }
  return fmt::format("no result within {:.1f} s of CPU time, nor within {:.1f} s on a rerun (during {})",
                     first.cpu_budget, rerun.cpu_budget, stage);
}

TimeoutTry timeout_try(const ChildOutcome& o, double budget) {
  TimeoutTry t;
  t.cpu_budget = budget;
  t.cpu_seconds = o.cpu_seconds;
  t.wall_seconds = o.seconds;
  t.blocked = o.blocked;
  t.stage = decode_stage(o.stage);
  t.finished_cpu_seconds = o.cpu_seconds - o.stage_cpu_seconds;
  t.outcome = status_name(o.status);
  return t;
}

// One try of the work under the CPU budget; a try that times out is run again with
// `confirm_factor` times the budget, and only a second timeout stands (`tries` records both).
ChildOutcome run_confirmed(const std::function<ChildOutcome(const IsolationLimits&)>& attempt,
                           const CheckOptions& options, std::vector<TimeoutTry>& tries) {
  IsolationLimits limits = options.limits;
  limits.timeout_per_stage = true;  // --timeout bounds the compile and each binding's run
  ChildOutcome outcome = attempt(limits);
  if (outcome.status != ChildOutcome::Status::TimedOut) return outcome;
  tries.push_back(timeout_try(outcome, limits.cpu_seconds));
  if (!options.confirm_timeouts) return outcome;
  limits.cpu_seconds *= options.confirm_factor;
  outcome = attempt(limits);
  tries.push_back(timeout_try(outcome, limits.cpu_seconds));
  return outcome;
}

// One variant's outputs and their comparisons, per case.
struct VariantRun {
  size_t kernels = 0;
  std::vector<CaseOutputs> cases;  // per case, in order
};

// What a child runs for one variant: its compile, of `p` or (a specialized compile) of `p` with
// its dims fixed to its one case's binding, and its runs under `cases`.
struct VariantJob {
  const Variant* variant;
  std::vector<const Case*> cases;
  Program compiled;
  // The cases whose bounds judge its outputs, one per case: the cases themselves, or for a
  // variant with a precision those of the program computed in it (nullptr: that program has
  // no finite reference there).
  std::vector<const Case*> judged_by;
};

VariantJob job_of(const Program& p, const Variant& variant, std::vector<const Case*> cases,
                  std::vector<const Case*> judged_by = {}) {
  Program compiled = variant.kind == VariantKind::Specialized ? fix_dims(p, cases.front()->env) : p;
  if (judged_by.empty()) judged_by = cases;
  return {&variant, std::move(cases), std::move(compiled), std::move(judged_by)};
}

// The cases of `p` computed in narrower precisions (tolerance/precision.h), built for the
// variants that need them: the same bindings and inputs, the narrowed program's reference.
class NarrowedCases {
 public:
  NarrowedCases(const Program& p, const CheckOptions& options) : p_(p), options_(options) {}

  // The case that judges `variant`'s outputs on `c`: `c` itself without a precision.
  const Case* judging(const Variant& variant, const Case& c, Verdict& verdict) {
    if (!variant.precision) return &c;
    const DType precision = *variant.precision;
    const auto key = std::make_pair(precision, &c);
    if (const auto found = cases_.find(key); found != cases_.end()) return found->second.get();
    if (!programs_.count(precision)) programs_.emplace(precision, tolerance::computed_in(p_, precision));
    auto narrowed = std::make_unique<Case>(make_case(programs_.at(precision), c.env, options_.cases(), c.inputs));
    verdict.times.reference += narrowed->reference_ms;
    const Case* out = narrowed->invalid() ? nullptr : narrowed.get();
    cases_.emplace(key, std::move(narrowed));
    return out;
  }
  std::vector<const Case*> judging(const Variant& variant, const std::vector<const Case*>& cases, Verdict& verdict) {
    std::vector<const Case*> out;
    for (const Case* c : cases) out.push_back(judging(variant, *c, verdict));
    return out;
  }

 private:
  const Program& p_;
  const CheckOptions& options_;
  std::map<DType, Program> programs_;
  std::map<std::pair<DType, const Case*>, std::unique_ptr<Case>> cases_;
};

std::function<std::string(Progress&)> work_of(const VariantJob& job, const CompilerUnderTest& compiler) {
  return [&job, &compiler](Progress& progress) {
    return encode_compiled_runs(compiler.compile_and_run(job.compiled, *job.variant, job.cases, progress));
  };
}

// Runs `job` in a child (work `index` of `shared` when given, else a child of its own) and
// appends one variant verdict per case (compared with the bounds of `p`) or one failure.
// Returns the outputs per case when the child finished. A child stopped at the caller's
// deadline marks the verdict cancelled.
std::optional<VariantRun> run_variant(const Program& p, const VariantJob& job, const CheckOptions& options,
                                      Verdict& verdict, IsolatedWorks* shared = nullptr, size_t index = 0) {
  const Variant& variant = *job.variant;
  const std::vector<const Case*>& cases = job.cases;
  const Program& compiled = job.compiled;
  const CompilerUnderTest& compiler = options.under_test();
  const auto work = work_of(job, compiler);
  VariantVerdict base;
  base.variant = variant;
  ChildOutcome outcome;
  std::vector<TimeoutTry> tries;
  if (compiler.isolates_itself()) {
    outcome = run_confirmed(
        [&](const IsolationLimits& limits) { return compiler.run_in_own_process(compiled, variant, cases, limits); },
        options, tries);
  } else if (options.isolate) {
    outcome = run_confirmed(
        [&](const IsolationLimits& limits) { return shared ? shared->run(index, limits) : run_isolated(work, limits); },
        options, tries);
  } else {
    Progress none(-1);
    outcome.status = ChildOutcome::Status::Ok;
    outcome.payload = work(none);
  }
  if (outcome.status == ChildOutcome::Status::Cancelled) {
    verdict.cancelled = true;
    return std::nullopt;
  }
  if (outcome.status != ChildOutcome::Status::Ok) {
    VariantVerdict v = base;
    const Stage stage = decode_stage(outcome.stage);
    v.kind = failure_kind(outcome, stage);
    v.stage = stage;
    v.stage.binding.clear();  // a signature keeps the stage, the verdict the binding
    v.cpu_ms = outcome.cpu_seconds * 1000;
    v.message =
        outcome.status == ChildOutcome::Status::TimedOut ? timeout_message(tries, stage.name()) : outcome.message;
    v.tries = std::move(tries);
    v.binding = stage.binding;
    // A specialized compile is the compile of one binding: a crash or timeout while compiling it
    // belongs to that binding, and a replay under another compiles another program.
    if (v.binding.empty() && variant.kind == VariantKind::Specialized) v.binding = cases.front()->env;
    verdict.variants.push_back(std::move(v));
    return std::nullopt;
  }
  CompiledRuns compiled_runs = decode_compiled_runs(outcome.payload);
  if (!compiled_runs.unsupported.empty()) {
    VariantVerdict v = base;
    v.kind = VerdictKind::Unsupported;
    v.stage = Stage::compile();
    v.message = compiled_runs.unsupported;
    verdict.variants.push_back(std::move(v));
    return std::nullopt;
  }
  DT_CHECK(compiled_runs.runs.size() == cases.size(), "a compile returned another number of runs than it had cases");
  verdict.times.compile += compiled_runs.compile_ms;
  verdict.exercised.insert(compiled_runs.exercised.begin(), compiled_runs.exercised.end());
  verdict.times.compile_by_variant[variant.kind == VariantKind::RandomOrder ? "orders"
                                   : variant.kind == VariantKind::Custom    ? "custom"
                                                                         : variant.label] += compiled_runs.compile_ms;
  VariantRun run;
  run.kernels = compiled_runs.kernels;
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case* c = cases[i];
    VariantVerdict v = base;
    v.binding = c->env;
    v.compile_ms = compiled_runs.compile_ms;
    v.cpu_ms = outcome.cpu_seconds * 1000;
    v.tries = tries;
    v.run_ms = compiled_runs.runs[i].run_ms;
    verdict.times.run += v.run_ms;
    const auto t0 = std::chrono::steady_clock::now();
    CaseOutputs got;
    got.outputs = std::move(compiled_runs.runs[i].outputs);
    const Case* judging = job.judged_by[i];
    if (judging == nullptr) {
      // The level computes in a precision in which the program has no finite result here.
      v.kind = VerdictKind::Unsupported;
      v.stage = Stage::compare();
      v.message = fmt::format("the program computed in {} has no finite reference under this binding",
                              dtype_name(*variant.precision));
      verdict.variants.push_back(std::move(v));
      run.cases.push_back(std::move(got));
      continue;
    }
    got.comparison = judging->compare(p, got.outputs, options.tolerance);
    judge(p, got.comparison, options, v);
    if (!compiled_runs.runs[i].nondeterminism.empty() && !is_failure(v.kind)) {
      v.kind = VerdictKind::Nondeterministic;
      v.stage = Stage::run({});
      v.message = compiled_runs.runs[i].nondeterminism;
    }
    verdict.times.compare += ms_since(t0);
    verdict.variants.push_back(std::move(v));
    run.cases.push_back(std::move(got));
  }
  return run;
}

}  // namespace

const CompilerUnderTest& CheckOptions::under_test() const {
  DT_CHECK(compiler != nullptr,
           "a check without a compiler under test (CheckOptions::compiler is not set; backends/backends.h names them)");
  return *compiler;
}

CheckOptions default_check_options() {
  CheckOptions o;
  o.levels = {"O0", "O1", "O2", "O3"};
  o.random_orders = 2;
  return o;
}

std::vector<sym::Env> default_bindings(const Program& p, int random) {
  std::vector<sym::Env> out = reference::standard_bindings(p);
  Pcg32 rng(program_hash(p), 0x62696e64);  // "bind"
  for (int i = 0; i < random && !p.dims().empty(); ++i) {
    sym::Env env;
    for (const auto& d : p.dims()) {
      const auto span = static_cast<uint64_t>(d.range.hi - d.range.lo) + 1;
      env[d.name] = d.range.lo + static_cast<int64_t>(rng.next64() % span);
    }
    if (std::find(out.begin(), out.end(), env) == out.end()) out.push_back(env);
  }
  return out;
}

namespace {

Verdict empty_verdict(const Program& p, const CheckOptions& options) {
  Verdict verdict;
  verdict.program = p.name();
  verdict.hash = program_hash(p);
  verdict.faults = options.under_test().enabled_faults();
  verdict.target = options.under_test().target();
  return verdict;
}

// The case of one binding; nullopt (and an invalid_program variant in `verdict`) when the
// reference is not finite there.
std::optional<Case> checked_case(const Program& p, const sym::Env& given, const CheckOptions& options,
                                 Verdict& verdict) {
  Case c = make_case(p, given, options.cases());
  verdict.times.reference += c.reference_ms;
  if (!c.invalid()) {
    for (auto& item : case_exercised(p, c)) verdict.exercised.insert(std::move(item));
    return c;
  }
  VariantVerdict v;
  v.variant = reference_variant();
  v.binding = c.env;
  v.kind = VerdictKind::InvalidProgram;
  v.stage = Stage::reference();
  v.message = c.invalid_reason();
  verdict.variants.push_back(std::move(v));
  return std::nullopt;
}

}  // namespace

Verdict check_program(const Program& p, const CheckOptions& options) {
  Verdict verdict = empty_verdict(p, options);
  std::vector<sym::Env> bindings =
      options.bindings.empty() ? default_bindings(p, options.random_bindings) : options.bindings;
  std::vector<Case> cases;
  for (const auto& given : bindings) {
    if (auto c = checked_case(p, given, options, verdict)) cases.push_back(std::move(*c));
  }
  if (cases.empty()) return verdict;
  // Named pipelines first; the rest (custom lists, random orders) have their passes recorded.
  const CompilerUnderTest& compiler = options.under_test();
  const std::vector<Variant> variants = compiler.variants(p, options);
  std::vector<const Case*> all_cases;
  for (const auto& c : cases) all_cases.push_back(&c);
  // Once one variant's timeout is confirmed, the program hangs for a fact: the timeouts of its
  // other variants need no rerun each (a hang bug would otherwise cost every pipeline 5x).
  CheckOptions running = options;
  const auto after_variant = [&] {
    for (const auto& v : verdict.variants) {
      if (v.kind == VerdictKind::Timeout && v.tries.size() == 2) running.confirm_timeouts = false;
    }
  };
  const auto variant_named = [&](const std::string& name) -> const Variant* {
    for (const Variant& v : variants) {
      if (v.name() == name) return &v;
    }
    return nullptr;
  };
  // Symbolic vs shape-specialized: the last named pipeline again, on the program with its dims
  // fixed to one binding's values (the middle one), as the compiler specializes it.
  const Variant* symbolic = options.levels.empty() ? nullptr : variant_named(options.levels.back());
  const std::optional<Variant> specialized =
      options.specialize && symbolic && !p.dims().empty() ? compiler.specialized(*symbolic) : std::nullopt;
  const size_t specialized_case = cases.size() > 1 ? 1 : 0;
  // Every job is known before the first child is forked: one child serves them all.
  NarrowedCases narrowed(p, options);
  std::vector<VariantJob> jobs;
  jobs.reserve(variants.size() + 1);
  for (const Variant& variant : variants) {
    jobs.push_back(job_of(p, variant, all_cases, narrowed.judging(variant, all_cases, verdict)));
  }
  if (specialized) {
    const std::vector<const Case*> one = {&cases[specialized_case]};
    jobs.push_back(job_of(p, *specialized, one, narrowed.judging(*specialized, one, verdict)));
  }
  // A cross-check of a level with a precision is judged by the narrowed program's bounds (the
  // wider), and skipped where that program has no finite reference.
  const auto cross_case = [&](const Variant& a, const Variant& b, const Case& c) -> const Case* {
    return narrowed.judging(b.precision ? b : a, c, verdict);
  };
  std::vector<std::function<std::string(Progress&)>> works;
  for (const VariantJob& job : jobs) works.push_back(work_of(job, compiler));
  IsolatedWorks shared(std::move(works));
  IsolatedWorks* child = options.isolate && !compiler.isolates_itself() ? &shared : nullptr;
  std::map<std::string, VariantRun> runs;  // variant -> its outputs per case, when it ran
  for (size_t i = 0; i < variants.size(); ++i) {
    if (auto run = run_variant(p, jobs[i], running, verdict, child, i)) runs[variants[i].name()] = std::move(*run);
    if (verdict.cancelled || (options.first_failure_only && verdict.first_failure())) return verdict;
    after_variant();
  }
  if (specialized) {
    const auto got = run_variant(p, jobs.back(), running, verdict, child, jobs.size() - 1);
    if (verdict.cancelled || (options.first_failure_only && verdict.first_failure())) return verdict;
    const Case* judging = cross_case(*symbolic, *specialized, cases[specialized_case]);
    if (got && runs.count(symbolic->name()) && judging) {
      verdict.variants.push_back(cross_check(p, *judging, *symbolic,
                                             runs[symbolic->name()].cases[specialized_case].outputs, *specialized,
                                             got->cases.front().outputs, options.tolerance));
    }
  }
  for (const auto& [a, b] : options.cross_checks) {
    if (!runs.count(a) || !runs.count(b)) continue;
    for (size_t i = 0; i < cases.size(); ++i) {
      const Case* judging = cross_case(*variant_named(a), *variant_named(b), cases[i]);
      if (!judging) continue;
      verdict.variants.push_back(cross_check(p, *judging, *variant_named(a), runs[a].cases[i].outputs,
                                             *variant_named(b), runs[b].cases[i].outputs, options.tolerance));
    }
  }
  return verdict;
}

Verdict check_variant(const Program& p, const VariantId& id, const sym::Env& binding, const CheckOptions& options) {
  Verdict verdict = empty_verdict(p, options);
  const std::optional<Case> c = checked_case(p, binding, options, verdict);
  if (!c) return verdict;
  NarrowedCases narrowed(p, options);
  const VariantJob tested_job = job_of(p, id.tested, {&*c}, {narrowed.judging(id.tested, *c, verdict)});
  if (!id.against) {
    run_variant(p, tested_job, options, verdict);
    return verdict;
  }
  const auto reference_side =
      run_variant(p, job_of(p, *id.against, {&*c}, {narrowed.judging(*id.against, *c, verdict)}), options, verdict);
  if (!reference_side) return verdict;
  const auto tested = run_variant(p, tested_job, options, verdict);
  if (!tested) return verdict;
  const Case* judging = narrowed.judging(id.tested.precision ? id.tested : *id.against, *c, verdict);
  if (!judging) return verdict;
  verdict.variants.push_back(cross_check(p, *judging, *id.against, reference_side->cases.front().outputs, id.tested,
                                         tested->cases.front().outputs, options.tolerance));
  return verdict;
}

CaseRun run_case(const Program& p, const Variant& variant, const Case& c, const CheckOptions& options) {
  CaseRun r;
  r.verdict = empty_verdict(p, options);
  NarrowedCases narrowed(p, options);
  if (auto run = run_variant(p, job_of(p, variant, {&c}, {narrowed.judging(variant, c, r.verdict)}), options,
                             r.verdict)) {
    r.kernels = run->kernels;
    r.result = std::move(run->cases.front());
  }
  return r;
}

VariantVerdict outcome_of(const Verdict& v) {
  if (const VariantVerdict* f = v.first_failure()) return *f;
  return v.variants.empty() ? VariantVerdict{} : v.variants.back();
}

}  // namespace difftest::oracle
