// `difftest gate`: CI gating for compiler changes. Runs the regression corpus (oracle/corpus.h),
// then a seed campaign within a time budget, and compares every failure signature with a
// baseline of known ones: a signature not in the baseline fails the gate. The result is a
// summary, JUnit XML (one test case per corpus entry and per batch of seeds) and JSON.
//
// A corpus entry that expects ok fails with each signature its check shows. An entry with
// faults must pass with them off and show its expected signature with them on; when it does not
// show it, the gate's detection of that bug has regressed, reported as the signature
// `lost-detection|<file>|<expected signature>`.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "oracle/campaign.h"
#include "oracle/check.h"

namespace difftest::oracle {

struct GateOptions {
  std::string corpus;  // a directory or one .ir file; "" for none
  // The seeds, checks, faults, jobs and shard (of the corpus entries too); its out_dir is
  // recreated on every run. No seeds when it is unbounded without a time limit.
  CampaignOptions campaign;
  int batch = 50;                  // seeds per JUnit test case
  std::set<std::string> baseline;  // known failure signatures
  bool fail_fast = false;          // stop at the first case with a new signature
  bool runs_seeds() const { return !campaign.unbounded || campaign.time_limit > 0; }
};

struct GateCase {
  std::string suite;  // "corpus" or "seeds"
  std::string name;   // the file, or "seeds A..B"
  double seconds = 0;
  std::vector<std::string> fresh;  // signatures not in the baseline: the case fails
  std::vector<std::string> known;  // signatures in the baseline
  std::string detail;              // what was checked and seen
  bool passed() const { return fresh.empty(); }
};

struct GateResult {
  std::vector<GateCase> cases;
  int64_t programs = 0;  // seeds checked
  std::map<std::string, int64_t> seed_counts;  // verdict kind -> seeds
  double seconds = 0;
  std::set<std::string> seen;                  // every failure signature, new and known
  std::set<std::string> fresh() const;         // those not in the baseline
  std::set<std::string> absent(const std::set<std::string>& baseline) const;  // known but not seen
  bool passed() const { return fresh().empty(); }
};

GateResult run_gate(const GateOptions& options);

// Baseline files: {"difftest_baseline": 1, "signatures": ["...", ...]}. UserError naming the
// file (and line:col for malformed JSON) on bad input.
std::set<std::string> read_baseline(const std::string& path);
void write_baseline(const std::string& path, const std::set<std::string>& signatures);

std::string format_gate(const GateResult& r, const std::set<std::string>& baseline);
std::string gate_junit(const GateResult& r);
nlohmann::json gate_json(const GateResult& r, const std::set<std::string>& baseline);

}  // namespace difftest::oracle
