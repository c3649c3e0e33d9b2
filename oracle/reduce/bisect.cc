#include "oracle/reduce/bisect.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "compiler/ir/fix_dims.h"
#include "reference/reference.h"
#include "tolerance/compare.h"

namespace difftest::oracle {

FailureKey FailureKey::of(const VariantVerdict& v) {
  if (!is_failure(v.kind) || is_output_finding(v.kind)) return {v.kind, ""};
  return {v.kind, normalize_message(v.message)};
}

std::string FailureKey::str() const {
  if (!is_failure(kind) || is_output_finding(kind)) return verdict_kind_name(kind);
  return fmt::format("{}|{}", verdict_kind_name(kind), message);
}

CheckOptions single_pipeline_checks(CheckOptions base) {
  base.cross_checks.clear();
  base.specialize = false;
  return base;
}

VariantVerdict check_variant_outcome(const Program& p, const VariantId& id, const sym::Env& binding,
                                     const CheckOptions& base) {
  const Verdict v = check_variant(p, id, binding, base);
  if (v.cancelled) throw DeadlineReached();
  return outcome_of(v);
}

// CulpritHooks' default (check/culprit_hooks.h), defined here beside Culprit: no search of its
// own, so opt-bisect over the steps.
std::optional<Culprit> CulpritHooks::own_culprit_search(const Program&, const FailingRun&, const CheckOptions&,
                                                        const std::function<void(int, const std::string&)>&) const {
  return std::nullopt;
}

CheckOptions relative_budget(CheckOptions base, double work_cpu_seconds) {
  base.limits.cpu_seconds =
      std::min(base.limits.cpu_seconds, std::max(kMinRelativeBudget, kRelativeBudgetFactor * work_cpu_seconds));
  return base;
}

double measured_work(const VariantVerdict& v) {
  double work = v.kind == VerdictKind::Timeout ? 0 : v.cpu_ms / 1000;
  for (const auto& t : v.tries) work = std::max(work, t.finished_cpu_seconds);
  return work;
}

double measured_work(const Verdict& v) {
  double work = 0;
  for (const auto& var : v.variants) work = std::max(work, measured_work(var));
  return work;
}

namespace {

struct Bisector {
  const Program& p;
  const sym::Env& binding;
  const CheckOptions& base;
  const BisectProgress& on_call;
  bool hang;        // the failure is a timeout: probes get relative budgets
  double work = 0;  // the largest work measured so far
  Deadline cut = std::nullopt;  // an earlier deadline than the caller's, for one phase
  int calls = 0;

  // `original`: the failing variant as given (its timeout, if any, must be confirmed); else a
  // probe with fewer passes.
  VariantVerdict run(const VariantId& spec, int limit, bool original = false) {
    VariantId limited = spec;
    limited.tested = spec.tested.limited(limit);
    ++calls;
    CheckOptions options = hang && work > 0 ? relative_budget(base, work) : base;
    // A probe that times out is not the failure being bisected unless that failure is a hang:
    // only then does its timeout need a confirming rerun. The whole pipeline's run always gets one.
    options.confirm_timeouts = hang || original;
    if (cut && (!options.limits.deadline || *cut < *options.limits.deadline)) options.limits.deadline = cut;
    VariantVerdict v = check_variant_outcome(p, limited, binding, options);
    work = std::max(work, measured_work(v));
    if (on_call) {
      on_call(calls, fmt::format("{} {} at limit {}: {}", spec.name(), fmt::join(spec.tested.steps, ","), limit,
                                 verdict_kind_name(v.kind)));
    }
    return v;
  }
};

// The application numbered `n` (1-based, as run_passes numbers them) of the pass list.
std::string pass_at(const std::vector<std::string>& passes, int n) {
  return n >= 1 && n <= static_cast<int>(passes.size()) ? passes[static_cast<size_t>(n - 1)] : "";
}

struct Confirmation {
  bool agrees = false;  // the reference agrees with the program the graph pass leaves
  std::string text;
};

// Runs the graph steps up to the culprit's application and interprets the program they leave
// with the reference: a graph-step bug shows there already, before any lowering.
Confirmation confirm_graph_step(const Program& p, const VariantId& spec, int application, const sym::Env& binding,
                                const CheckOptions& base) {
  try {
    CaseOptions sound_only = base.cases();
    sound_only.ensemble.members = 0;  // "certainly wrong" is what confirms a culprit
    const Case c0 = make_case(p, binding, sound_only);
    const Program compiled = spec.specialized() ? fix_dims(p, c0.env) : p;
    const std::optional<Program> left = base.under_test().program_after(compiled, spec.tested, application);
    if (!left) return {false, "the compiler does not say what program the step leaves"};
    const Program& after = *left;
    std::map<std::string, Tensor> kept;
    for (const auto& param : after.params()) kept.emplace(param.name(), c0.inputs.at(param.name()));
    const auto outputs = reference::evaluate(after, c0.env, kept, reference::Mode::Native).outputs;
    const tolerance::Comparison c = c0.compare(p, outputs, base.tolerance);
    if (c.passed()) {
      return {true, fmt::format("the program it leaves still agrees with the reference (worst ratio {:.3g}): the "
                                "divergence appears when it is lowered",
                                c.worst_ratio())};
    }
    return {false, fmt::format("confirmed by the reference: the program it leaves computes different values (worst "
                               "ratio {:.3g})",
                               c.worst_ratio())};
  } catch (const std::exception& e) {
    return {false, std::string("the program it leaves cannot be interpreted: ") + e.what()};
  }
}

}  // namespace

Culprit find_culprit(const Program& p, const FailingRun& failing, const CheckOptions& base, bool shrink_passes,
                     const BisectProgress& on_call) {
  const CompilerUnderTest& compiler = base.under_test();
  if (std::optional<Culprit> own = compiler.own_culprit_search(p, failing, base, on_call)) return *own;
  Culprit c;
  const VariantId& spec = failing.variant;
  const std::vector<std::string>& passes = spec.tested.steps;
  Bisector b{p, failing.binding, base, on_call, failing.verdict.kind == VerdictKind::Timeout, failing.work_cpu_seconds};
  const VariantVerdict whole = b.run(spec, -1, true);
  c.key = FailureKey::of(whole);
  c.reproduced = is_failure(whole.kind);
  if (!c.reproduced) {
    c.oracle_calls = b.calls;
    c.work_cpu_seconds = b.work;
    return c;
  }
  // Smallest limit that fails the same way: lo passes, hi fails.
  const std::vector<std::string> numbered = compiler.numbered_steps(spec.tested);
  int lo = -1, hi = static_cast<int>(numbered.size());
  c.failure = whole;
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    const VariantVerdict v = b.run(spec, mid);
    if (FailureKey::of(v) == c.key) {
      hi = mid;
      c.failure = v;
    } else {
      lo = mid;
    }
  }
  c.application = hi;
  const std::string name = pass_at(numbered, hi);
  const StepRole role = name.empty() ? StepRole::Required : compiler.step_role(name);
  const std::string fixed = compiler.fixed_culprit(c.failure.stage);
  if (hi == 0 || role == StepRole::Required) {
    c.application = 0;
    c.pass = fixed;
  } else {
    c.pass = name;
    if (role == StepRole::Graph) {
      const Confirmation confirmed = confirm_graph_step(p, spec, hi, failing.binding, base);
      c.confirmation = confirmed.text;
      if (confirmed.agrees) {
        // At limit `hi` no later optional step runs: what fails is the lowering of a correct program.
        c.exposed_by = name;
        c.exposed_at = hi;
        c.application = 0;
        c.pass = fixed;
      }
    }
  }
  c.minimal_passes = passes;
  if (shrink_passes) {
    // Drop passes one at a time (never a required step such as LegalizeOps, nor the culprit); a list that still fails
    // the same way, with the culprit still the first failing application, is kept. Under a time limit this gets a third
    // of what is left: what follows (a reduction) needs the rest more.
    if (base.limits.deadline) b.cut = deadline_in(seconds_left(base.limits.deadline) / 3);
    try {
      for (size_t i = c.minimal_passes.size(); i-- > 0;) {
        const std::string& pass = c.minimal_passes[i];
        if (compiler.step_role(pass) == StepRole::Required || (c.application > 0 && pass == c.pass)) continue;
        std::vector<std::string> list = c.minimal_passes;
        list.erase(list.begin() + static_cast<std::ptrdiff_t>(i));
        VariantId candidate = spec;
        candidate.tested = spec.tested.with_steps(list);
        if (FailureKey::of(b.run(candidate, -1)) != c.key) continue;
        if (c.application > 0) {
          const auto at = std::find(list.begin(), list.end(), c.pass) - list.begin();
          if (FailureKey::of(b.run(candidate, static_cast<int>(at))) == c.key)
            continue;  // fails before the culprit now
        }
        c.minimal_passes = std::move(list);
      }
    } catch (const DeadlineReached&) {
      c.shrink_complete = false;  // what is kept so far still fails the same way
    }
  }
  c.oracle_calls = b.calls;
  c.work_cpu_seconds = b.work;
  return c;
}

std::string format_culprit(const Culprit& c) {
  if (!c.reproduced) return "the failure does not reproduce";
  if (!c.summary.empty()) return fmt::format("{}\n  oracle calls: {}", c.summary, c.oracle_calls);
  std::string out;
  if (!c.exposed_by.empty()) {
    out = fmt::format("culprit: {} — the failure ({}) appears after ({}) {}, whose output is right: {} gets it wrong",
                      c.pass, c.key.str(), c.exposed_at, c.exposed_by, c.pass);
  } else if (c.application > 0) {
    out = fmt::format("culprit: ({}) {} — the first pass application after which the failure ({}) appears",
                      c.application, c.pass, c.key.str());
  } else {
    out = fmt::format("culprit: {} — the failure ({}) appears with no optional pass (bisect limit 0)", c.pass,
                      c.key.str());
  }
  if (!c.confirmation.empty()) out += "\n  " + c.confirmation;
  out += fmt::format("\n  smallest failing pass list{}: {}",
                     c.shrink_complete ? "" : " (the time limit stopped its search)", fmt::join(c.minimal_passes, ","));
  out += fmt::format("\n  oracle calls: {}", c.oracle_calls);
  return out;
}

}  // namespace difftest::oracle
