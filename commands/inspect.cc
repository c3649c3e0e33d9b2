// eval, compare, compile, check, generate and the listings (commands.h).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>

#include "backends/backends.h"
#include "commands/commands.h"
#include "commands/shared.h"
#include "compiler/codegen/codegen.h"
#include "compiler/codegen/jit.h"
#include "compiler/faults/faults.h"
#include "compiler/support/diagnostics.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/loop/printer.h"
#include "compiler/ops/op.h"
#include "compiler/pipeline/pass_manager.h"
#include "compiler/pipeline/pipelines.h"
#include "compiler/target/target.h"
#include "compiler/tensor/npy.h"
#include "oracle/check/case.h"
#include "oracle/io/output_paths.h"
#include "reference/inputs.h"
#include "reference/reference.h"
#include "reference/summary.h"
#include "tolerance/compare.h"

namespace difftest::commands {

int generate_command(uint64_t seed, const CheckRequest& r, const Print& out) {
  out(fmt::format("{}", print(generate_program(seed, generator_options(r)))));
  return kOk;
}

int check_files_command(const std::vector<std::string>& files, bool quiet, const Print& out, const Print& log) {
  int status = kOk;
  for (const auto& f : files) {
    try {
      const Program p = parse_program_file(f);
      verify(p);
      if (!quiet) out(print(p));
    } catch (const UserError& e) {
      log(fmt::format("{}\n", e.what()));
      status = kBadInput;
    }
  }
  return status;
}

int eval_command(const EvalRequest& f, const Print& out) {
  namespace ref = reference;
  if (!f.dump_dir.empty()) oracle::require_writable_dir(f.dump_dir, "--dump");
  const Program p = parse_program_file(f.file);
  verify(p);
  const ref::Mode mode = ref::parse_mode(f.mode);
  std::map<std::string, Tensor> inputs;
  if (!f.inputs_dir.empty()) inputs = ref::load_inputs(p, f.inputs_dir);
  const sym::Env env =
      ref::resolve_binding(p, ref::parse_binding(f.bind, "--bind"), f.inputs_dir.empty() ? nullptr : &inputs);
  if (f.bounds) tolerance::require_bounding_memory(p, env);
  ref::require_evaluation_memory(p, env, mode, 0, "its reference values");
  if (f.inputs_dir.empty()) inputs = ref::generate_inputs(p, env, f.seed);
  const ref::Evaluation ev = ref::evaluate(p, env, inputs, mode);
  out(fmt::format("@{} under {} ({} mode, inputs {})\n", p.name(), ref::binding_str(env), ref::mode_name(mode),
                  f.inputs_dir.empty() ? fmt::format("from seed {}", f.seed) : "from " + f.inputs_dir));
  for (size_t i = 0; i < ev.outputs.size(); ++i) {
    out(fmt::format("out {} %{}: {}\n", i, p.outputs()[i].name(),
                    ref::summarize(ev.outputs[i], p.outputs()[i].type().dtype)));
  }
  if (f.bounds) {
    const oracle::Case c = oracle::make_case(p, env, case_options(f), inputs);
    if (c.invalid()) {
      out(fmt::format("bounds: the program is invalid under this binding: {}\n", c.invalid_reason()));
      return kBadInput;
    }
    for (size_t i = 0; i < c.bounds.outputs.size(); ++i) {
      out(fmt::format("out {} %{}: {}\n", i, p.outputs()[i].name(), tolerance::bound_summary(*c.bounds.outputs[i])));
    }
    if (c.calibration) {
      for (size_t i = 0; i < c.calibration->bounds.outputs.size(); ++i) {
        out(fmt::format("out {} %{}: ensemble of {}: allowance {}\n", i, p.outputs()[i].name(), f.members,
                        tolerance::bound_summary(*c.calibration->bounds.outputs[i])));
      }
    }
    if (f.every_value) {
      for (const auto& b : p.bindings()) {
        for (const auto& v : b.results()) {
          out(fmt::format("  %{}: {}\n", v.name(), tolerance::bound_summary(c.bounds.values.at(v.get()))));
        }
      }
    }
  }
  if (!f.dump_dir.empty()) {
    ref::dump_tensors(
        f.dump_dir, inputs, ev.outputs,
        fmt::format("difftest eval {} --bind {} --mode {} --seed {}\noutputs of the reference interpreter "
                    "({} mode: {})",
                    f.file, ref::binding_str(env), ref::mode_name(mode), f.seed, ref::mode_name(mode),
                    mode == ref::Mode::F64 ? "floats as f64" : "declared dtypes"));
    out(fmt::format("wrote {} inputs and {} outputs to {}\n", inputs.size(), ev.outputs.size(), f.dump_dir));
  }
  return kOk;
}

int compare_command(const CompareRequest& cf, const Print& out) {
  namespace ref = reference;
  namespace tol = tolerance;
  const EvalRequest& f = cf.eval;
  const Program p = parse_program_file(f.file);
  verify(p);
  std::map<std::string, Tensor> inputs;
  bool have_inputs = false;
  for (const auto& v : p.params()) {
    have_inputs =
        have_inputs || std::filesystem::exists(std::filesystem::path(cf.got_dir) / ("in_" + v.name() + ".npy"));
  }
  if (have_inputs) inputs = ref::load_inputs(p, cf.got_dir);
  std::vector<Tensor> got;
  for (size_t i = 0; i < p.outputs().size(); ++i) {
    const auto path = std::filesystem::path(cf.got_dir) / fmt::format("out_{}.npy", i);
    if (!std::filesystem::exists(path)) {
      throw UserError(ErrorKind::Io, fmt::format("missing candidate output '{}'", path.string()));
    }
    got.push_back(read_npy(path.string()));
  }
  const tol::Options opt = tolerance_options(f);
  const oracle::Case bounded = oracle::make_case(p, ref::parse_binding(f.bind, "--bind"), case_options(f),
                                                 have_inputs ? std::optional(std::move(inputs)) : std::nullopt);
  const sym::Env& env = bounded.env;
  if (bounded.invalid()) {
    throw UserError(ErrorKind::Evaluation, fmt::format("the reference is not finite under {}: {}",
                                                       ref::binding_str(env), bounded.invalid_reason()));
  }
  const tol::Comparison c = bounded.compare(p, got, opt);
  const oracle::VerdictKind verdict = !c.passed()        ? oracle::VerdictKind::Mismatch
                                      : c.has_outlier()   ? oracle::VerdictKind::Outlier
                                      : c.has_unchecked() ? oracle::VerdictKind::Unchecked
                                                          : oracle::VerdictKind::Ok;
  if (cf.json) {
    nlohmann::json j = c.to_json();
    j["program"] = p.name();
    j["binding"] = env;
    j["verdict"] = oracle::verdict_kind_name(verdict);
    out(fmt::format("{}\n", j.dump(2)));
  } else {
    out(fmt::format("@{} under {} ({} bounds, safety {})\n", p.name(), ref::binding_str(env),
                    tol::bound_mode_name(opt.mode), opt.safety));
    for (const auto& o : c.outputs) out(output_comparison_lines(o));
    for (const auto& o : c.outputs) {
      if (o.unchecked()) {
        out(fmt::format("{}: only {:.1f}% of its elements compared ({} of {}): too few to call it ok\n", o.name,
                        100 * o.checked_share(), o.checked_elements(), o.elements()));
      }
    }
    out(fmt::format("verdict: {}\n", oracle::verdict_kind_name(verdict)));
  }
  return exit_code_of(verdict);
}

int compile_command(const CompileRequest& f, const Print& out, const Print& log) {
  const Program p = parse_program_file(f.file);
  verify(p);
  // A named pipeline, or the --passes list at the --passes-llvm level without contraction.
  const pipeline::Pipeline pipe = f.passes.empty() ? pipeline::find_pipeline(f.opt)
                                                   : pipeline::Pipeline{"custom", pipeline::parse_pass_list(f.passes, "--passes"),
                                                                        f.passes_llvm};
  pipeline::RunOptions options;
  options.verify_each = f.verify_each;
  if (!f.target.empty()) options.context.target = &target::find_target(f.target, "--target");
  options.context.bisect_limit = f.bisect_limit;
  for (const auto& name : f.disabled) options.disabled.insert(pipeline::find_pass(name).name);
  if (f.bisect_limit >= 0) {
    options.on_event = [&](const pipeline::PassEvent& e) { log(fmt::format("{}\n", pipeline::bisect_line(e))); };
  }
  if (f.print_after_all) {
    options.context.diagnostics = [&](const std::string& pass, const std::string& ir) {
      log(fmt::format("; *** IR dump after {} ***\n{}", pass, ir));
    };
  }
  // The codegen steps run only on the way to optimized LLVM IR, numbered after the pass list.
  if (f.emit == "llvm-opt") options.codegen_steps = pipeline::codegen_steps(pipe, *options.context.target);
  const auto lowered = pipeline::run_passes(p, pipe.passes, options);
  if (f.emit == "graph") {
    out(print(lowered.graph));
  } else if (f.emit == "loop") {
    out(loop::print(lowered.module));
  } else if (f.emit == "llvm") {
    out(codegen::emit_llvm_text(lowered.module, "difftest_", options.context.faults));
  } else {
    codegen::JitOptions jit{pipe.llvm_opt_level, pipeline::contracts(lowered)};
    jit.faults = options.context.faults;
    out(codegen::optimized_llvm_text(lowered.module, jit, "difftest_"));
  }
  return kOk;
}

int list_passes_command(const Print& out) {
  for (const auto& p : pipeline::all_passes()) {
    out(fmt::format("{:<28} {:<8} {}\n", p.name, pipeline::pass_kind_name(p.kind), p.description));
  }
  out(fmt::format("\npipelines:\n"));
  for (const auto& p : pipeline::pipelines()) {
    out(fmt::format("  {} (LLVM -O{}{}): {}\n", p.name, p.llvm_opt_level, p.fma_contraction ? ", FMA contraction" : "",
                    fmt::join(p.passes, ", ")));
  }
  return kOk;
}

int list_faults_command(const Print& out) {
  // The name column as wide as the longest name, so that every name ends in a space.
  size_t width = 0;
  for (const auto& f : faults::all_faults()) width = std::max(width, f.name.size() + 2);
  for (const auto& f : faults::all_faults()) {
    out(fmt::format("{:<{}}{} [{}{}]\n", f.name, width, f.description, f.pass, f.held_out ? ", held out" : ""));
  }
  return kOk;
}

int backends_command(const Print& out) {
  for (const auto& b : backends::all_backends()) {
    const std::string missing = b.missing();
    const std::vector<std::string> here = b.default_levels();
    std::vector<std::string> left_out;
    for (const auto& l : b.default_opt) {
      if (std::find(here.begin(), here.end(), l) == here.end()) left_out.push_back(l);
    }
    out(fmt::format("{:<9}{}\n         version {}; levels {}; default check {}{}{}\n         {}\n", b.name,
                    b.compiler->identity(), b.version(), fmt::join(b.levels, ", "), fmt::join(b.default_opt, ","),
                    b.default_orders ? fmt::format(" and {} random orders", b.default_orders) : "",
                    left_out.empty() ? ""
                                     : fmt::format(" ({} left out here: this CPU does not run them natively)",
                                                   fmt::join(left_out, ",")),
                    missing.empty() ? "available" : "not available: " + missing));
  }
  return kOk;
}

int list_ops_command(bool markdown, const Print& out) {
  if (markdown) {
    out(ops_markdown());
    return kOk;
  }
  for (const auto* op : OpRegistry::get().all())
    out(fmt::format("{:<22}{:<15}{}\n", op->name, op->family, op->summary));
  return kOk;
}

}  // namespace difftest::commands
