// The difftest subcommands' work, behind typed requests: tools/difftest.cc binds flags to these
// requests and calls one function; each writes what the command shows through `out` (stdout
// for the command line; `log` is stderr) and returns its exit code (request.h). Bad input is a
// UserError naming the file, flag or node.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "commands/progress_line.h"
#include "commands/request.h"

namespace difftest::commands {

// --seed N: program N generated, checked every way, its verdict (--json: as JSON).
int seed_command(uint64_t seed, const CheckRequest& check, const Print& out);
// generate --seed N: the program's text.
// The program `seed` generates (with the request's --weights, --float-dtypes, --backend).
int generate_command(uint64_t seed, const CheckRequest& r, const Print& out);
// check FILES: each parsed and verified, its canonical form printed unless `quiet`; errors to `log`.
int check_files_command(const std::vector<std::string>& files, bool quiet, const Print& out, const Print& log);

// One IR file under the reference: eval, compare and run --bind.
struct EvalRequest {
  std::string file, bind, mode = "f64", inputs_dir, dump_dir, bound_mode = "deterministic";
  uint64_t seed = 0;
  bool bounds = false, every_value = false;
  double lambda = 6;
  int members = 8;  // the statistical tier's ensemble (0: the sound bounds only)
};
// eval FILE: the reference's outputs (and with `bounds` their bounds and allowances); --dump
// writes inputs and outputs as .npy.
int eval_command(const EvalRequest& r, const Print& out);
// compare FILE --got DIR: another implementation's outputs held against the bounded reference.
struct CompareRequest {
  EvalRequest eval;
  std::string got_dir;
  bool json = false;
};
int compare_command(const CompareRequest& r, const Print& out);
// run FILE: the oracle's check of every pipeline under every default binding; with --bind or
// --dump, one pipeline under one binding by the same compile-run-compare path, with output
// summaries (and the .npy files).
struct RunRequest {
  EvalRequest eval;
  CheckRequest check;
};
int run_command(const RunRequest& r, const Print& out);

// compile FILE: the graph, loop or LLVM IR a pipeline or pass list leaves; pass events and IR
// dumps go to `log`.
struct CompileRequest {
  std::string file, opt = "O0", passes, emit = "loop";
  std::string target;  // "": the default target (target.h); any target may be printed, whatever the host
  std::vector<std::string> disabled;
  int bisect_limit = -1;
  int passes_llvm = 0;  // the LLVM level of `passes` (an --opt pipeline has its own)
  bool print_after_all = false, verify_each = false;
};
int compile_command(const CompileRequest& r, const Print& out, const Print& log);

// The registries: passes and pipelines, faults, ops (`markdown`: docs/ops.md).
int list_passes_command(const Print& out);
int list_faults_command(const Print& out);
// The compilers --backend can put under test: name, identity, version, levels, availability.
int backends_command(const Print& out);
int list_ops_command(bool markdown, const Print& out);

// merge DIR... --out OUT: a campaign's shards as one campaign (oracle/merge/merge.h), its
// summary new failures first when `known` names known findings.
struct MergeRequest {
  std::vector<std::string> dirs;
  std::string out;
  std::vector<std::string> known;  // as FuzzRequest::known
};
int merge_command(const MergeRequest& r, const Print& out);

// report DIR --out FILE: a campaign as one self-contained web page and its data as JSON.
struct ReportRequest {
  std::string dir;
  std::string out;   // "": DIR/report.html
  std::string json;  // "": beside the page, report.json
  std::vector<std::string> known;
};
int report_command(const ReportRequest& r, const Print& out);

// fuzz: a campaign over seeds, its summary, and with `reduce` every distinct failure reduced.
struct FuzzRequest {
  CheckRequest check;
  SeedRequest seeds;
  std::string out = "difftest-fuzz";
  bool resume = false, reduce = false;
  double reduce_time = 300;
  std::vector<std::string> fail_on;  // "unchecked"
  std::string coverage;  // --coverage FILE
  int steer = 0;         // --steer K
  std::vector<std::string> known;  // --known PATH: corpus directories, entries, gate baselines
};
int fuzz_command(const FuzzRequest& r, ProgressLine& progress, const Print& out);

// gate: the corpus, then seeds within a budget; fails on any new signature.
struct GateRequest {
  CheckRequest check;
  SeedRequest seeds;  // its time is --budget
  std::string corpus = "corpus", baseline, junit, json, out = "difftest-gate";
  int batch = 50;
  bool update_baseline = false, fail_fast = false;
  std::vector<std::string> fail_on;  // "outlier", "unchecked"
};
int gate_command(const GateRequest& r, ProgressLine& progress, const Print& out);

// reduce FILE / bisect FILE: the failure recorded beside FILE (or found by checking it),
// reduced to a minimal reproducer with its report, or bisected to its culprit pass.
struct ReduceRequest {
  std::string file, out_dir, bind;
  CheckRequest check;
  int jobs = 1;
  double time = 0;
};
int reduce_command(ReduceRequest r, ProgressLine& progress, const Print& out);
int bisect_command(ReduceRequest r, ProgressLine& progress, const Print& out);

// import MODEL.onnx: the program an ONNX model computes, as IR text; `dims` give each dim_param
// a range ("n=1..512").
struct ImportRequest {
  std::string file;
  std::vector<std::string> dims;
};
int import_command(const ImportRequest& r, const Print& out);

// export FILE.ir --onnx OUT.onnx: the program as an ONNX model (onnx::checker accepts it); what
// has no ONNX form yet is an error naming the binding and op.
struct ExportRequest {
  // The model to write: an ONNX model (`onnx_out`), or (`tvmscript_out`) a self-checking
  // repro_tvmscript.py that builds the program with TVM at every opt_level and judges each
  // against the reference on the inputs of `bind` (its dims; lower bounds where absent).
  std::string file, onnx_out, tvmscript_out, bind;
  uint64_t form_seed = 0;
  bool form_seed_given = false;
  bool unpacked_q4 = false;  // q4 weights unpacked then MatMul, never ORT's MatMulNBits
  bool bf16_edges = false;   // bf16 inputs and outputs as f32 at the graph's edges
  // "": the options above; a backend's name: exactly the model that backend checks (its form
  // seed, edges and q4 form), so a model filed with a report is the one judged.
  std::string backend;
};
int export_command(const ExportRequest& r, const Print& out);

// onnx-conformance [DIR]: the reference against ONNX's node tests; with `expect`, a failure when
// the outcomes differ from that file; `write_expect` writes them.
struct ConformanceRequest {
  std::string dir, expect, write_expect;
};
int onnx_conformance_command(const ConformanceRequest& r, ProgressLine& progress, const Print& out);

}  // namespace difftest::commands
