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
  std::string corpus;              // a directory or one .ir file; "" for none
  uint64_t first_seed = 0;
  uint64_t last_seed = 0;          // inclusive, when seeds_bounded
  bool seeds_bounded = false;      // else seeds from first_seed until the budget
  double budget_seconds = 0;       // for the seeds; 0: no seeds (unless seeds_bounded)
  int batch = 50;                  // seeds per JUnit test case
  int jobs = 1;
  Shard shard;                     // of the corpus entries and of the seeds
  std::string out_dir;             // the campaign's journal and reproducers go to OUT/campaign
  std::set<std::string> baseline;  // known failure signatures
  CheckOptions check = default_check_options();
  GeneratorOptions generator;
  std::vector<std::string> faults;  // enabled in this process for everything (recorded)
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
