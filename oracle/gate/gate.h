// `difftest gate`: CI gating for compiler changes. Runs the regression corpus (oracle/corpus.h),
// then a seed campaign within a time budget, and compares every failure signature with a
// baseline of known ones: a signature not in the baseline fails the gate. The result is a
// summary, JUnit XML (one test case per corpus entry and per batch of seeds) and JSON.
//
// A corpus entry that expects ok fails with each signature its check shows. An entry with
// faults must pass with them off and show its expected signature with them on; when it does not
// show it, the gate's detection of that bug has regressed, reported as the signature
// `lost-detection|<file>|<expected signature>`.
//
// The budget caps the whole gate. The corpus runs first; entries the budget does not reach are
// reported as not checked, and fail the gate (a regression suite that was not run vouches for
// nothing). Seeds run in what is left; seeds not reached are reported, and do not fail it.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "oracle/campaign/campaign.h"
#include "oracle/check/check.h"

namespace difftest::oracle {

struct GateOptions {
  std::string corpus;  // a directory or one .ir file; "" for none
  // The compiler whose passes and faults a corpus entry's header names (the builtin one, whatever
  // compiler is under test): read_corpus_entry's `builtin`. Needed with a corpus.
  const CompilerUnderTest* corpus_compiler = nullptr;
  // The seeds, checks, faults, jobs and shard (of the corpus entries too); its out_dir is
  // recreated on every run. No seeds when it is unbounded without a time limit. Its time limit
  // is the gate's budget: the whole gate, corpus included.
  CampaignOptions campaign;
  std::vector<std::string> notes;  // what the caller decided for the user (no corpus yet, no baseline yet)
  int batch = 50;                  // seeds per JUnit test case
  std::set<Signature> baseline;    // known failure signatures
  bool fail_fast = false;          // stop at the first case with a new signature
  // Outliers (the statistical tier) fail the gate only when asked (`--fail-on outlier`);
  // otherwise they are reported as noted. Sound-tier findings always fail. Unchecked seeds fail
  // it with campaign.fail_on_unchecked (`--fail-on unchecked`), and are counted otherwise; a
  // corpus entry that expects ok fails when unchecked.
  bool fail_on_outliers = false;
  bool runs_seeds() const { return !campaign.unbounded || campaign.time_limit > 0; }
};

// One failure a case showed, with what a person needs to act on it.
struct GateFailure {
  Signature signature;
  bool fresh = false;   // not in the baseline
  int64_t seed = -1;    // the generated program (-1: a corpus entry)
  std::string variant;  // "O3", "O0~O3", "order1", "O3-specialized"
  sym::Env binding;
  std::string message;
  std::string reproducer;  // a directory with program.ir, inputs and verdict.json, or the corpus file
  std::string rerun;       // a command that shows the failure again
  nlohmann::json to_json() const;
};

struct GateCase {
  std::string suite;  // "corpus" or "seeds"
  std::string name;   // the file, or "seeds A..B"
  double seconds = 0;
  std::vector<Signature> fresh;  // signatures not in the baseline: the case fails
  std::vector<Signature> known;  // signatures in the baseline
  std::vector<Signature> noted;  // outlier signatures, reported without failing the case
  std::vector<GateFailure> failures;
  std::string detail;              // what was checked and seen
  bool skipped = false;            // not checked: the budget ran out first
  bool passed() const { return fresh.empty() && !skipped; }
};

struct GateResult {
  std::vector<GateCase> cases;
  std::vector<std::string> notes;  // GateOptions::notes, then what the run itself has to say
  int64_t programs = 0;  // seeds checked
  int64_t seeds_not_reached = -1;              // of --seeds A..B, left when the budget ran out (-1: no range)
  std::map<std::string, int64_t> seed_counts;  // verdict kind -> seeds
  CampaignStatus seed_status;                  // the seed campaign's counts and elements compared
  bool nothing_supported = false;              // every seed was unsupported: the gate fails
  double seconds = 0;
  std::set<Signature> seen;                                                   // every failure signature, new and known
  std::set<Signature> fresh() const;                                          // those not in the baseline
  std::set<Signature> absent(const std::set<Signature>& baseline) const;      // known but not seen
  int corpus_skipped() const;                                                 // corpus entries the budget did not reach
  bool passed() const { return fresh().empty() && corpus_skipped() == 0 && !nothing_supported; }
};

// Where a gate run is, for progress lines.
struct GateProgress {
  size_t corpus_done = 0, corpus_total = 0;
  std::string entry;                      // the corpus entry being checked ("" once in the seeds)
  const CampaignStatus* seeds = nullptr;  // the seed campaign's status, once it runs
  double elapsed = 0, budget = 0;
};
std::string format_gate_progress(const GateProgress& p);

GateResult run_gate(const GateOptions& options, const std::function<void(const GateProgress&)>& on_progress = {});

// Baseline files: {"difftest_baseline": 1, "signatures": ["...", ...]}, nothing else. UserError
// naming the file (and line:col for malformed JSON, the key or list index otherwise) on bad
// input: another version, an unknown key, a signature that is not kind|pipeline|stage|what.
std::set<Signature> read_baseline(const std::string& path);
void write_baseline(const std::string& path, const std::set<Signature>& signatures);

// " --inject a --inject b": the flags of a rerun command that plant `faults` again.
std::string inject_flags(const std::vector<std::string>& faults);

std::string format_gate(const GateResult& r, const std::set<Signature>& baseline);
std::string gate_junit(const GateResult& r);
nlohmann::json gate_json(const GateResult& r, const std::set<Signature>& baseline);

}  // namespace difftest::oracle
