#include "oracle/check.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <optional>

#include "compiler/faults/faults.h"
#include "compiler/ir/printer.h"
#include "compiler/passes/specialize_shapes.h"
#include "compiler/pipeline/compile.h"
#include "fuzz/rng.h"
#include "oracle/strategies.h"
#include "oracle/wire.h"
#include "reference/inputs.h"
#include "reference/summary.h"
#include "tolerance/bounds.h"
#include "tolerance/compare.h"

namespace difftest::oracle {

namespace {

struct Case {
  sym::Env env;
  std::map<std::string, Tensor> inputs;
  tolerance::BoundedProgram bounds;
};

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// The child's work: compile once, run every case; returns per case the outputs and timings.
// Stages are "compile <pass>", "compile codegen", then "run <binding>".
std::string compile_and_run(const Program& p, const pipeline::Pipeline& pipe, const std::vector<const Case*>& cases,
                            Progress& progress) {
  progress.stage("compile");
  auto t0 = std::chrono::steady_clock::now();
  pipeline::RunOptions run_options;
  run_options.bisect_limit = pipe.bisect_limit;
  run_options.before_pass = [&](const std::string& pass) { progress.stage("compile " + pass); };
  pipeline::Lowered lowered = pipeline::run_passes(p, pipe.passes, run_options);
  progress.stage("compile codegen");
  const runtime::Executable exe(std::move(lowered.graph), std::move(lowered.module),
                                codegen::JitOptions{pipe.llvm_opt_level, pipe.fma_contraction});
  const double compile_ms = ms_since(t0);
  std::string out;
  out.append(reinterpret_cast<const char*>(&compile_ms), sizeof compile_ms);
  for (const Case* c : cases) {
    progress.stage("run " + reference::binding_str(c->env));
    t0 = std::chrono::steady_clock::now();
    const std::string encoded = encode_tensors(exe.run(c->inputs, c->env));
    const double run_ms = ms_since(t0);
    const auto n = static_cast<uint64_t>(encoded.size());
    out.append(reinterpret_cast<const char*>(&run_ms), sizeof run_ms);
    out.append(reinterpret_cast<const char*>(&n), sizeof n);
    out += encoded;
  }
  return out;
}

VerdictKind failure_kind(const ChildOutcome& o) {
  const bool compiling = o.stage.empty() || o.stage.rfind("compile", 0) == 0;
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

// "compile LegalizeOps" -> "LegalizeOps", "run n=3" -> "run"; what a signature keeps.
std::string stage_of(const std::string& progress_stage) {
  if (progress_stage.empty() || progress_stage == "compile") return "compile";
  const size_t space = progress_stage.find(' ');
  if (progress_stage.rfind("compile ", 0) == 0) return progress_stage.substr(space + 1);
  return progress_stage.substr(0, space);
}

void compare_case(const Program& p, const Case& c, const std::vector<Tensor>& got, const tolerance::Options& opt,
                  VariantVerdict& v) {
  const tolerance::Comparison cmp = tolerance::compare_outputs(p, c.bounds, got, opt);
  v.stage = "compare";
  v.worst_ratio = cmp.worst_ratio();
  for (const auto& o : cmp.outputs) {
    if (o.passed()) continue;
    if (v.kind == VerdictKind::Ok || o.worst_ratio > v.worst_ratio) {
      v.kind = VerdictKind::Mismatch;
      v.output = o.name;
      v.output_op = producer(p, o.index);
      v.index = o.worst_index;
      v.got = o.got;
      v.want = o.want;
      v.bound = o.bound;
      v.message = fmt::format("{} of {} elements of {} outside their bounds; worst ratio {:.3g} at [{}]: got {:.9g}, "
                              "want {:.9g}, bound {:.3g}",
                              o.failing, o.compared, o.name, o.worst_ratio, fmt::join(o.worst_index, ", "), o.got,
                              o.want, o.bound);
    }
  }
}

// Two compiled results compared with each other: each element may differ by the sum of both
// bounds. A pair that each agree with the reference always passes; this catches disagreement
// where the reference comparison is blind (uncertain elements are excluded from both).
VariantVerdict cross_check(const Program& p, const Case& c, const std::string& a, const std::vector<Tensor>& got_a,
                           const std::string& b, const std::vector<Tensor>& got_b, const tolerance::Options& opt) {
  VariantVerdict v;
  v.pipeline = a + "~" + b;
  v.binding = c.env;
  v.stage = "compare";
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
    v.message = fmt::format("{} of {} elements of {} differ between {} and {} by more than both bounds; worst ratio "
                            "{:.3g} at [{}]: {} {:.9g}, {} {:.9g}",
                            o.failing, o.compared, v.output, a, b, o.worst_ratio, fmt::join(o.worst_index, ", "), a,
                            o.got, b, o.want);
  }
  return v;
}

// Compiles `compiled` with `pipe` in a child and runs it under `cases`; appends one variant per
// case (compared with the bounds of `p`, the program the cases were bounded on) or one failure.
// Returns the outputs per case when the child finished.
std::optional<std::vector<std::vector<Tensor>>> run_variant(const Program& compiled, const Program& p,
                                                            const pipeline::Pipeline& pipe,
                                                            const std::vector<const Case*>& cases,
                                                            const VariantVerdict& base, const CheckOptions& options,
                                                            Verdict& verdict) {
  auto work = [&](Progress& progress) { return compile_and_run(compiled, pipe, cases, progress); };
  ChildOutcome outcome;
  if (options.isolate) {
    IsolationLimits limits = options.limits;
    limits.timeout_per_stage = true;  // --timeout bounds the compile and each binding's run
    outcome = run_isolated(work, limits);
  } else {
    Progress none(-1);
    outcome.status = ChildOutcome::Status::Ok;
    outcome.payload = work(none);
  }
  if (outcome.status != ChildOutcome::Status::Ok) {
    VariantVerdict v = base;
    v.kind = failure_kind(outcome);
    v.stage = stage_of(outcome.stage);
    v.message = outcome.status == ChildOutcome::Status::TimedOut
                    ? fmt::format("no result after {:.1f} s (during {})", options.limits.timeout_seconds,
                                  stage_of(outcome.stage))
                    : outcome.message;
    // "run n=3"; a program without dims runs under "run (no dim variables)" and keeps {}.
    if (outcome.stage.rfind("run ", 0) == 0 && outcome.stage.compare(4, 1, "(") != 0) {
      v.binding = reference::parse_binding(outcome.stage.substr(4), "stage");
    }
    verdict.variants.push_back(std::move(v));
    return std::nullopt;
  }
  const std::string& s = outcome.payload;
  size_t at = 0;
  auto take = [&](auto& value) {
    std::memcpy(&value, s.data() + at, sizeof value);
    at += sizeof value;
  };
  double compile_ms = 0;
  take(compile_ms);
  verdict.times.compile += compile_ms;
  std::vector<std::vector<Tensor>> outputs;
  for (const Case* c : cases) {
    VariantVerdict v = base;
    v.binding = c->env;
    v.compile_ms = compile_ms;
    uint64_t n = 0;
    take(v.run_ms);
    take(n);
    verdict.times.run += v.run_ms;
    const auto t0 = std::chrono::steady_clock::now();
    outputs.push_back(decode_tensors(s.substr(at, n)));
    compare_case(p, *c, outputs.back(), options.tolerance, v);
    verdict.times.compare += ms_since(t0);
    at += n;
    verdict.variants.push_back(std::move(v));
  }
  return outputs;
}

}  // namespace

CheckOptions default_check_options() {
  CheckOptions o;
  o.pipelines = {"O0", "O1", "O2", "O3"};
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

Verdict check_program(const Program& p, const CheckOptions& options) {
  Verdict verdict;
  verdict.program = p.name();
  verdict.hash = program_hash(p);
  verdict.faults = faults::enabled_faults();
  std::vector<sym::Env> bindings =
      options.bindings.empty() ? default_bindings(p, options.random_bindings) : options.bindings;
  std::vector<Case> cases;
  for (const auto& given : bindings) {
    Case c;
    const auto t0 = std::chrono::steady_clock::now();
    c.env = reference::resolve_binding(p, given, nullptr);
    c.inputs = reference::generate_inputs(p, c.env, options.input_seed);
    c.bounds = tolerance::bound_program(p, c.env, c.inputs, options.tolerance);
    verdict.times.reference += ms_since(t0);
    if (c.bounds.invalid) {
      VariantVerdict v;
      v.pipeline = "reference";
      v.binding = c.env;
      v.kind = VerdictKind::InvalidProgram;
      v.stage = "reference";
      v.message = c.bounds.invalid_reason;
      verdict.variants.push_back(std::move(v));
      continue;
    }
    cases.push_back(std::move(c));
  }
  if (cases.empty()) return verdict;
  // Named pipelines first; the rest (custom lists, random orders) have their passes recorded.
  std::vector<pipeline::Pipeline> pipes;
  for (const auto& name : options.pipelines) pipes.push_back(pipeline::find_pipeline(name));
  pipes.insert(pipes.end(), options.custom.begin(), options.custom.end());
  for (auto& order : random_pass_orders(p, options.random_orders)) pipes.push_back(std::move(order));
  std::vector<const Case*> all_cases;
  for (const auto& c : cases) all_cases.push_back(&c);
  std::map<std::string, std::vector<std::vector<Tensor>>> outputs;  // pipeline -> per case, when it ran
  for (size_t k = 0; k < pipes.size(); ++k) {
    VariantVerdict base;
    base.pipeline = pipes[k].name;
    if (k >= options.pipelines.size()) {
      base.passes = pipes[k].passes;
      base.llvm_opt_level = pipes[k].llvm_opt_level;
      base.fma_contraction = pipes[k].fma_contraction;
    }
    if (auto got = run_variant(p, p, pipes[k], all_cases, base, options, verdict)) outputs[pipes[k].name] = *got;
  }
  // Symbolic vs shape-specialized: the last named pipeline again, on the program with its dims
  // fixed to one binding's values (the middle one) and SpecializeShapes in front.
  if (options.specialize && !options.pipelines.empty() && !p.dims().empty()) {
    const pipeline::Pipeline& symbolic = pipeline::find_pipeline(options.pipelines.back());
    const size_t i = cases.size() > 1 ? 1 : 0;
    pipeline::Pipeline specialized = symbolic;
    specialized.name = symbolic.name + "-specialized";
    specialized.passes.insert(specialized.passes.begin(), "SpecializeShapes");
    VariantVerdict base;
    base.pipeline = specialized.name;
    const Program fixed = passes::fix_dims(p, cases[i].env);
    const auto got = run_variant(fixed, p, specialized, {&cases[i]}, base, options, verdict);
    if (got && outputs.count(symbolic.name)) {
      verdict.variants.push_back(
          cross_check(p, cases[i], symbolic.name, outputs[symbolic.name][i], specialized.name, got->front(),
                      options.tolerance));
    }
  }
  for (const auto& [a, b] : options.cross_checks) {
    if (!outputs.count(a) || !outputs.count(b)) continue;
    for (size_t i = 0; i < cases.size(); ++i) {
      verdict.variants.push_back(cross_check(p, cases[i], a, outputs[a][i], b, outputs[b][i], options.tolerance));
    }
  }
  return verdict;
}

}  // namespace difftest::oracle
