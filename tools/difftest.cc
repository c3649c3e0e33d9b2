// The difftest command line: flags bound to the requests of commands/, one command run, its
// output printed. Exit codes (commands/request.h): 0 ok, 1 a failure was found, 2 bad input or
// usage, 3 internal error.
#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "commands/commands.h"
#include "compiler/support/diagnostics.h"
#include "tools/flags.h"

namespace {

void print_out(const std::string& text) { fmt::print("{}", text); }
void print_err(const std::string& text) { fmt::print(stderr, "{}", text); }

}  // namespace

int main(int argc, char** argv) {
  using namespace difftest;
  using namespace difftest::cli;
  CLI::App app{"difftest: differential testing of an optimizing tensor compiler against an independent reference"};
  app.footer(
      "Exit codes: 0 everything agreed / input valid; 1 a failure was found; 2 bad input or usage; "
      "3 internal error in difftest.");
  app.set_version_flag("--version", "difftest 0.1.0");
  uint64_t seed = 0;
  commands::CheckRequest sf;
  auto* seed_opt = app.add_option("--seed", seed, "generate program N, compile it every way, compare, print a verdict")
                       ->check(unsigned_number());
  add_check_flags(&app, sf, true);
  app.add_option("--weights", sf.weights, "with --seed: op weights for the generator, e.g. exp=0,matmul=40");

  auto* generate = app.add_subcommand("generate", "print the program a seed generates");
  uint64_t gen_seed = 0;
  commands::CheckRequest gen_request;
  generate->add_option("--seed", gen_seed, "the seed")->required()->check(unsigned_number());
  generate->add_option("--weights", gen_request.weights, "op weights for the generator, e.g. exp=0,matmul=40");
  add_generator_flags(generate, gen_request);

  auto* fuzz = app.add_subcommand("fuzz", "run a campaign: many seeds, a journal, each distinct failure saved once");
  commands::FuzzRequest ff;
  fuzz->add_option("--seeds", ff.seeds.seeds, "the seeds A..B (inclusive)");
  fuzz->add_option("--time", ff.seeds.time,
                   "stop after SECONDS, programs in flight abandoned (with --seeds: whichever comes first)")
      ->check(seconds());
  fuzz->add_option("--jobs", ff.seeds.jobs, "worker processes (default 1)")->check(CLI::Range(1, 256));
  fuzz->add_option("--out", ff.out, "directory for journal.jsonl, summary.json and failures/ (default difftest-fuzz)");
  fuzz->add_option("--shard", ff.seeds.shard, "i/N: only the seeds with seed % N == i (default: a Kubernetes Indexed Job's or Slurm array's task, else 0/1)");
  fuzz->add_flag("--resume", ff.resume, "continue the campaign journaled in --out");
  fuzz->add_option("--coverage", ff.coverage, "write the coverage map of the programs journaled to FILE (JSON)");
  fuzz->add_option("--steer", ff.steer,
                   "check, of each K consecutive seeds, the program that adds the most coverage cells not yet covered "
                   "(deterministic: --seed N still names one program)")
      ->check(CLI::Range(2, 1024));
  fuzz->add_flag("--reduce", ff.reduce, "at the end, reduce every distinct failure into failures/*/reduced/");
  fuzz->add_option("--reduce-time", ff.reduce_time, "with --reduce: seconds for each failure (default 300)")
      ->check(positive_finite());
  fuzz->add_option("--weights", ff.check.weights, "op weights for the generator, e.g. exp=0,matmul=40");
  fuzz->add_option("--fail-on", ff.fail_on,
                   "unchecked: programs with an output too little compared are saved as failures and fail the "
                   "campaign (default: counted, exit 0 when nothing failed)")
      ->check(CLI::IsMember({"unchecked"}));
  fuzz->add_option("--known", ff.known,
                   "findings already known: a corpus directory or entry (its '# expect:' signatures) or a gate "
                   "baseline; the summary leads with the failures that match none, and only those fail; repeatable");
  add_check_flags(fuzz, ff.check, false);
  add_probe_flag(fuzz, ff.check.probe, false);

  auto* merge = app.add_subcommand("merge", "merge the outputs of a campaign's shards into one campaign");
  commands::MergeRequest mf;
  merge->add_option("dirs", mf.dirs, "the shards' --out directories")->required();
  merge->add_option("--out", mf.out, "the merged campaign's directory (absent, empty or an earlier merge)")->required();
  merge->add_option("--known", mf.known,
                    "findings already known (as fuzz --known): the summary leads with the others; repeatable");

  auto* report = app.add_subcommand("report", "write a campaign's report: one self-contained HTML page and its JSON");
  commands::ReportRequest rpf;
  report->add_option("dir", rpf.dir, "a campaign's directory (fuzz --out, or merge --out)")->required();
  report->add_option("--out", rpf.out, "the page (default DIR/report.html)");
  report->add_option("--json", rpf.json, "the page's data as JSON (default: beside the page, report.json)");
  report->add_option("--known", rpf.known, "findings already known (as fuzz --known); repeatable");

  bool list_passes = false;
  app.add_flag("--list-passes", list_passes, "list every pass with its kind and description, and the pipelines");

  auto* gate =
      app.add_subcommand("gate", "CI gating: the corpus, then seeds within a budget; fail on any new signature");
  commands::GateRequest gf;
  add_gate_flags(gate, gf);

  auto* list_faults = app.add_subcommand("list-faults", "list the test faults --inject can turn on");
  auto* backends = app.add_subcommand("backends", "list the compilers --backend can put under test");

  auto* check = app.add_subcommand("check", "parse and verify IR files, print their canonical form");
  std::vector<std::string> files;
  bool quiet = false;
  check->add_option("files", files, "IR files (.ir)")->required();
  check->add_flag("-q,--quiet", quiet, "print only errors");

  auto* eval = app.add_subcommand("eval", "evaluate an IR file with the reference interpreter");
  commands::EvalRequest ef;
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

  auto* compare =
      app.add_subcommand("compare", "compare .npy outputs of any implementation with the bounded reference");
  commands::CompareRequest cf;
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
  commands::CompileRequest cpf;
  compile->add_option("file", cpf.file, "IR file")->required();
  compile->add_option("--opt", cpf.opt, "pipeline (default O0; see --list-passes)");
  compile->add_option("--passes", cpf.passes, "an explicit pass list a,b,c instead of --opt");
  compile->add_flag("--print-after-all", cpf.print_after_all,
                    "print the IR to stderr after every pass that changed it");
  compile->add_flag("--verify-each", cpf.verify_each, "run the IR verifier after every pass");
  compile->add_option("--bisect-limit", cpf.bisect_limit, "run only the first N pass applications, log them to stderr")
      ->check(CLI::NonNegativeNumber);
  compile->add_option("--disable-pass", cpf.disabled, "drop a pass from the list; repeatable");
  add_target_flag(compile, cpf.target);
  compile
      ->add_option("--emit", cpf.emit,
                   "graph, loop (default), llvm (as emitted) or llvm-opt (after the LLVM passes of the pipeline's "
                   "LLVM level)")
      ->check(CLI::IsMember({"graph", "loop", "llvm", "llvm-opt"}));
  compile->add_option("--passes-llvm", cpf.passes_llvm, "LLVM level 0..3 of --passes for --emit llvm-opt (default 0)")
      ->check(CLI::Range(0, 3));

  auto* run = app.add_subcommand("run", "compile, execute and compare with the bounded reference");
  commands::RunRequest rf;
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
  commands::ReduceRequest rdf;
  add_reduce_flags(reduce, rdf, true);
  auto* bisect = app.add_subcommand("bisect", "find the pass application after which a failure appears");
  commands::ReduceRequest bsf;
  add_reduce_flags(bisect, bsf, false);

  auto* import = app.add_subcommand("import", "print the program an ONNX model computes, as IR text");
  commands::ImportRequest imp;
  import->add_option("model", imp.file, "ONNX model (.onnx)")->required();
  import->add_option("--dim", imp.dims, "the range of a symbolic dim, e.g. n=1..512; repeatable");

  auto* export_cmd = app.add_subcommand("export", "write a program as an ONNX model or a self-checking TVMScript file");
  commands::ExportRequest exp;
  export_cmd->add_option("file", exp.file, "IR file")->required();
  export_cmd->add_option("--onnx", exp.onnx_out, "the .onnx file to write");
  export_cmd->add_option("--tvmscript", exp.tvmscript_out,
                         "the .py file to write: the program as a TVM Relax module that builds it at every TVM "
                         "opt_level and judges each against the reference embedded (exit 1 when one is wrong)");
  export_cmd->add_option("--bind", exp.bind, "with --tvmscript: the dims of the inputs, e.g. n=5 (default: lower bounds)");
  export_cmd->add_option("--form-seed", exp.form_seed, "chooses among equivalent decomposition forms (default 0)")
      ->check(unsigned_number());
  export_cmd->add_flag("--unpacked-q4", exp.unpacked_q4,
                       "write q4 weights unpacked (BitShift, Mod) then MatMul, not as ORT's MatMulNBits");
  export_cmd->add_flag("--bf16-edges", exp.bf16_edges,
                       "bf16 inputs and outputs as f32 at the graph's edges, for runtimes without bf16 tensors");
  export_cmd->add_option("--backend", exp.backend,
                         "ort: exactly the model `--backend ort` checks (its form seed is the program's hash)");

  auto* conformance = app.add_subcommand("onnx-conformance", "hold the reference against ONNX's node tests");
  commands::ConformanceRequest conf;
  conformance->add_option("dir", conf.dir, "node test directory (default: libonnx-testdata's)");
  conformance->add_option("--expect", conf.expect, "fail when an outcome differs from this expectations file");
  conformance->add_option("--write-expect", conf.write_expect, "write the outcomes to this expectations file");

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
    return commands::kBadInput;
  }

  try {
    commands::ProgressLine progress;
    if (check->parsed()) return commands::check_files_command(files, quiet, print_out, print_err);
    if (list_ops->parsed()) return commands::list_ops_command(markdown, print_out);
    if (eval->parsed()) return commands::eval_command(ef, print_out);
    if (compare->parsed()) return commands::compare_command(cf, print_out);
    if (compile->parsed()) return commands::compile_command(cpf, print_out, print_err);
    if (run->parsed()) return commands::run_command(rf, print_out);
    if (generate->parsed()) return commands::generate_command(gen_seed, gen_request, print_out);
    if (fuzz->parsed()) return commands::fuzz_command(ff, progress, print_out);
    if (merge->parsed()) return commands::merge_command(mf, print_out);
    if (report->parsed()) return commands::report_command(rpf, print_out);
    if (gate->parsed()) return commands::gate_command(gf, progress, print_out);
    if (list_faults->parsed()) return commands::list_faults_command(print_out);
    if (backends->parsed()) return commands::backends_command(print_out);
    if (reduce->parsed()) return commands::reduce_command(rdf, progress, print_out);
    if (bisect->parsed()) return commands::bisect_command(bsf, progress, print_out);
    if (import->parsed()) return commands::import_command(imp, print_out);
    if (export_cmd->parsed()) {
      exp.form_seed_given = export_cmd->count("--form-seed") > 0;
      return commands::export_command(exp, print_out);
    }
    if (conformance->parsed()) return commands::onnx_conformance_command(conf, progress, print_out);
    if (list_passes) return commands::list_passes_command(print_out);
    if (*seed_opt) return commands::seed_command(seed, sf, print_out);
    fmt::print(stderr, "{}", app.help());
    return commands::kBadInput;
  } catch (const difftest::UserError& e) {
    fmt::print(stderr, "{}\n", e.what());
    return commands::kBadInput;
  } catch (const std::exception& e) {
    fmt::print(stderr, "internal error: {}\n", e.what());
    return commands::kInternal;
  }
}
