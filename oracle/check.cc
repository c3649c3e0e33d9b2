#include "oracle/check.h"

#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <map>

#include "compiler/ir/printer.h"
#include "compiler/pipeline/compile.h"
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
std::string compile_and_run(const Program& p, const pipeline::Pipeline& pipe, const std::vector<Case>& cases,
                            Progress& progress) {
  progress.stage("compile");
  auto t0 = std::chrono::steady_clock::now();
  const runtime::Executable exe = pipeline::compile(p, pipe);
  const double compile_ms = ms_since(t0);
  std::string out;
  out.append(reinterpret_cast<const char*>(&compile_ms), sizeof compile_ms);
  for (const auto& c : cases) {
    progress.stage("run " + reference::binding_str(c.env));
    t0 = std::chrono::steady_clock::now();
    const std::string encoded = encode_tensors(exe.run(c.inputs, c.env));
    const double run_ms = ms_since(t0);
    const auto n = static_cast<uint64_t>(encoded.size());
    out.append(reinterpret_cast<const char*>(&run_ms), sizeof run_ms);
    out.append(reinterpret_cast<const char*>(&n), sizeof n);
    out += encoded;
  }
  return out;
}

VerdictKind failure_kind(const ChildOutcome& o) {
  const bool compiling = o.stage.empty() || o.stage == "compile";
  switch (o.status) {
    case ChildOutcome::Status::TimedOut: return VerdictKind::Timeout;
    case ChildOutcome::Status::Error:
      if (compiling) return o.user_error ? VerdictKind::CompileReject : VerdictKind::CompileCrash;
      return VerdictKind::RuntimeCrash;
    default: return compiling ? VerdictKind::CompileCrash : VerdictKind::RuntimeCrash;
  }
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

}  // namespace

Verdict check_program(const Program& p, const CheckOptions& options) {
  Verdict verdict;
  verdict.program = p.name();
  verdict.hash = program_hash(p);
  std::vector<sym::Env> bindings = options.bindings.empty() ? reference::standard_bindings(p) : options.bindings;
  std::vector<Case> cases;
  for (const auto& given : bindings) {
    Case c;
    c.env = reference::resolve_binding(p, given, nullptr);
    c.inputs = reference::generate_inputs(p, c.env, options.input_seed);
    c.bounds = tolerance::bound_program(p, c.env, c.inputs, options.tolerance);
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
  for (const auto& name : options.pipelines) {
    const pipeline::Pipeline& pipe = pipeline::find_pipeline(name);
    auto work = [&](Progress& progress) { return compile_and_run(p, pipe, cases, progress); };
    ChildOutcome outcome;
    if (options.isolate) {
      outcome = run_isolated(work, options.limits);
    } else {
      Progress none(-1);
      outcome.status = ChildOutcome::Status::Ok;
      outcome.payload = work(none);
    }
    if (outcome.status != ChildOutcome::Status::Ok) {
      VariantVerdict v;
      v.pipeline = name;
      v.kind = failure_kind(outcome);
      v.stage = outcome.stage.empty() ? "compile" : outcome.stage.substr(0, outcome.stage.find(' '));
      v.message = outcome.status == ChildOutcome::Status::TimedOut
                      ? fmt::format("no result after {:.1f} s (during {})", options.limits.timeout_seconds,
                                    outcome.stage.empty() ? "compile" : outcome.stage)
                      : outcome.message;
      if (outcome.stage.rfind("run ", 0) == 0) v.binding = reference::parse_binding(outcome.stage.substr(4), "stage");
      verdict.variants.push_back(std::move(v));
      continue;
    }
    const std::string& s = outcome.payload;
    size_t at = 0;
    auto take = [&](auto& value) {
      std::memcpy(&value, s.data() + at, sizeof value);
      at += sizeof value;
    };
    double compile_ms = 0;
    take(compile_ms);
    for (const auto& c : cases) {
      VariantVerdict v;
      v.pipeline = name;
      v.binding = c.env;
      v.compile_ms = compile_ms;
      uint64_t n = 0;
      take(v.run_ms);
      take(n);
      compare_case(p, c, decode_tensors(s.substr(at, n)), options.tolerance, v);
      at += n;
      verdict.variants.push_back(std::move(v));
    }
  }
  return verdict;
}

}  // namespace difftest::oracle
