#include "oracle/bisect.h"

#include <fmt/format.h>

#include <algorithm>

#include "compiler/pipeline/pass_manager.h"
#include "reference/inputs.h"
#include "reference/reference.h"
#include "tolerance/bounds.h"
#include "tolerance/compare.h"

namespace difftest::oracle {

std::string failure_key(const VariantVerdict& v) {
  if (!is_failure(v.kind)) return verdict_kind_name(v.kind);
  if (v.kind == VerdictKind::Mismatch) return "mismatch";
  return fmt::format("{}|{}", verdict_kind_name(v.kind), normalize_message(v.message));
}

CheckOptions single_pipeline_checks(CheckOptions base) {
  base.cross_checks.clear();
  base.specialize = false;
  return base;
}

VariantVerdict check_pipeline(const Program& p, const pipeline::Pipeline& pipe, const sym::Env& binding,
                              const CheckOptions& base) {
  CheckOptions o = single_pipeline_checks(base);
  o.pipelines.clear();
  o.custom = {pipe};
  o.random_orders = 0;
  o.bindings = {binding};
  const Verdict v = check_program(p, o);
  if (const VariantVerdict* f = v.first_failure()) return *f;
  return v.variants.empty() ? VariantVerdict{} : v.variants.front();
}

namespace {

struct Bisector {
  const Program& p;
  const sym::Env& binding;
  const CheckOptions& base;
  int calls = 0;

  VariantVerdict run(const pipeline::Pipeline& pipe, int limit) {
    pipeline::Pipeline limited = pipe;
    limited.bisect_limit = limit;
    ++calls;
    return check_pipeline(p, limited, binding, base);
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

// Runs the graph passes up to the culprit's application and interprets the program they leave
// with the reference: a graph-pass bug shows there already, before any lowering.
Confirmation confirm_graph_pass(const Program& p, const pipeline::Pipeline& pipe, int application,
                                const sym::Env& binding, const CheckOptions& base) {
  try {
    pipeline::RunOptions run;
    run.bisect_limit = application;
    const Program after = pipeline::run_passes(p, pipe.passes, run).graph;
    const sym::Env env = reference::resolve_binding(p, binding, nullptr);
    const auto inputs = reference::generate_inputs(p, env, base.input_seed);
    const tolerance::BoundedProgram bounds = tolerance::bound_program(p, env, inputs, base.tolerance);
    std::map<std::string, Tensor> kept;
    for (const auto& param : after.params()) kept.emplace(param.name(), inputs.at(param.name()));
    const auto outputs = reference::evaluate(after, env, kept, reference::Mode::Native).outputs;
    const tolerance::Comparison c = tolerance::compare_outputs(p, bounds, outputs, base.tolerance);
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

Culprit find_culprit(const Program& p, const pipeline::Pipeline& pipe, const sym::Env& binding,
                     const CheckOptions& base, bool shrink_passes) {
  Culprit c;
  Bisector b{p, binding, base};
  const VariantVerdict whole = b.run(pipe, -1);
  c.key = failure_key(whole);
  c.reproduced = is_failure(whole.kind);
  if (!c.reproduced) {
    c.oracle_calls = b.calls;
    return c;
  }
  // Smallest limit that fails the same way: lo passes, hi fails.
  int lo = -1, hi = static_cast<int>(pipe.passes.size());
  c.failure = whole;
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    const VariantVerdict v = b.run(pipe, mid);
    if (failure_key(v) == c.key) {
      hi = mid;
      c.failure = v;
    } else {
      lo = mid;
    }
  }
  c.application = hi;
  const std::string name = pass_at(pipe.passes, hi);
  const bool optional = !name.empty() && pipeline::find_pass(name).kind != pipeline::PassKind::Lowering;
  const std::string lowering = c.failure.stage == "codegen" ? "codegen" : "LegalizeOps";
  if (hi == 0 || !optional) {
    c.application = 0;
    c.pass = lowering;
  } else {
    c.pass = name;
    if (pipeline::find_pass(name).kind == pipeline::PassKind::Graph) {
      const Confirmation confirmed = confirm_graph_pass(p, pipe, hi, binding, base);
      c.confirmation = confirmed.text;
      if (confirmed.agrees) {
        // At limit `hi` no loop pass runs: what fails is the lowering of a correct program.
        c.exposed_by = name;
        c.exposed_at = hi;
        c.application = 0;
        c.pass = lowering;
      }
    }
  }
  c.minimal_passes = pipe.passes;
  if (shrink_passes) {
    // Drop passes one at a time (never LegalizeOps nor the culprit); a list that still fails the
    // same way, with the culprit still the first failing application, is kept.
    for (size_t i = c.minimal_passes.size(); i-- > 0;) {
      const std::string& pass = c.minimal_passes[i];
      if (pass == "LegalizeOps" || (c.application > 0 && pass == c.pass)) continue;
      pipeline::Pipeline candidate = pipe;
      candidate.passes = c.minimal_passes;
      candidate.passes.erase(candidate.passes.begin() + static_cast<std::ptrdiff_t>(i));
      if (failure_key(b.run(candidate, -1)) != c.key) continue;
      if (c.application > 0) {
        const auto at = std::find(candidate.passes.begin(), candidate.passes.end(), c.pass) - candidate.passes.begin();
        if (failure_key(b.run(candidate, static_cast<int>(at))) == c.key) continue;  // fails before the culprit now
      }
      c.minimal_passes = std::move(candidate.passes);
    }
  }
  c.oracle_calls = b.calls;
  return c;
}

std::string format_culprit(const Culprit& c) {
  if (!c.reproduced) return "the failure does not reproduce";
  std::string out;
  if (!c.exposed_by.empty()) {
    out = fmt::format("culprit: {} — the failure ({}) appears after ({}) {}, whose output is right: {} gets it wrong",
                      c.pass, c.key, c.exposed_at, c.exposed_by, c.pass);
  } else if (c.application > 0) {
    out = fmt::format("culprit: ({}) {} — the first pass application after which the failure ({}) appears",
                      c.application, c.pass, c.key);
  } else {
    out = fmt::format("culprit: {} — the failure ({}) appears with no optional pass (bisect limit 0)", c.pass, c.key);
  }
  if (!c.confirmation.empty()) out += "\n  " + c.confirmation;
  out += fmt::format("\n  smallest failing pass list: {}", fmt::join(c.minimal_passes, ","));
  out += fmt::format("\n  oracle calls: {}", c.oracle_calls);
  return out;
}

}  // namespace difftest::oracle
