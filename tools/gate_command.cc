// difftest gate: flags in, oracle/gate.h does the work.
#include <fmt/format.h>

#include <filesystem>

#include "compiler/faults/faults.h"
#include "compiler/tensor/npy.h"
#include "oracle/gate/gate.h"
#include "oracle/io/output_paths.h"
#include "tools/cli_common.h"
#include "tools/progress_line.h"

namespace difftest::cli {

void add_gate_flags(CLI::App* app, GateFlags& f) {
  app->add_option("--corpus", f.corpus, "corpus directory or .ir file (default corpus/; none: no corpus)");
  app->add_option("--seeds", f.seeds.seeds, "the seeds A..B (default: from 0 until --budget runs out)");
  app->add_option("--budget", f.seeds.time,
                  "seconds for the whole gate, corpus and seeds (default 0: no cap; corpus only unless --seeds)")
      ->check(seconds());
  app->add_option("--batch", f.batch, "seeds per JUnit test case (default 50)")->check(CLI::PositiveNumber);
  app->add_option("--jobs", f.seeds.jobs, "campaign worker processes (default 1)")->check(CLI::Range(1, 256));
  app->add_option("--shard", f.seeds.shard, "i/N: only corpus entries i, i+N, ... and seeds with seed % N == i");
  app->add_option("--baseline", f.baseline, "JSON file of known failure signatures (absent: none are known)");
  app->add_flag("--update-baseline", f.update_baseline, "write every signature seen to --baseline and pass");
  app->add_option("--junit", f.junit, "write JUnit XML here");
  app->add_option("--json", f.json, "write the result as JSON here");
  app->add_option("--out", f.out, "directory for the seed campaign (default difftest-gate)");
  app->add_flag("--fail-fast", f.fail_fast, "stop at the first corpus entry with a new signature");
  app->add_option("--fail-on", f.fail_on,
                  "outlier: new outlier signatures (beyond the ensemble's allowance, or biased; inside the sound "
                  "bounds) fail the gate too (default: reported as noted)")
      ->check(CLI::IsMember({"outlier"}));
  app->add_option("--weights", f.check.weights, "op weights for the generator, e.g. exp=0,matmul=40");
  add_check_flags(app, f.check, false);
}

int run_gate(const GateFlags& f) {
  namespace oracle = difftest::oracle;
  namespace fs = std::filesystem;
  if (f.update_baseline && f.baseline.empty()) {
    throw difftest::UserError(difftest::ErrorKind::Usage, "--update-baseline needs --baseline FILE");
  }
  oracle::GateOptions o;
  o.corpus = f.corpus == "none" ? "" : f.corpus;
  std::error_code ec;
  if (!f.check.given("--corpus") && !fs::exists(o.corpus, ec)) {
    o.notes.push_back(
        fmt::format("no {}/ here: only seeds are checked (a regression corpus is a directory of .ir "
                    "files with an '# expect:' header, docs/gate.md)",
                    o.corpus));
    o.corpus.clear();
  }
  o.campaign = campaign_options(f.check, f.seeds, "--budget");
  o.campaign.out_dir = (fs::path(f.out) / "campaign").string();
  o.batch = f.batch;
  o.fail_fast = f.fail_fast;
  o.fail_on_outliers = !f.fail_on.empty();
  // Every output path is checked before an hour of work can end in "cannot write".
  oracle::require_writable_dir(f.out, "--out");
  if (!f.junit.empty()) oracle::require_writable_file(f.junit, "--junit");
  if (!f.json.empty()) oracle::require_writable_file(f.json, "--json");
  if (!f.baseline.empty()) {
    if (fs::is_directory(f.baseline, ec)) {
      throw difftest::UserError(difftest::ErrorKind::Io, fmt::format("--baseline {}: is a directory", f.baseline));
    }
    if (f.update_baseline) oracle::require_writable_file(f.baseline, "--baseline");
    if (fs::exists(f.baseline, ec)) {
      o.baseline = oracle::read_baseline(f.baseline);
    } else if (!f.update_baseline) {
      o.notes.push_back(
          fmt::format("no baseline {} yet: every failure counts as new; to accept the failures this run "
                      "shows, run it again with --update-baseline and commit {}",
                      f.baseline, f.baseline));
    }
  }
  ProgressLine progress;
  const oracle::GateResult r =
      oracle::run_gate(o, [&](const oracle::GateProgress& p) { progress.update(oracle::format_gate_progress(p)); });
  progress.finish();
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
