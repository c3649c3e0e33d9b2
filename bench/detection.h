// The detection benchmark's engine: for each fault of the catalog (compiler/faults), campaigns
// with the fault on, from several starting seeds, each stopped at its first failure
// attributable to the fault (the same program, variant and binding pass with it off;
// oracle/campaign/campaign.h) or at a time budget; how long and how many programs it took, what
// was reported, and whether reducing that first failure names the pass the fault lives in. The
// same campaigns on the clean compiler count false alarms. bench/detection_bench prints the
// tables; docs/faults.md has the figures.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backends/builtin/builtin_compiler.h"
#include "fuzz/generator.h"
#include "oracle/check/check.h"
#include "oracle/check/probes.h"

namespace difftest::oracle {

struct DetectionOptions {
  std::vector<uint64_t> start_seeds = {0, 100000, 200000};
  double budget_seconds = 120;  // per campaign (one fault, one starting seed)
  int jobs = 2;
  // What each program gets (`difftest fuzz`'s defaults): the faults are the builtin compiler's.
  CheckOptions check = [] {
    CheckOptions o = default_check_options();
    o.compiler = &backends::builtin_compiler();
    return o;
  }();
  GeneratorOptions generator;
  ProbeSelection probe;          // probed programs (`difftest fuzz --probe all`)
  bool reduce = true;            // reduce each campaign's first failure
  double reduce_seconds = 120;   // per reduction
  std::string work_dir;          // campaigns and reductions are written under it
};

// One campaign: a fault (or none) from one starting seed.
struct DetectionRun {
  uint64_t start_seed = 0;
  bool detected = false;
  double seconds = 0;    // to the first failure journaled, else the whole campaign
  int64_t programs = 0;  // journaled by then, the failing one included
  uint64_t seed = 0;     // the first failing seed
  std::string kind, signature;
  int64_t failing_programs = 0;  // compiler failures among all the programs journaled
  // Every verdict other than ok, by kind (harness errors, invalid programs and confirmed
  // timeouts included): the false alarms of a clean run.
  std::map<std::string, int64_t> not_ok;
  // The reduction of that failure:
  bool reduced = false;
  std::string reduce_note;  // why not, or what else happened
  std::string culprit;      // the pass bisection named
  bool culprit_right = false;
  size_t ops_before = 0, ops_after = 0;
  int oracle_calls = 0;
  double reduce_seconds = 0;
  nlohmann::json to_json() const;
};

struct FaultDetection {
  std::string fault;  // "" for the clean compiler
  std::string pass;   // where the fault lives
  bool held_out = false;  // of the held-out set (faults::FaultInfo::held_out): reported apart
  std::vector<DetectionRun> runs;
  int detected() const;
  // Over the runs that detected it (-1 when none did).
  double median_seconds() const;
  double median_programs() const;
  nlohmann::json to_json() const;
};

// Runs the campaigns of one fault (enabled for their duration, then the previous set is
// restored); `fault` empty: the clean compiler, whose every failure is a false alarm (nothing
// is reduced then). `on_run` is called after each campaign.
FaultDetection detect_fault(const std::string& fault, const DetectionOptions& options,
                            const std::function<void(const DetectionRun&)>& on_run = {});

// The tables: the tuning set's faults, then the held-out set's, one row per fault; then the clean
// compiler's false alarms.
std::string detection_markdown(const std::vector<FaultDetection>& faults, const FaultDetection& clean,
                               const DetectionOptions& options);
nlohmann::json detection_json(const std::vector<FaultDetection>& faults, const FaultDetection& clean,
                              const DetectionOptions& options);

}  // namespace difftest::oracle
