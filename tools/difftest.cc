// The difftest command line. Thin: it parses flags and calls the libraries.
// Exit codes: 0 ok, 1 a failure was found, 2 bad input or usage, 3 internal error.
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "compiler/codegen/codegen.h"
#include "compiler/faults/faults.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/loop/printer.h"
#include "compiler/ops/op.h"
#include "compiler/pipeline/compile.h"
#include "compiler/tensor/npy.h"
#include "fuzz/generator.h"
#include "oracle/campaign/campaign.h"
#include "oracle/campaign/reproducer.h"
#include "oracle/check/case.h"
#include "oracle/check/check.h"
#include "oracle/io/output_paths.h"
#include "oracle/campaign/campaign_reduce.h"
#include "oracle/reduce/reduce_failure.h"
#include "reference/inputs.h"
#include "reference/reference.h"
#include "reference/summary.h"
#include "tolerance/compare.h"
#include "tools/cli_common.h"
#include "tools/progress_line.h"

namespace {

using namespace difftest::cli;

int report(const difftest::Program& p, const CheckFlags& f, const std::string& title, const nlohmann::json& extra) {
  namespace oracle = difftest::oracle;
  const oracle::CheckOptions options = check_options(f);
  if (!f.save_dir.empty()) oracle::require_writable_dir(f.save_dir, "--save");
  const oracle::Verdict v = oracle::check_program(p, options);
  if (!f.save_dir.empty()) oracle::save_reproducer(f.save_dir, p, v, options.input_seed);
  if (f.json) {
    nlohmann::json j = v.to_json();
    j.update(extra);
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print("{}", oracle::format_verdict(v, title));
  }
  return oracle::is_failure(v.overall()) ? kFailure : kOk;
}

int run_seed(uint64_t seed, const CheckFlags& f) {
  const difftest::Program p = difftest::generate_program(seed, generator_options(f.weights));
  difftest::verify(p);
  return report(p, f,
                fmt::format("seed {} ({} ops, {} dim vars)", seed, p.num_calls(), p.dims().size()),
                {{"seed", seed}});
}

int run_generate(uint64_t seed, const std::string& weights) {
  fmt::print("{}", difftest::print(difftest::generate_program(seed, generator_options(weights))));
  return kOk;
}

struct FuzzFlags {
  CheckFlags check;
  SeedFlags seeds;
  std::string out = "difftest-fuzz";
  bool resume = false;
  bool reduce = false;
  double reduce_time = 300;
};

int run_fuzz(const FuzzFlags& f) {
  namespace oracle = difftest::oracle;
  if (f.seeds.seeds.empty() && !(f.seeds.time > 0)) {
    throw difftest::UserError(difftest::ErrorKind::Usage, "fuzz: give --seeds A..B or --time SECONDS");
  }
  oracle::CampaignOptions o = campaign_options(f.check, f.seeds, "--time");
  o.out_dir = f.out;
  o.resume = f.resume;
  ProgressLine progress;
  const auto summary = oracle::run_campaign(o, [&](const oracle::CampaignStatus& s) {
    progress.update("fuzz: " + oracle::format_progress(s, o.time_limit));
  });
  progress.finish();
  fmt::print("{}", oracle::format_summary(summary));
  fmt::print("journal: {}/journal.jsonl  summary: {}/summary.json\n", f.out, f.out);
  if (f.reduce && !summary.failures.empty()) {
    difftest::fuzz::ReduceOptions ro;
    ro.jobs = f.seeds.jobs;
    ro.time_limit = f.reduce_time;
    const auto reductions = oracle::reduce_campaign_failures(
        summary, o, ro,
        [&](const oracle::FailureClass& c) {
          progress.note(fmt::format("reducing {} (seed {})", c.signature.str(), c.first_seed));
        },
        [&](const oracle::ReduceProgress& p) { progress.update(oracle::format_reduce_progress(p)); });
    progress.finish();
    fmt::print("reductions ({}/reductions.json):\n{}", f.out, oracle::format_reductions(reductions));
  }
  return summary.found_failure() ? kFailure : kOk;
}

int run_list_faults() {
  // The name column as wide as the longest name, so that every name ends in a space.
  size_t width = 0;
  for (const auto& f : difftest::faults::all_faults()) width = std::max(width, f.name.size() + 2);
  for (const auto& f : difftest::faults::all_faults()) {
    fmt::print("{:<{}}{} [{}]\n", f.name, width, f.description, f.pass);
  }
  return kOk;
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
  int members = 8;  // the statistical tier's ensemble (0: the sound bounds only)
};

difftest::tolerance::Options tolerance_options(const EvalFlags& f) {
  difftest::tolerance::Options o;
  o.mode = difftest::tolerance::parse_bound_mode(f.bound_mode);
  o.lambda = f.lambda;
  return o;
}

// Inputs from --seed, the bounds of --bound-mode and --lambda, an ensemble of --members.
difftest::oracle::CaseOptions case_options(const EvalFlags& f) {
  difftest::oracle::CaseOptions o;
  o.input_seed = f.seed;
  o.tolerance = tolerance_options(f);
  o.ensemble.members = f.members;
  return o;
}

int run_eval(const EvalFlags& f) {
  namespace ref = difftest::reference;
  if (!f.dump_dir.empty()) difftest::oracle::require_writable_dir(f.dump_dir, "--dump");
  const difftest::Program p = difftest::parse_program_file(f.file);
  difftest::verify(p);
  const ref::Mode mode = ref::parse_mode(f.mode);
  std::map<std::string, difftest::Tensor> inputs;
  if (!f.inputs_dir.empty()) inputs = ref::load_inputs(p, f.inputs_dir);
  const difftest::sym::Env env =
      ref::resolve_binding(p, ref::parse_binding(f.bind, "--bind"), f.inputs_dir.empty() ? nullptr : &inputs);
  if (f.bounds) difftest::tolerance::require_bounding_memory(p, env);
  ref::require_evaluation_memory(p, env, mode, 0, "its reference values");
  if (f.inputs_dir.empty()) inputs = ref::generate_inputs(p, env, f.seed);
  const ref::Evaluation ev = ref::evaluate(p, env, inputs, mode);
  fmt::print("@{} under {} ({} mode, inputs {})\n", p.name(), ref::binding_str(env), ref::mode_name(mode),
             f.inputs_dir.empty() ? fmt::format("from seed {}", f.seed) : "from " + f.inputs_dir);
  for (size_t i = 0; i < ev.outputs.size(); ++i) {
    fmt::print("out {} %{}: {}\n", i, p.outputs()[i].name(), ref::summarize(ev.outputs[i], p.outputs()[i].type().dtype));
  }
  if (f.bounds) {
    const difftest::oracle::Case c = difftest::oracle::make_case(p, env, case_options(f), inputs);
    if (c.invalid()) {
      fmt::print("bounds: the program is invalid under this binding: {}\n", c.invalid_reason());
      return kBadInput;
    }
    for (size_t i = 0; i < c.bounds.outputs.size(); ++i) {
      fmt::print("out {} %{}: {}\n", i, p.outputs()[i].name(),
                 difftest::tolerance::bound_summary(*c.bounds.outputs[i]));
    }
    if (c.calibration) {
      for (size_t i = 0; i < c.calibration->bounds.outputs.size(); ++i) {
        fmt::print("out {} %{}: ensemble of {}: allowance {}\n", i, p.outputs()[i].name(), f.members,
                   difftest::tolerance::bound_summary(*c.calibration->bounds.outputs[i]));
      }
    }
    if (f.every_value) {
      for (const auto& b : p.bindings()) {
        for (const auto& v : b.results()) {
          fmt::print("  %{}: {}\n", v.name(), difftest::tolerance::bound_summary(c.bounds.values.at(v.get())));
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
  std::vector<difftest::Tensor> got;
  for (size_t i = 0; i < p.outputs().size(); ++i) {
    const auto path = std::filesystem::path(cf.got_dir) / fmt::format("out_{}.npy", i);
    if (!std::filesystem::exists(path)) {
      throw difftest::UserError(difftest::ErrorKind::Io, fmt::format("missing candidate output '{}'", path.string()));
    }
    got.push_back(difftest::read_npy(path.string()));
  }
  const tol::Options opt = tolerance_options(f);
  const difftest::oracle::Case bounded =
      difftest::oracle::make_case(p, ref::parse_binding(f.bind, "--bind"), case_options(f),
                                  have_inputs ? std::optional(std::move(inputs)) : std::nullopt);
  const difftest::sym::Env& env = bounded.env;
  if (bounded.invalid()) {
    throw difftest::UserError(
        difftest::ErrorKind::Evaluation,
        fmt::format("the reference is not finite under {}: {}", ref::binding_str(env), bounded.invalid_reason()));
  }
  const tol::Comparison c = bounded.compare(p, got, opt);
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
      if (o.calibrated) fmt::print("  {}\n", tol::statistical_summary(o));
    }
    fmt::print("verdict: {}\n", !c.passed() ? "mismatch" : c.has_outlier() ? "outlier" : "ok");
  }
  return c.passed() && !c.has_outlier() ? kOk : kFailure;
}

struct CompileFlags {
  std::string file, opt = "O0", passes, emit = "loop";
  std::vector<std::string> disabled;
  int bisect_limit = -1;
  bool print_after_all = false, verify_each = false;
};

int run_compile(const CompileFlags& f) {
  namespace pipeline = difftest::pipeline;
  const difftest::Program p = difftest::parse_program_file(f.file);
  difftest::verify(p);
  const std::vector<std::string> passes =
      f.passes.empty() ? pipeline::find_pipeline(f.opt).passes : pipeline::parse_pass_list(f.passes, "--passes");
  pipeline::RunOptions options;
  options.verify_each = f.verify_each;
  options.bisect_limit = f.bisect_limit;
  for (const auto& name : f.disabled) options.disabled.insert(pipeline::find_pass(name).name);
  if (f.bisect_limit >= 0) {
    options.on_event = [](const pipeline::PassEvent& e) { fmt::print(stderr, "{}\n", pipeline::bisect_line(e)); };
  }
  if (f.print_after_all) {
    options.print_after = [](const std::string& pass, const std::string& ir) {
      fmt::print(stderr, "; *** IR dump after {} ***\n{}", pass, ir);
    };
  }
  const auto lowered = pipeline::run_passes(p, passes, options);
  if (f.emit == "graph") {
    fmt::print("{}", difftest::print(lowered.graph));
  } else if (f.emit == "loop") {
    fmt::print("{}", difftest::loop::print(lowered.module));
  } else {
    fmt::print("{}", difftest::codegen::emit_llvm_text(lowered.module, "difftest_"));
  }
  return kOk;
}

int run_list_passes() {
  namespace pipeline = difftest::pipeline;
  for (const auto& p : pipeline::all_passes()) {
    fmt::print("{:<28} {:<8} {}\n", p.name, pipeline::pass_kind_name(p.kind), p.description);
  }
  fmt::print("\npipelines:\n");
  for (const auto& p : pipeline::pipelines()) {
    fmt::print("  {} (LLVM -O{}{}): {}\n", p.name, p.llvm_opt_level, p.fma_contraction ? ", FMA contraction" : "",
               fmt::join(p.passes, ", "));
  }
  return kOk;
}

// One binding, by the check's own compile-run-compare path: print the outputs and how they
// compare. Returns the verdict.
difftest::oracle::VerdictKind run_one_binding(const difftest::Program& p, const difftest::oracle::Variant& variant,
                                              const difftest::sym::Env& given, const EvalFlags& f,
                                              const difftest::oracle::CheckOptions& options) {
  namespace ref = difftest::reference;
  namespace tol = difftest::tolerance;
  namespace oracle = difftest::oracle;
  const oracle::Case c = oracle::make_case(p, given, options.cases());
  if (c.invalid()) {
    throw difftest::UserError(
        difftest::ErrorKind::Evaluation,
        fmt::format("the program is invalid under {}: {}", ref::binding_str(c.env), c.invalid_reason()));
  }
  const oracle::CaseRun r = oracle::run_case(p, variant, c, options);
  const oracle::VariantVerdict& v = r.verdict.variants.front();
  if (!r.result) {
    fmt::print("@{} under {} at {}: {} during {}: {}\n", p.name(), ref::binding_str(c.env), variant.name(),
               oracle::verdict_kind_name(v.kind), v.stage.describe(), v.message);
    return v.kind;
  }
  fmt::print("@{} under {} at {} ({} kernels, compile {:.1f} ms, run {:.1f} ms; {} bounds)\n", p.name(),
             ref::binding_str(c.env), variant.name(), r.kernels, v.compile_ms, v.run_ms,
             tol::bound_mode_name(options.tolerance.mode));
  const std::vector<difftest::Tensor>& outputs = r.result->outputs;
  for (const auto& o : r.result->comparison.outputs) {
    fmt::print(
        "out {} {}: {} {} compared={} uncertain={} failing={} worst ratio={:.3g} at [{}] got={:.9g} want={:.9g} "
        "bound={:.3g}\n",
        o.index, o.name, ref::summarize(outputs[o.index], o.dtype),
        !o.passed()       ? "MISMATCH"
        : o.has_outlier() ? "OUTLIER"
                          : "ok",
        o.compared, o.uncertain, o.failing, o.worst_ratio, fmt::join(o.worst_index, ", "), o.got, o.want, o.bound);
    if (o.calibrated) fmt::print("  {}\n", tol::statistical_summary(o));
  }
  if (v.kind == oracle::VerdictKind::Unchecked) fmt::print("{}\n", v.message);
  if (!f.dump_dir.empty()) {
    ref::dump_tensors(f.dump_dir, c.inputs, outputs,
                      fmt::format("difftest run {} --opt {} --bind {} --seed {}\noutputs of the compiled program",
                                  f.file, variant.name(), ref::binding_str(c.env), f.seed));
    fmt::print("wrote {} inputs and {} outputs to {}\n", c.inputs.size(), outputs.size(), f.dump_dir);
  }
  return v.kind;
}

struct RunFlags {
  EvalFlags eval;
  CheckFlags check;
};

// With --bind or --dump: one binding, in process, with output summaries. Otherwise the
// oracle's check: every pipeline in --opt under every default binding, isolated.
int run_run(const RunFlags& rf) {
  namespace ref = difftest::reference;
  EvalFlags f = rf.eval;
  f.members = rf.check.members;  // --members serves --bind too
  if (!f.dump_dir.empty()) difftest::oracle::require_writable_dir(f.dump_dir, "--dump");
  const difftest::Program p = difftest::parse_program_file(f.file);
  difftest::verify(p);
  if (f.bind.empty() && f.dump_dir.empty()) {
    CheckFlags check = rf.check;
    check.tolerance = tolerance_options(f);
    return report(p, check, f.file, {{"file", f.file}});
  }
  namespace oracle = difftest::oracle;
  oracle::CheckOptions options = check_options(rf.check);  // validates; turns the faults on
  if (options.pipelines.size() + options.custom.size() != 1) {
    throw difftest::UserError(difftest::ErrorKind::Usage, "--bind/--dump need a single --opt or --passes");
  }
  options.tolerance = tolerance_options(f);
  options.input_seed = f.seed;
  const oracle::Variant variant = options.custom.empty()
                                      ? options.under_test().named(options.pipelines.front(), "--opt")
                                      : oracle::builtin_variant(oracle::VariantKind::Custom, options.custom.front());
  const oracle::VerdictKind verdict = run_one_binding(p, variant, ref::parse_binding(f.bind, "--bind"), f, options);
  fmt::print("verdict: {}\n", oracle::verdict_kind_name(verdict));
  return oracle::is_failure(verdict) ? kFailure : kOk;
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
  uint64_t seed = 0;
  CheckFlags sf;
  auto* seed_opt = app.add_option("--seed", seed, "generate program N, compile it every way, compare, print a verdict")
                       ->check(unsigned_number());
  add_check_flags(&app, sf, true);
  app.add_option("--weights", sf.weights, "with --seed: op weights for the generator, e.g. exp=0,matmul=40");

  auto* generate = app.add_subcommand("generate", "print the program a seed generates");
  uint64_t gen_seed = 0;
  std::string gen_weights;
  generate->add_option("--seed", gen_seed, "the seed")->required()->check(unsigned_number());
  generate->add_option("--weights", gen_weights, "op weights for the generator, e.g. exp=0,matmul=40");

  auto* fuzz = app.add_subcommand("fuzz", "run a campaign: many seeds, a journal, each distinct failure saved once");
  FuzzFlags ff;
  fuzz->add_option("--seeds", ff.seeds.seeds, "the seeds A..B (inclusive)");
  fuzz->add_option("--time", ff.seeds.time,
                   "stop after SECONDS, programs in flight abandoned (with --seeds: whichever comes first)")
      ->check(seconds());
  fuzz->add_option("--jobs", ff.seeds.jobs, "worker processes (default 1)")->check(CLI::Range(1, 256));
  fuzz->add_option("--out", ff.out, "directory for journal.jsonl, summary.json and failures/ (default difftest-fuzz)");
  fuzz->add_option("--shard", ff.seeds.shard, "i/N: only the seeds with seed % N == i");
  fuzz->add_flag("--resume", ff.resume, "continue the campaign journaled in --out");
  fuzz->add_flag("--reduce", ff.reduce, "at the end, reduce every distinct failure into failures/*/reduced/");
  fuzz->add_option("--reduce-time", ff.reduce_time, "with --reduce: seconds for each failure (default 300)")
      ->check(positive_finite());
  fuzz->add_option("--weights", ff.check.weights, "op weights for the generator, e.g. exp=0,matmul=40");
  add_check_flags(fuzz, ff.check, false);

  bool list_passes = false;
  app.add_flag("--list-passes", list_passes, "list every pass with its kind and description, and the pipelines");

  auto* gate = app.add_subcommand("gate", "CI gating: the corpus, then seeds within a budget; fail on any new signature");
  GateFlags gf;
  add_gate_flags(gate, gf);

  auto* list_faults = app.add_subcommand("list-faults", "list the test faults --inject can turn on");

  auto* check = app.add_subcommand("check", "parse and verify IR files, print their canonical form");
  std::vector<std::string> files;
  bool quiet = false;
  check->add_option("files", files, "IR files (.ir)")->required();
  check->add_flag("-q,--quiet", quiet, "print only errors");

  auto* eval = app.add_subcommand("eval", "evaluate an IR file with the reference interpreter");
  EvalFlags ef;
  eval->add_option("file", ef.file, "IR file")->required();
  eval->add_option("--bind", ef.bind, "dim values, e.g. n=5,m=3 (default: from --inputs shapes, else lower bounds)");
  eval->add_option("--seed", ef.seed, "seed of the generated inputs")->check(unsigned_number());
  eval->add_option("--mode", ef.mode, "f64 (default) or native")->check(CLI::IsMember({"f64", "native"}));
  eval->add_option("--inputs", ef.inputs_dir, "read inputs from DIR/in_<name>.npy instead of generating them");
  eval->add_option("--dump", ef.dump_dir, "write inputs and outputs as .npy files to DIR");
  eval->add_flag("--bounds", ef.bounds, "also print the error bounds of every output");
  eval->add_flag("--every-value", ef.every_value, "with --bounds: the bounds of every intermediate value too");
  eval->add_option("--bound-mode", ef.bound_mode, "deterministic (default), probabilistic or pairwise");
  eval->add_option("--lambda", ef.lambda, "confidence multiplier of the probabilistic bound (default 6)")
      ->check(positive_finite());
  eval->add_option("--members", ef.members,
                   "with --bounds: the ensemble's size for the statistical allowances "
                   "(default 8; 0: none)")
      ->check(CLI::Range(0, 1000));

  auto* compare = app.add_subcommand("compare", "compare .npy outputs of any implementation with the bounded reference");
  CompareFlags cf;
  compare->add_option("file", cf.eval.file, "IR file")->required();
  compare->add_option("--got", cf.got_dir, "directory with out_<i>.npy (and optionally in_<name>.npy)")->required();
  compare->add_option("--bind", cf.eval.bind, "dim values when the inputs are generated");
  compare->add_option("--seed", cf.eval.seed, "seed of the generated inputs (when DIR has no in_*.npy)")
      ->check(unsigned_number());
  compare->add_option("--bound-mode", cf.eval.bound_mode, "deterministic (default), probabilistic or pairwise");
  compare->add_option("--lambda", cf.eval.lambda, "confidence multiplier of the probabilistic bound (default 6)")
      ->check(positive_finite());
  compare
      ->add_option("--members", cf.eval.members,
                   "the ensemble's size for the statistical tier (default 8; 0: the "
                   "sound bounds only)")
      ->check(CLI::Range(0, 1000));
  compare->add_flag("--json", cf.json, "print the comparison as JSON");

  auto* compile = app.add_subcommand("compile", "compile an IR file and print the graph, loop or LLVM IR");
  CompileFlags cpf;
  compile->add_option("file", cpf.file, "IR file")->required();
  compile->add_option("--opt", cpf.opt, "pipeline (default O0; see --list-passes)");
  compile->add_option("--passes", cpf.passes, "an explicit pass list a,b,c instead of --opt");
  compile->add_flag("--print-after-all", cpf.print_after_all, "print the IR to stderr after every pass that changed it");
  compile->add_flag("--verify-each", cpf.verify_each, "run the IR verifier after every pass");
  compile->add_option("--bisect-limit", cpf.bisect_limit, "run only the first N pass applications, log them to stderr")
      ->check(CLI::NonNegativeNumber);
  compile->add_option("--disable-pass", cpf.disabled, "drop a pass from the list; repeatable");
  compile->add_option("--emit", cpf.emit, "graph, loop (default) or llvm")->check(CLI::IsMember({"graph", "loop", "llvm"}));

  auto* run = app.add_subcommand("run", "compile, execute and compare with the bounded reference");
  RunFlags rf;
  rf.eval.bound_mode = "probabilistic";
  run->add_option("file", rf.eval.file, "IR file")->required();
  add_check_flags(run, rf.check, true);
  run->add_option("--bind", rf.eval.bind, "one binding, e.g. n=5,m=3, with output summaries");
  run->add_option("--seed", rf.eval.seed, "with --bind/--dump: seed of the generated inputs")->check(unsigned_number());
  run->add_option("--dump", rf.eval.dump_dir, "write inputs and compiled outputs of one binding as .npy files to DIR");
  run->add_option("--bound-mode", rf.eval.bound_mode, "probabilistic (default), deterministic or pairwise");
  run->add_option("--lambda", rf.eval.lambda, "confidence multiplier of the probabilistic bound (default 6)")
      ->check(positive_finite());

  auto* reduce = app.add_subcommand("reduce", "shrink a failing program to a minimal reproducer and write a report");
  ReduceFlags rdf;
  add_reduce_flags(reduce, rdf, true);
  auto* bisect = app.add_subcommand("bisect", "find the pass application after which a failure appears");
  ReduceFlags bsf;
  add_reduce_flags(bisect, bsf, false);

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
    if (generate->parsed()) return run_generate(gen_seed, gen_weights);
    if (fuzz->parsed()) return run_fuzz(ff);
    if (gate->parsed()) return run_gate(gf);
    if (list_faults->parsed()) return run_list_faults();
    if (reduce->parsed()) return run_reduce(rdf);
    if (bisect->parsed()) return run_bisect(bsf);
    if (list_passes) return run_list_passes();
    if (*seed_opt) return run_seed(seed, sf);
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
