// The difftest command line. Thin: it parses flags and calls the libraries.
// Exit codes: 0 ok, 1 a failure was found, 2 bad input or usage, 3 internal error.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "compiler/codegen/codegen.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/ops/op.h"
#include "compiler/loop/printer.h"
#include "compiler/pipeline/compile.h"
#include "compiler/tensor/npy.h"
#include "fuzz/generator.h"
#include "oracle/check.h"
#include "oracle/pipeline_run.h"
#include "reference/inputs.h"
#include "reference/reference.h"
#include "reference/summary.h"
#include "tolerance/compare.h"

namespace {

enum Exit { kOk = 0, kFailure = 1, kBadInput = 2, kInternal = 3 };

struct SeedFlags {
  uint64_t seed = 0;
  std::string opt = "O0", save_dir;
  double timeout = 10;
  bool json = false;
};

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at <= s.size()) {
    const size_t comma = s.find(',', at);
    const std::string item = s.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return out;
}

void save_reproducer(const std::string& dir, const difftest::Program& p, const difftest::oracle::Verdict& v,
                     uint64_t input_seed) {
  namespace ref = difftest::reference;
  std::filesystem::create_directories(dir);
  const auto* failure = v.first_failure();
  const difftest::sym::Env env =
      ref::resolve_binding(p, failure && !failure->binding.empty() ? failure->binding : difftest::sym::Env{}, nullptr);
  ref::dump_tensors(dir, ref::generate_inputs(p, env, input_seed), {},
                    fmt::format("inputs of {} under {}", p.name(), ref::binding_str(env)));
  std::ofstream(std::filesystem::path(dir) / "program.ir") << difftest::print(p);
  std::ofstream(std::filesystem::path(dir) / "verdict.json") << v.to_json().dump(2) << "\n";
}

int run_seed(const SeedFlags& f) {
  namespace oracle = difftest::oracle;
  const difftest::Program p = difftest::generate_program(f.seed);
  difftest::verify(p);
  oracle::CheckOptions options;
  options.pipelines = split_list(f.opt);
  for (const auto& name : options.pipelines) difftest::pipeline::find_pipeline(name);  // usage errors first
  options.limits.timeout_seconds = f.timeout;
  const oracle::Verdict v = oracle::check_program(p, options);
  if (!f.save_dir.empty()) save_reproducer(f.save_dir, p, v, options.input_seed);
  if (f.json) {
    nlohmann::json j = v.to_json();
    j["seed"] = f.seed;
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print("seed {}: program {:016x} ({} ops, {} dim vars)\n", f.seed, v.hash, p.num_calls(), p.dims().size());
    for (const auto& var : v.variants) {
      fmt::print("  {:<4} {:<24} {:<15} {}\n", var.pipeline, difftest::reference::binding_str(var.binding),
                 oracle::verdict_kind_name(var.kind),
                 var.kind == oracle::VerdictKind::Ok ? fmt::format("worst ratio {:.3g}", var.worst_ratio) : var.message);
    }
    fmt::print("verdict: {}\n", oracle::verdict_kind_name(v.overall()));
  }
  return oracle::is_failure(v.overall()) ? kFailure : kOk;
}

int run_check(const std::vector<std::string>& files, bool quiet) {
  int status = kOk;
  for (const auto& f : files) {
    try {
      const difftest::Program p = difftest::parse_program_file(f);
      difftest::verify(p);
      if (!quiet) fmt::print("{}", difftest::print(p));
    } catch (const difftest::UserError& e) {
      fmt::print(stderr, "{}\n", e.what());
      status = kBadInput;
    }
  }
  return status;
}

struct EvalFlags {
  std::string file, bind, mode = "f64", inputs_dir, dump_dir, bound_mode = "deterministic";
  uint64_t seed = 0;
  bool bounds = false, every_value = false;
  double lambda = 6;
};

difftest::tolerance::Options tolerance_options(const EvalFlags& f) {
  difftest::tolerance::Options o;
  o.mode = difftest::tolerance::parse_bound_mode(f.bound_mode);
  o.lambda = f.lambda;
  return o;
}

int run_eval(const EvalFlags& f) {
  namespace ref = difftest::reference;
  const difftest::Program p = difftest::parse_program_file(f.file);
  difftest::verify(p);
  const ref::Mode mode = ref::parse_mode(f.mode);
  std::map<std::string, difftest::Tensor> inputs;
  if (!f.inputs_dir.empty()) inputs = ref::load_inputs(p, f.inputs_dir);
  const difftest::sym::Env env =
      ref::resolve_binding(p, ref::parse_binding(f.bind, "--bind"), f.inputs_dir.empty() ? nullptr : &inputs);
  if (f.inputs_dir.empty()) inputs = ref::generate_inputs(p, env, f.seed);
  const ref::Evaluation ev = ref::evaluate(p, env, inputs, mode);
  fmt::print("@{} under {} ({} mode, inputs {})\n", p.name(), ref::binding_str(env), ref::mode_name(mode),
             f.inputs_dir.empty() ? fmt::format("from seed {}", f.seed) : "from " + f.inputs_dir);
  for (size_t i = 0; i < ev.outputs.size(); ++i) {
    fmt::print("out {} %{}: {}\n", i, p.outputs()[i].name(), ref::summarize(ev.outputs[i], p.outputs()[i].type().dtype));
  }
  if (f.bounds) {
    const auto bp = difftest::tolerance::bound_program(p, env, inputs, tolerance_options(f));
    if (bp.invalid) {
      fmt::print("bounds: the program is invalid under this binding: {}\n", bp.invalid_reason);
      return kBadInput;
    }
    for (size_t i = 0; i < bp.outputs.size(); ++i) {
      fmt::print("out {} %{}: {}\n", i, p.outputs()[i].name(), difftest::tolerance::bound_summary(*bp.outputs[i]));
    }
    if (f.every_value) {
      for (const auto& b : p.bindings()) {
        for (const auto& v : b.results()) {
          fmt::print("  %{}: {}\n", v.name(), difftest::tolerance::bound_summary(bp.values.at(v.get())));
        }
      }
    }
  }
  if (!f.dump_dir.empty()) {
    ref::dump_tensors(f.dump_dir, inputs, ev.outputs,
                      fmt::format("difftest eval {} --bind {} --mode {} --seed {}\noutputs of the reference interpreter "
                                  "({} mode: {})",
                                  f.file, ref::binding_str(env), ref::mode_name(mode), f.seed, ref::mode_name(mode),
                                  mode == ref::Mode::F64 ? "floats as f64" : "declared dtypes"));
    fmt::print("wrote {} inputs and {} outputs to {}\n", inputs.size(), ev.outputs.size(), f.dump_dir);
  }
  return kOk;
}

struct CompareFlags {
  EvalFlags eval;
  std::string got_dir;
  bool json = false;
};

int run_compare(const CompareFlags& cf) {
  namespace ref = difftest::reference;
  namespace tol = difftest::tolerance;
  const EvalFlags& f = cf.eval;
  const difftest::Program p = difftest::parse_program_file(f.file);
  difftest::verify(p);
  std::map<std::string, difftest::Tensor> inputs;
  bool have_inputs = false;
  for (const auto& v : p.params()) {
    have_inputs = have_inputs || std::filesystem::exists(std::filesystem::path(cf.got_dir) / ("in_" + v.name() + ".npy"));
  }
  if (have_inputs) inputs = ref::load_inputs(p, cf.got_dir);
  const difftest::sym::Env env =
      ref::resolve_binding(p, ref::parse_binding(f.bind, "--bind"), have_inputs ? &inputs : nullptr);
  if (!have_inputs) inputs = ref::generate_inputs(p, env, f.seed);
  std::vector<difftest::Tensor> got;
  for (size_t i = 0; i < p.outputs().size(); ++i) {
    const auto path = std::filesystem::path(cf.got_dir) / fmt::format("out_{}.npy", i);
    if (!std::filesystem::exists(path)) {
      throw difftest::UserError(difftest::ErrorKind::Io, fmt::format("missing candidate output '{}'", path.string()));
    }
    got.push_back(difftest::read_npy(path.string()));
  }
  const tol::Options opt = tolerance_options(f);
  const auto bp = tol::bound_program(p, env, inputs, opt);
  if (bp.invalid) {
    throw difftest::UserError(difftest::ErrorKind::Evaluation,
                              fmt::format("the reference is not finite under {}: {}", ref::binding_str(env), bp.invalid_reason));
  }
  const tol::Comparison c = tol::compare_outputs(p, bp, got, opt);
  if (cf.json) {
    nlohmann::json j = c.to_json();
    j["program"] = p.name();
    j["binding"] = env;
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print("@{} under {} ({} bounds, safety {})\n", p.name(), ref::binding_str(env), tol::bound_mode_name(opt.mode),
               opt.safety);
    for (const auto& o : c.outputs) {
      fmt::print("out {} {}: {} compared={} uncertain={} failing={} worst ratio={:.3g} at [{}] got={:.9g} want={:.9g} "
                 "bound={:.3g}\n",
                 o.index, o.name, o.passed() ? "ok" : "MISMATCH", o.compared, o.uncertain, o.failing, o.worst_ratio,
                 fmt::join(o.worst_index, ", "), o.got, o.want, o.bound);
    }
    fmt::print("verdict: {}\n", c.passed() ? "ok" : "mismatch");
  }
  return c.passed() ? kOk : kFailure;
}

struct CompileFlags {
  std::string file, opt = "O0", emit = "loop";
};

int run_compile(const CompileFlags& f) {
  const difftest::Program p = difftest::parse_program_file(f.file);
  difftest::verify(p);
  const auto& pipe = difftest::pipeline::find_pipeline(f.opt);
  const auto lowered = difftest::pipeline::run_passes(p, pipe.passes);
  if (f.emit == "graph") {
    fmt::print("{}", difftest::print(lowered.graph));
  } else if (f.emit == "loop") {
    fmt::print("{}", difftest::loop::print(lowered.module));
  } else {
    fmt::print("{}", difftest::codegen::emit_llvm_text(lowered.module, "difftest_"));
  }
  return kOk;
}

struct RunFlags {
  EvalFlags eval;
  std::string opt = "O0";
  bool all_bindings = false;
};

// One binding: compile, run, compare, print. Returns whether every output agreed.
bool run_one_binding(const difftest::Program& p, const difftest::pipeline::Pipeline& pipe, const difftest::sym::Env& env,
                     const EvalFlags& f) {
  namespace ref = difftest::reference;
  namespace tol = difftest::tolerance;
  const auto inputs = ref::generate_inputs(p, env, f.seed);
  const tol::Options opt = tolerance_options(f);
  const auto bp = tol::bound_program(p, env, inputs, opt);
  if (bp.invalid) {
    throw difftest::UserError(difftest::ErrorKind::Evaluation, fmt::format("the program is invalid under {}: {}",
                                                                           ref::binding_str(env), bp.invalid_reason));
  }
  const auto r = difftest::oracle::run_pipeline(p, pipe, env, inputs, bp, opt);
  fmt::print("@{} under {} at {} ({} kernels, compile {:.1f} ms, run {:.1f} ms; {} bounds)\n", p.name(),
             ref::binding_str(env), pipe.name, r.kernels, r.compile_ms, r.run_ms, tol::bound_mode_name(opt.mode));
  for (const auto& o : r.comparison.outputs) {
    fmt::print("out {} {}: {} {} compared={} uncertain={} failing={} worst ratio={:.3g} at [{}] got={:.9g} want={:.9g} "
               "bound={:.3g}\n",
               o.index, o.name, ref::summarize(r.outputs[o.index], o.dtype), o.passed() ? "ok" : "MISMATCH", o.compared,
               o.uncertain, o.failing, o.worst_ratio, fmt::join(o.worst_index, ", "), o.got, o.want, o.bound);
  }
  if (!f.dump_dir.empty()) {
    ref::dump_tensors(f.dump_dir, inputs, r.outputs,
                      fmt::format("difftest run {} --opt {} --bind {} --seed {}\noutputs of the compiled program", f.file,
                                  pipe.name, ref::binding_str(env), f.seed));
    fmt::print("wrote {} inputs and {} outputs to {}\n", inputs.size(), r.outputs.size(), f.dump_dir);
  }
  return r.comparison.passed();
}

int run_run(const RunFlags& rf) {
  namespace ref = difftest::reference;
  const EvalFlags& f = rf.eval;
  const difftest::Program p = difftest::parse_program_file(f.file);
  difftest::verify(p);
  const auto& pipe = difftest::pipeline::find_pipeline(rf.opt);
  std::vector<difftest::sym::Env> bindings;
  if (rf.all_bindings) {
    if (!f.bind.empty()) throw difftest::UserError(difftest::ErrorKind::Usage, "--bind and --all-bindings exclude each other");
    if (!f.dump_dir.empty()) throw difftest::UserError(difftest::ErrorKind::Usage, "--dump needs a single binding");
    bindings = ref::standard_bindings(p);
  } else {
    bindings.push_back(ref::resolve_binding(p, ref::parse_binding(f.bind, "--bind"), nullptr));
  }
  size_t agreed = 0;
  for (const auto& env : bindings) agreed += run_one_binding(p, pipe, env, f) ? 1 : 0;
  const bool ok = agreed == bindings.size();
  fmt::print("verdict: {} ({} of {} bindings agree)\n", ok ? "ok" : "mismatch", agreed, bindings.size());
  return ok ? kOk : kFailure;
}

int run_list_ops(bool markdown) {
  if (markdown) {
    fmt::print("{}", difftest::ops_markdown());
    return kOk;
  }
  for (const auto* op : difftest::OpRegistry::get().all()) fmt::print("{:<22}{:<15}{}\n", op->name, op->family, op->summary);
  return kOk;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"difftest: differential testing of an optimizing tensor compiler against an independent reference"};
  app.footer(
      "Exit codes: 0 everything agreed / input valid; 1 a failure was found; 2 bad input or usage; "
      "3 internal error in difftest.");
  app.set_version_flag("--version", "difftest 0.1.0");
  SeedFlags sf;
  auto* seed_opt = app.add_option("--seed", sf.seed, "generate program N, compile it every way, compare, print a verdict");
  app.add_option("--opt", sf.opt, "with --seed: comma-separated pipelines (default O0)");
  app.add_option("--timeout", sf.timeout, "with --seed: seconds for each pipeline's compile and runs (default 10)");
  app.add_flag("--json", sf.json, "with --seed: print the verdict as JSON");
  app.add_option("--save", sf.save_dir, "with --seed: write program.ir, the inputs (.npy) and verdict.json to DIR");

  auto* check = app.add_subcommand("check", "parse and verify IR files, print their canonical form");
  std::vector<std::string> files;
  bool quiet = false;
  check->add_option("files", files, "IR files (.ir)")->required();
  check->add_flag("-q,--quiet", quiet, "print only errors");

  auto* eval = app.add_subcommand("eval", "evaluate an IR file with the reference interpreter");
  EvalFlags ef;
  eval->add_option("file", ef.file, "IR file")->required();
  eval->add_option("--bind", ef.bind, "dim values, e.g. n=5,m=3 (default: from --inputs shapes, else lower bounds)");
  eval->add_option("--seed", ef.seed, "seed of the generated inputs");
  eval->add_option("--mode", ef.mode, "f64 (default) or native")->check(CLI::IsMember({"f64", "native"}));
  eval->add_option("--inputs", ef.inputs_dir, "read inputs from DIR/in_<name>.npy instead of generating them");
  eval->add_option("--dump", ef.dump_dir, "write inputs and outputs as .npy files to DIR");
  eval->add_flag("--bounds", ef.bounds, "also print the error bounds of every output");
  eval->add_flag("--every-value", ef.every_value, "with --bounds: the bounds of every intermediate value too");
  eval->add_option("--bound-mode", ef.bound_mode, "deterministic (default), probabilistic or pairwise");
  eval->add_option("--lambda", ef.lambda, "confidence multiplier of the probabilistic bound (default 6)");

  auto* compare = app.add_subcommand("compare", "compare .npy outputs of any implementation with the bounded reference");
  CompareFlags cf;
  compare->add_option("file", cf.eval.file, "IR file")->required();
  compare->add_option("--got", cf.got_dir, "directory with out_<i>.npy (and optionally in_<name>.npy)")->required();
  compare->add_option("--bind", cf.eval.bind, "dim values when the inputs are generated");
  compare->add_option("--seed", cf.eval.seed, "seed of the generated inputs (when DIR has no in_*.npy)");
  compare->add_option("--bound-mode", cf.eval.bound_mode, "deterministic (default), probabilistic or pairwise");
  compare->add_option("--lambda", cf.eval.lambda, "confidence multiplier of the probabilistic bound (default 6)");
  compare->add_flag("--json", cf.json, "print the comparison as JSON");

  auto* compile = app.add_subcommand("compile", "compile an IR file and print the graph, loop or LLVM IR");
  CompileFlags cpf;
  compile->add_option("file", cpf.file, "IR file")->required();
  compile->add_option("--opt", cpf.opt, "pipeline: O0");
  compile->add_option("--emit", cpf.emit, "graph, loop (default) or llvm")->check(CLI::IsMember({"graph", "loop", "llvm"}));

  auto* run = app.add_subcommand("run", "compile, execute and compare with the bounded reference");
  RunFlags rf;
  rf.eval.bound_mode = "probabilistic";
  run->add_option("file", rf.eval.file, "IR file")->required();
  run->add_option("--opt", rf.opt, "pipeline: O0");
  run->add_option("--bind", rf.eval.bind, "dim values, e.g. n=5,m=3 (default: lower bounds)");
  run->add_option("--seed", rf.eval.seed, "seed of the generated inputs");
  run->add_flag("--all-bindings", rf.all_bindings, "every standard binding: lower bounds, middles, maxima");
  run->add_option("--dump", rf.eval.dump_dir, "write inputs and compiled outputs as .npy files to DIR");
  run->add_option("--bound-mode", rf.eval.bound_mode, "probabilistic (default), deterministic or pairwise");
  run->add_option("--lambda", rf.eval.lambda, "confidence multiplier of the probabilistic bound (default 6)");

  auto* list_ops = app.add_subcommand("list-ops", "list the op registry");
  bool markdown = false;
  list_ops->add_flag("--markdown", markdown, "print the full reference (docs/ops.md)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "error[usage]: {}\nRun with --help for usage.\n", e.what());
    return kBadInput;
  }

  try {
    if (check->parsed()) return run_check(files, quiet);
    if (list_ops->parsed()) return run_list_ops(markdown);
    if (eval->parsed()) return run_eval(ef);
    if (compare->parsed()) return run_compare(cf);
    if (compile->parsed()) return run_compile(cpf);
    if (run->parsed()) return run_run(rf);
    if (*seed_opt) return run_seed(sf);
    fmt::print(stderr, "{}", app.help());
    return kBadInput;
  } catch (const difftest::UserError& e) {
    fmt::print(stderr, "{}\n", e.what());
    return kBadInput;
  } catch (const std::exception& e) {
    fmt::print(stderr, "internal error: {}\n", e.what());
    return kInternal;
  }
}
