#include "oracle/reduce_failure.h"

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <filesystem>

#include "compiler/faults/faults.h"
#include "compiler/ir/diagnostics.h"
#include "compiler/ir/printer.h"
#include "compiler/tensor/npy.h"
#include "oracle/tvmscript.h"
#include "reference/inputs.h"
#include "reference/summary.h"

namespace difftest::oracle {

namespace fs = std::filesystem;

std::optional<FailingRun> first_failing_run(const Program& p, const CheckOptions& options) {
  const Verdict v = check_program(p, options);
  const VariantVerdict* f = v.first_failure();
  if (!f) return std::nullopt;
  FailingRun run;
  run.verdict = *f;
  run.binding = f->binding;
  // A compile failure has no binding of its own; reduction still needs one for sizes and inputs.
  if (run.binding.empty() && !p.dims().empty()) {
    run.binding = options.bindings.empty() ? default_bindings(p, 0).front() : options.bindings.front();
  }
  if (!f->passes.empty()) {
    run.pipeline = pipeline::Pipeline{f->pipeline, f->passes, f->llvm_opt_level, f->fma_contraction};
    return run;
  }
  if (f->pipeline.find('~') != std::string::npos || f->pipeline.find("-specialized") != std::string::npos) {
    throw UserError(ErrorKind::Usage,
                    fmt::format("the failure is {} ({}): a comparison of two compiles, not one pipeline; reduce with "
                                "--opt naming one of them",
                                f->pipeline, verdict_kind_name(f->kind)));
  }
  run.pipeline = pipeline::find_pipeline(f->pipeline);
  return run;
}

namespace {

void write_outputs(const std::string& dir, const ReductionReport& r, const CheckOptions& options) {
  fs::create_directories(dir);
  const Program& p = r.reduced.program;
  const sym::Env env = reference::resolve_binding(p, r.reduced.binding, nullptr);
  reference::dump_tensors(dir, reference::generate_inputs(p, env, options.input_seed), {},
                          fmt::format("inputs of the reduced program under {} (input seed {})",
                                      reference::binding_str(env), options.input_seed));
  write_file_atomic((fs::path(dir) / "repro.ir").string(), print(p));
  write_file_atomic((fs::path(dir) / "verdict.json").string(), report_json(r).dump(2) + "\n");
  write_file_atomic((fs::path(dir) / "report.md").string(), report_markdown(r));
  TvmScriptOptions tvm;
  tvm.failing_config = r.failing.pipeline.name;
  tvm.passing_config = "O0";
  tvm.binding = env;
  write_file_atomic((fs::path(dir) / "repro_tvmscript.py").string(), export_tvmscript(p, tvm));
}

}  // namespace

ReductionReport reduce_failure(const Program& p, const FailingRun& failing, const CheckOptions& options,
                               fuzz::ReduceOptions reduce_options, const std::string& out_dir) {
  const auto t0 = std::chrono::steady_clock::now();
  ReductionReport r{p, failing, {}, {p, failing.binding, {}}, {}, false, faults::enabled_faults(), false, 0, 0};
  r.culprit = find_culprit(p, failing.pipeline, failing.binding, options);
  r.oracle_calls = r.culprit.oracle_calls;
  if (!r.culprit.reproduced) {
    throw UserError(ErrorKind::Usage, fmt::format("the failure of {} under {} does not reproduce", failing.pipeline.name,
                                                  reference::binding_str(failing.binding)));
  }
  pipeline::Pipeline minimal = failing.pipeline;
  minimal.passes = r.culprit.minimal_passes;
  // The culprit's application number in the minimal list: the limit just below it must not
  // fail. A pass listed twice (random orders repeat passes) counts from its first application,
  // the one bisection found (shrinking the list keeps it the first failing one).
  int culprit_at = 0;
  for (size_t i = 0; i < minimal.passes.size() && r.culprit.application > 0 && culprit_at == 0; ++i) {
    if (minimal.passes[i] == r.culprit.pass) culprit_at = static_cast<int>(i) + 1;
  }
  std::atomic<int> calls{0};
  const std::string key = r.culprit.key;
  // A timeout can be the machine's doing (load, a stalled child) rather than the program's: a
  // candidate counts as timing out only if it does so twice, else a hang bug's reduction could
  // slip to a program that merely ran slowly once.
  const bool confirm = signature_kind(key) == verdict_kind_name(VerdictKind::Timeout);
  const fuzz::Interesting interesting = [&](const Program& candidate, const sym::Env& env) {
    ++calls;
    if (failure_key(check_pipeline(candidate, minimal, env, options)) != key) return false;
    if (confirm) {
      ++calls;
      if (failure_key(check_pipeline(candidate, minimal, env, options)) != key) return false;
    }
    if (culprit_at == 0) return true;
    pipeline::Pipeline before = minimal;
    before.bisect_limit = culprit_at - 1;
    ++calls;
    return failure_key(check_pipeline(candidate, before, env, options)) != key;  // still this pass's doing
  };
  reduce_options.binding = failing.binding;
  auto user_accept = reduce_options.on_accept;
  reduce_options.on_accept = [&](const Program& best, const sym::Env& env) {
    if (!out_dir.empty()) {
      fs::create_directories(out_dir);
      write_file_atomic((fs::path(out_dir) / "repro.ir").string(), print(best));
    }
    if (user_accept) user_accept(best, env);
  };
  r.reduced = fuzz::reduce_program(p, interesting, reduce_options);
  r.oracle_calls += calls.load();
  r.reduced_failure = check_pipeline(r.reduced.program, minimal, r.reduced.binding, options);
  r.reproduces = failure_key(r.reduced_failure) == key;
  ++r.oracle_calls;
  if (!r.faults.empty()) {
    faults::disable_all();
    r.passes_without_faults = !is_failure(check_pipeline(r.reduced.program, minimal, r.reduced.binding, options).kind);
    for (const auto& f : r.faults) faults::enable(f);
    ++r.oracle_calls;
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!out_dir.empty()) write_outputs(out_dir, r, options);
  return r;
}

nlohmann::json report_json(const ReductionReport& r) {
  const pipeline::Pipeline& pipe = r.failing.pipeline;
  const fuzz::ReduceStats& st = r.reduced.stats;
  nlohmann::json j = {
      {"signature", r.reduced_failure.signature()},
      {"failure_key", r.culprit.key},
      {"culprit",
       {{"application", r.culprit.application},
        {"pass", r.culprit.pass},
        {"confirmation", r.culprit.confirmation},
        {"exposed_by", r.culprit.exposed_by}}},
      {"pipeline",
       {{"name", pipe.name}, {"passes", pipe.passes}, {"minimal_passes", r.culprit.minimal_passes},
        {"llvm_opt_level", pipe.llvm_opt_level}, {"fma_contraction", pipe.fma_contraction}}},
      {"binding", r.reduced.binding},
      {"faults", r.faults},
      {"difftest_version", kDifftestVersion},
      {"verdict", r.reduced_failure.to_json()},
      {"reduction",
       {{"ops_before", r.original.num_calls()}, {"ops_after", r.reduced.program.num_calls()},
        {"size_before", fuzz::program_size(r.original, r.failing.binding).str()},
        {"size_after", fuzz::program_size(r.reduced.program, r.reduced.binding).str()},
        {"oracle_calls", r.oracle_calls}, {"candidates", st.candidates}, {"invalid_candidates", st.invalid},
        {"cache_hits", st.cache_hits}, {"accepted", st.accepted}, {"timed_out", st.timed_out},
        {"seconds", r.seconds}}},
  };
  if (!r.faults.empty()) j["passes_without_faults"] = r.passes_without_faults;
  j["reproduces"] = r.reproduces;
  return j;
}

std::string report_markdown(const ReductionReport& r) {
  const VariantVerdict& f = r.reduced_failure;
  const std::string passes = fmt::format("{}", fmt::join(r.culprit.minimal_passes, ","));
  const std::string bind = r.reduced.binding.empty() ? "" : reference::binding_str(r.reduced.binding);
  std::string out = fmt::format("# {} in {} ({} pipeline)\n\n", verdict_kind_name(f.kind), r.culprit.pass,
                                r.failing.pipeline.name);
  out += "## Environment\n\n";
  out += fmt::format("- difftest {} (embedded compiler, LLVM 14 JIT at -O{}{})\n", kDifftestVersion,
                     r.failing.pipeline.llvm_opt_level, r.failing.pipeline.fma_contraction ? ", FMA contraction" : "");
  if (!r.faults.empty()) {
    out += fmt::format("- injected faults: {} (the reduced program {} without them)\n", fmt::join(r.faults, ", "),
                       r.passes_without_faults ? "passes" : "still FAILS");
  }
  out += fmt::format("- binding: {}\n\n", bind.empty() ? "(static shapes)" : bind);
  out += fmt::format("## Minimal program ({} ops, reduced from {})\n\n```\n{}```\n\n", r.reduced.program.num_calls(),
                     r.original.num_calls(), print(r.reduced.program));
  out += "## Expected vs actual\n\n";
  if (f.kind == VerdictKind::Mismatch) {
    out += fmt::format("Output `{}` (from `{}`) at [{}]: got {:.9g}, the reference gives {:.9g}; the error bound there "
                       "is {:.3g} (ratio {:.3g}).\n\n{}\n\n",
                       f.output, f.output_op, fmt::join(f.index, ", "), f.got, f.want, f.bound, f.worst_ratio, f.message);
  } else {
    out += fmt::format("Expected: the program compiles and runs. Actual: {} during {}: {}\n\n", verdict_kind_name(f.kind),
                       f.stage, f.message);
  }
  out += "## Culprit pass\n\n" + format_culprit(r.culprit) + "\n\n";
  const std::string inject = r.faults.empty() ? "" : fmt::format(" --inject {}", fmt::join(r.faults, " --inject "));
  out += "## To reproduce\n\n```\n";
  out += fmt::format("difftest run repro.ir --opt none --orders 0 --passes {} --passes-llvm {}{}{}\n", passes,
                     r.failing.pipeline.llvm_opt_level, bind.empty() ? "" : " --bind " + bind, inject);
  out += fmt::format("difftest bisect repro.ir --passes {} --passes-llvm {}{}{}\n```\n", passes,
                     r.failing.pipeline.llvm_opt_level, bind.empty() ? "" : " --bind " + bind, inject);
  out += fmt::format("\nReduced in {:.1f} s with {} oracle calls; `repro_tvmscript.py` holds the program as a TVM "
                     "Relax module.\n",
                     r.seconds, r.oracle_calls);
  return out;
}

}  // namespace difftest::oracle
