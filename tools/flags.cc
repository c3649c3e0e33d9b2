#include "tools/flags.h"

#include <charconv>
#include <cmath>

namespace difftest::cli {

CLI::Validator unsigned_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        uint64_t v = 0;
        const char* end = text.data() + text.size();
        const auto [ptr, ec] = std::from_chars(text.data(), end, v);
        if (text.empty() || ptr != end) return fmt::format("'{}' is not a whole number >= 0", text);
        if (ec == std::errc::result_out_of_range) return fmt::format("'{}' is larger than 2^64-1", text);
        return "";
      },
      "UINT");
}

namespace {

CLI::Validator finite_at_least(bool zero_allowed) {
  return CLI::Validator(
      [zero_allowed](std::string& text) -> std::string {
        double v = 0;
        const char* end = text.data() + text.size();
        const auto [ptr, ec] = std::from_chars(text.data(), end, v);
        if (text.empty() || ptr != end || ec != std::errc() || !std::isfinite(v)) {
          return fmt::format("'{}' is not a finite number", text);
        }
        if (v < 0 || (!zero_allowed && v == 0))
          return fmt::format("'{}' must be {}", text, zero_allowed ? ">= 0" : "> 0");
        return "";
      },
      zero_allowed ? "SECONDS" : "POSITIVE");
}

}  // namespace

CLI::Validator seconds() { return finite_at_least(true); }
CLI::Validator positive_finite() { return finite_at_least(false); }

void add_target_flag(CLI::App* app, std::string& target) {
  app->add_option("--target", target,
                  "the machine the builtin compiler schedules and generates code for: avx512, avx2 or avx (default: "
                  "the widest this host runs, or DIFFTEST_TARGET; recorded with every verdict)");
}

void add_generator_flags(CLI::App* app, commands::CheckRequest& r) {
  app->add_option("--backend", r.backend,
                  "the compiler under test: builtin (default), ort, openvino, tvm, or a manifest.json path (see `difftest backends`)");
  app->add_option("--float-dtypes", r.float_dtypes,
                  "float dtypes generated operands are drawn from, e.g. f32,f32,f16 (default: the backend's; "
                  "builtin f32,f16,bf16,f64)");
  app->add_option("--motifs", r.motifs,
                  "percent of the generator's picks that emit a layer as ONNX exporters write it (MatMul+bias+"
                  "activation, Conv+activation, residual+norm, masked softmax) instead of one op (default: the "
                  "backend's; builtin 0, ort 30)")
      ->check(CLI::Range(0, 100));
}

void add_probe_flag(CLI::App* app, std::string& probe, bool names) {
  const std::string what =
      names ? "all, or names such as %q,%k" : "all (every program returns every value it computes)";
  app->add_option("--probe", probe,
                  "also compare intermediate values, checked as extra outputs: " + what +
                      " (the compiler must then materialize them, so the probed program is a different compile)");
}

void add_check_flags(CLI::App* app, commands::CheckRequest& r, bool with_save) {
  r.given = [app](const std::string& flag) { return app->count(flag) > 0; };
  add_generator_flags(app, r);
  app->add_option("--opt", r.opt,
                  "comma-separated pipelines or levels (default: the backend's ladder, O0,O1,O2,O3 for builtin; "
                  "none: only --passes/--orders)");
  app->add_option("--passes", r.passes, "also check this pass list a,b,c (see --list-passes)");
  app->add_option("--passes-llvm", r.passes_llvm, "LLVM level 0..3 for --passes (default 0)")->check(CLI::Range(0, 3));
  app->add_flag("--passes-fma", r.passes_fma, "with --passes: let LLVM contract a*b+c into FMAs");
  app->add_option("--orders", r.orders, "random valid pass orders to check besides the pipelines (default 2)")
      ->check(CLI::Range(0, 64));
  app->add_option("--timeout", r.timeout,
                  "CPU seconds for each pipeline's compile and for each run (default 10; a timeout counts only if a "
                  "rerun with 4x the budget times out too)")
      ->check(positive_finite());
  app->add_option("--inject", r.inject, "turn on a test fault (see list-faults); repeatable");
  add_target_flag(app, r.target);
  app->add_option("--random-bindings", r.random_bindings, "random dim bindings on top of the standard ones (default 2)")
      ->check(CLI::Range(0, 64));
  app->add_option("--members", r.members,
                  "size of the statistical tier's ensemble (default 8; 0: the sound bounds only, no outliers)")
      ->check(CLI::Range(0, 64));
  if (with_save) {
    add_probe_flag(app, r.probe, true);
    app->add_flag("--json", r.json, "print the verdict as JSON");
    app->add_option("--save", r.save_dir, "write program.ir, the inputs (.npy) and verdict.json to DIR");
  }
}

void add_gate_flags(CLI::App* app, commands::GateRequest& r) {
  app->add_option("--corpus", r.corpus, "corpus directory or .ir file (default corpus/; none: no corpus)");
  app->add_option("--seeds", r.seeds.seeds, "the seeds A..B (default: from 0 until --budget runs out)");
  app->add_option("--budget", r.seeds.time,
                  "seconds for the whole gate, corpus and seeds (default 0: no cap; corpus only unless --seeds)")
      ->check(seconds());
  app->add_option("--batch", r.batch, "seeds per JUnit test case (default 50)")->check(CLI::PositiveNumber);
  app->add_option("--jobs", r.seeds.jobs, "campaign worker processes (default 1)")->check(CLI::Range(1, 256));
  app->add_option("--shard", r.seeds.shard, "i/N: only corpus entries i, i+N, ... and seeds with seed % N == i (default: a Kubernetes "
                  "Indexed Job's or Slurm array's task, else 0/1)");
  app->add_option("--baseline", r.baseline, "JSON file of known failure signatures (absent: none are known)");
  app->add_flag("--update-baseline", r.update_baseline, "write every signature seen to --baseline and pass");
  app->add_option("--junit", r.junit, "write JUnit XML here");
  app->add_option("--json", r.json, "write the result as JSON here");
  app->add_option("--out", r.out, "directory for the seed campaign (default difftest-gate)");
  app->add_flag("--fail-fast", r.fail_fast, "stop at the first corpus entry with a new signature");
  app->add_option("--fail-on", r.fail_on,
                  "outlier: new outlier signatures (beyond the ensemble's allowance, or biased; inside the sound "
                  "bounds) fail the gate too (default: reported as noted); unchecked: so do seeds with an output "
                  "too little compared (default: counted); both: outlier,unchecked")
      ->delimiter(',')
      ->check(CLI::IsMember({"outlier", "unchecked"}));
  app->add_option("--weights", r.check.weights, "op weights for the generator, e.g. exp=0,matmul=40");
  add_check_flags(app, r.check, false);
}

void add_reduce_flags(CLI::App* app, commands::ReduceRequest& r, bool reduce) {
  app->add_option("file", r.file,
                  "a failing IR file (the failure and faults recorded in verdict.json beside it are used again)")
      ->required();
  add_check_flags(app, r.check, false);
  app->add_option("--bind", r.bind, "the failing binding, e.g. n=5 (default: the first failing one)");
  if (!reduce) return;
  app->add_option("--out", r.out_dir, "output directory (default FILE's name + .reduced)");
  app->add_option("--jobs", r.jobs, "candidates checked at once (the result does not depend on it)")
      ->check(CLI::Range(1, 64));
  app->add_option("--time", r.time,
                  "seconds for the whole reduction, bisection included; the best program so far is "
                  "written when they run out")
      ->check(seconds());
}

}  // namespace difftest::cli
