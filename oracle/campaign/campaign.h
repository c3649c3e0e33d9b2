// A fuzzing campaign: many seeds, each generated, checked (oracle/check.h) and journaled.
//
// Work is spread over `jobs` forked worker processes; the parent hands out one seed at a time,
// appends each result to DIR/journal.jsonl the moment it arrives (one JSON object per line),
// and saves each distinct failure signature once, as a reproducer directory that appears whole
// or not at all. A campaign killed at any point loses at most the programs in flight:
// `resume` reads the journal, drops a torn last line, and checks only the seeds it lacks. A
// worker that dies is replaced and its seed journaled as `harness_error` (a difftest bug,
// never a compiler verdict).
//
// Seeds are a range A..B (inclusive) or, with a time limit, A, A+1, ... until the time is up.
// The time limit is a cap: when it passes, the programs in flight are abandoned (not journaled,
// so a resumed campaign checks them).
//
// With faults injected, a failing program is checked again with them off: a failure counts as
// the faults' doing ("attributable") only where the same variant under the same binding then
// passes; a failure the clean compiler shows too is journaled, but not attributed to them.
// Sharding keeps the seeds with seed % N == i, so shards 0/N .. N-1/N cover a range exactly
// once between them, on as many machines.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fuzz/generator.h"
#include "oracle/campaign/record.h"
#include "oracle/check/check.h"
#include "oracle/check/probes.h"

namespace difftest::oracle {

struct Shard {
  uint64_t index = 0, count = 1;
};
// "i/N" with 0 <= i < N; UserError(Usage) naming `flag` otherwise.
Shard parse_shard(const std::string& text, const std::string& flag);

// The shard a batch scheduler gave this process, for a campaign started without --shard:
// a Kubernetes Indexed Job's JOB_COMPLETION_INDEX of DIFFTEST_SHARD_COUNT (the Job's
// completions: Kubernetes does not export them), or a Slurm job array's task,
// SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN of SLURM_ARRAY_TASK_COUNT (a step of 1); else 0/1.
// `from` names the variable the index came from ("" for none). UserError(Usage) naming the
// variable when a value is malformed, out of range or its count is missing. `env` looks a
// variable up (std::getenv; null when unset).
struct ScheduledShard {
  Shard shard;
  std::string from;
};
ScheduledShard shard_from_environment(const std::function<const char*(const char*)>& env);
// "A..B" with A <= B; UserError(Usage) naming `flag` otherwise.
std::pair<uint64_t, uint64_t> parse_seed_range(const std::string& text, const std::string& flag);

// What a known findings' lookup says of a signature (oracle/gate/known_findings.h): the root
// cause it is known as, and whether only under another pipeline (the same kind, stage and what).
struct KnownMatch {
  std::string root_cause;
  bool other_pipeline = false;
};
using KnownAs = std::function<std::optional<KnownMatch>(const Signature&)>;

struct CampaignOptions {
  uint64_t first_seed = 0;
  uint64_t last_seed = 0;     // inclusive; ignored when `unbounded`
  bool unbounded = false;     // keep going until time_limit
  double time_limit = 0;      // seconds; 0: none
  int jobs = 1;
  std::string out_dir;
  Shard shard;
  std::string shard_from;  // the scheduler's variable the shard came from ("": --shard, or none)
  bool resume = false;
  CheckOptions check;
  GeneratorOptions generator;
  // Intermediate values every program also returns and compares (probes.h): the campaign checks,
  // journals and saves the probed program.
  ProbeSelection probe;
  std::vector<std::string> faults;  // injected (already enabled in this process); recorded
  // Hand out no more seeds once a compiler failure is journaled (the programs in flight
  // finish): for measuring time to first detection. With faults, an attributable failure.
  bool stop_at_first_failure = false;
  // `--fail-on unchecked`: a program with an output too little compared (VerdictKind::Unchecked)
  // is journaled with a signature and saved like a failure, and fails the campaign.
  bool fail_on_unchecked = false;
  // Coverage (coverage_map.h): steer > 1 checks, of each window of `steer` consecutive seeds, the
  // one that adds the most cells not yet handed out; coverage_path, when set, receives the
  // coverage map of the programs journaled (as JSON, rewritten as the campaign goes).
  int steer = 0;
  std::string coverage_path;
  // The root cause a signature is already known as (a corpus entry, a gate baseline:
  // oracle/gate/known_findings.h), nullopt when it is new; unset: every failure is new.
  KnownAs known_as;
  // Whether `v` counts against the compiler in this campaign: a finding, or unchecked when
  // fail_on_unchecked.
  bool counts_against(const VariantVerdict& v) const;
};

// The name of the directory under DIR/failures/ that holds the reproducer of a failure class.
std::string failure_dir_name(const std::string& kind, const std::string& signature);

// The program a campaign checks for `seed`: the generated one, probed as `o.probe` says.
Program campaign_program(uint64_t seed, const CampaignOptions& o);

// A failure signature and the programs that showed it.
struct FailureClass {
  Signature signature;
  std::string kind;  // the overall verdict of its first program (SeedRecord::verdict_name)
  uint64_t first_seed = 0;
  int64_t programs = 0;
  std::string saved_in;  // reproducer directory ("" when it could not be written)
  bool attributable = true;  // with faults: its first program passes with them off (CampaignOptions)
  // When this run journaled it first: seconds since the run began and programs journaled by
  // then, this one included (-1: read back from a resumed journal).
  double found_after_seconds = -1;
  int64_t found_after_programs = -1;
  std::optional<std::string> known_as;  // the root cause it is known as (CampaignOptions::known_as)
  bool known_under_other_pipeline = false;  // ... only as the same failure under another pipeline
  std::vector<uint64_t> seeds;          // every program that showed it, in the order journaled
  std::vector<std::string> shards;      // of a merged campaign: the shards that showed it
};

struct CampaignStatus {
  int64_t done = 0;         // programs journaled, this run and resumed
  int64_t resumed = 0;      // of those, read back from the journal
  int64_t total = -1;       // programs in the campaign (-1: bounded by time only)
  double elapsed = 0;       // seconds this run
  std::map<std::string, int64_t> counts;  // verdict kind -> programs
  // Output elements compared with the reference by either tier, and in all, over every variant
  // and binding of every program journaled (SeedRecord::elements_checked, elements).
  int64_t elements_checked = 0, elements = 0;
  int64_t abandoned = 0;                  // in flight when the time limit passed: not journaled
  int64_t refuted_timeouts = 0;           // variants whose timeout a rerun with a larger budget refuted
};

// The statistical tier's headroom over a campaign: each program's worst excess (its journal's
// "worst_excess": the largest |got - ref| / allowance over every element, variant and binding;
// above 1 an outlier), over the programs journaled, resumed ones included. How close a clean
// campaign comes to a false alarm.
struct ExcessSummary {
  int64_t programs = 0;  // with a finite worst excess
  double median = 0, p99 = 0, max = 0;
  uint64_t max_seed = 0;
  // From (excess, seed) pairs in any order.
  static ExcessSummary of(std::vector<std::pair<double, uint64_t>> excesses);
};

struct CampaignSummary {
  CampaignStatus status;
  ExcessSummary excess;
  std::vector<FailureClass> failures;  // by first seed
  StageTimes times;                    // summed over the programs checked in this run
  int64_t checked = 0;                 // programs checked in this run
  // What reading the journal back found wrong (a corrupt line skipped, a torn last line dropped).
  std::vector<std::string> journal_notes;
  size_t coverage_cells = 0;  // distinct cells of the programs journaled (with a coverage map)
  size_t shards = 0;          // of a merged campaign (merge.h): the shards merged; its time the wall clock's span
  // A new failure signature (a compiler failure, a harness error, unchecked with
  // fail_on_unchecked; one not known as a root cause already), or every program unsupported:
  // the compiler under test took none of them.
  bool found_failure() const;
  bool nothing_supported() const;  // every program journaled was unsupported
  nlohmann::json to_json() const;
};

// `on_record` gets each record this run journals, as it is journaled (resumed ones are not
// handed out again).
CampaignSummary run_campaign(const CampaignOptions& options,
                             const std::function<void(const CampaignStatus&)>& on_progress = {},
                             const std::function<void(const SeedRecord&)>& on_record = {});

// The journal records of the campaign in `out_dir` (one JSON object per program), in journal
// order. A torn last line (a campaign killed mid-write) is dropped from the file too; a line in
// the middle that is not a record (SeedRecord::from_json refuses it) is skipped and the records
// after it kept. `notes` says what was dropped or skipped, with line numbers.
struct Journal {
  std::vector<SeedRecord> records;
  std::vector<std::string> notes;
};
Journal read_campaign_journal(const std::string& out_dir, const VariantLadder& compiler);

// "  unchecked programs 9 of 100 (9.00%); output elements compared 97.12% (N of M, every variant
// and binding)", a line of a campaign's or gate's summary.
std::string format_checked_share(const CampaignStatus& s);

// The failures a known root cause accounts for (FailureClass::known_as), by its name.
struct KnownCause {
  int64_t programs = 0;
  std::vector<std::string> signatures;
  int64_t other_pipeline_signatures = 0;  // of those, known only under another pipeline
  uint64_t first_seed = 0;
};
std::map<std::string, KnownCause> known_causes(const std::vector<FailureClass>& failures);

// The summary as a table for a terminal: new failure signatures first, then the known ones
// counted by root cause.
std::string format_summary(const CampaignSummary& s);
std::string format_failures(const std::vector<FailureClass>& failures);
// "  412/1000  3.1/s  ok 400  mismatch 2  elapsed 2m12s  remaining 3m09s"
std::string format_progress(const CampaignStatus& s, double time_limit);

}  // namespace difftest::oracle
