// difftest gate: flags in, oracle/gate.h does the work.
#include <fmt/format.h>

#include <filesystem>

#include "compiler/faults/faults.h"
#include "compiler/tensor/npy.h"
#include "oracle/gate.h"
#include "tools/cli_common.h"

namespace difftest::cli {

void add_gate_flags(CLI::App* app, GateFlags& f) {
  app->add_option("--corpus", f.corpus, "corpus directory or .ir file (default corpus/; none: no corpus)");
  app->add_option("--seeds", f.seeds, "the seeds A..B (default: from 0 until --budget runs out)");
  app->add_option("--budget", f.budget, "seconds for the seeds (default 0: corpus only unless --seeds)");
  app->add_option("--batch", f.batch, "seeds per JUnit test case (default 50)");
  app->add_option("--jobs", f.jobs, "campaign worker processes (default 1)");
  app->add_option("--shard", f.shard, "i/N: only corpus entries i, i+N, ... and seeds with seed % N == i");
  app->add_option("--baseline", f.baseline, "JSON file of known failure signatures (absent: none are known)");
  app->add_flag("--update-baseline", f.update_baseline, "write every signature seen to --baseline and pass");
  app->add_option("--junit", f.junit, "write JUnit XML here");
  app->add_option("--json", f.json, "write the result as JSON here");
  app->add_option("--out", f.out, "directory for the seed campaign (default difftest-gate)");
  app->add_option("--weights", f.check.weights, "op weights for the generator, e.g. exp=0,matmul=40");
  add_check_flags(app, f.check, false);
}

int run_gate(const GateFlags& f) {
  namespace oracle = difftest::oracle;
  oracle::GateOptions o;
  o.check = check_options(f.check);
  o.faults = difftest::faults::enabled_faults();
  o.generator = generator_options(f.check.weights);
  o.corpus = f.corpus == "none" ? "" : f.corpus;
  if (!f.seeds.empty()) {
    std::tie(o.first_seed, o.last_seed) = oracle::parse_seed_range(f.seeds, "--seeds");
    o.seeds_bounded = true;
  }
  if (f.budget < 0) throw difftest::UserError(difftest::ErrorKind::Usage, "--budget: must not be negative");
  o.budget_seconds = f.budget;
  o.batch = f.batch;
  o.jobs = f.jobs;
  o.shard = oracle::parse_shard(f.shard, "--shard");
  o.out_dir = f.out;
  if (f.update_baseline && f.baseline.empty()) {
    throw difftest::UserError(difftest::ErrorKind::Usage, "--update-baseline needs --baseline FILE");
  }
  // --update-baseline may create the file; otherwise a named baseline must exist.
  if (!f.baseline.empty() && !(f.update_baseline && !std::filesystem::exists(f.baseline))) {
    o.baseline = oracle::read_baseline(f.baseline);
  }
  const oracle::GateResult r = oracle::run_gate(o);
  fmt::print("{}", oracle::format_gate(r, o.baseline));
  if (!f.junit.empty()) difftest::write_file_atomic(f.junit, oracle::gate_junit(r));
  if (!f.json.empty()) difftest::write_file_atomic(f.json, oracle::gate_json(r, o.baseline).dump(2) + "\n");
  if (f.update_baseline) {
    oracle::write_baseline(f.baseline, r.seen);
    fmt::print("baseline: wrote {} signature{} to {}\n", r.seen.size(), r.seen.size() == 1 ? "" : "s", f.baseline);
    return kOk;
  }
  return r.passed() ? kOk : kFailure;
}

}  // namespace difftest::cli
