#include "bench/detection.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "compiler/faults/faults.h"
#include "oracle/campaign/campaign.h"
#include "oracle/campaign/campaign_reduce.h"

namespace difftest::oracle {

namespace fs = std::filesystem;

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

bool is_compiler_failure(const std::string& kind) {
  const std::optional<VerdictKind> k = verdict_kind_from_name(kind);  // harness_error is none
  return k.has_value() && is_failure(*k);
}

const faults::FaultInfo* info_of(const std::string& fault) {
  for (const auto& f : faults::all_faults()) {
    if (f.name == fault) return &f;
  }
  return nullptr;
}

// The first compiler failure the campaign journaled that the fault caused (the clean compiler
// passes the same variant of the same program).
const FailureClass* first_failure(const CampaignSummary& s) {
  const FailureClass* first = nullptr;
  for (const auto& f : s.failures) {
    if (!is_compiler_failure(f.kind) || !f.attributable || f.found_after_seconds < 0) continue;
    if (!first || f.found_after_seconds < first->found_after_seconds) first = &f;
  }
  return first;
}

void reduce_first(DetectionRun& run, const FailureClass& first, const CampaignOptions& campaign,
                  const DetectionOptions& options, const std::string& pass) {
  CampaignSummary one;
  one.failures = {first};
  fuzz::ReduceOptions ro;
  ro.time_limit = options.reduce_seconds;
  ro.jobs = options.jobs;
  const CampaignReduction r = reduce_campaign_failures(one, campaign, ro).front();
  run.reduced = r.reduced;
  run.reduce_note = r.note;
  if (!r.reduced) return;
  run.culprit = r.culprit;
  run.culprit_right = r.culprit == pass;
  run.ops_before = r.ops_before;
  run.ops_after = r.ops_after;
  run.oracle_calls = r.oracle_calls;
  run.reduce_seconds = r.seconds;
  if (r.timed_out) run.reduce_note = r.note.empty() ? "time limit" : r.note + "; time limit";
}

}  // namespace

nlohmann::json DetectionRun::to_json() const {
  nlohmann::json j{{"start_seed", start_seed},
                   {"detected", detected},
                   {"seconds", seconds},
                   {"programs", programs},
                   {"failing_programs", failing_programs},
                   {"not_ok", not_ok}};
  if (!detected) return j;
  j.update({{"seed", seed}, {"kind", kind}, {"signature", signature}, {"reduced", reduced}});
  if (reduced) {
    j.update({{"culprit", culprit},
              {"culprit_right", culprit_right},
              {"ops_before", ops_before},
              {"ops_after", ops_after},
              {"oracle_calls", oracle_calls},
              {"reduce_seconds", reduce_seconds}});
  }
  if (!reduce_note.empty()) j["reduce_note"] = reduce_note;
  return j;
}

int FaultDetection::detected() const {
  return static_cast<int>(std::count_if(runs.begin(), runs.end(), [](const DetectionRun& r) { return r.detected; }));
}

double FaultDetection::median_seconds() const {
  std::vector<double> v;
  for (const auto& r : runs) {
    if (r.detected) v.push_back(r.seconds);
  }
  return median(v);
}

double FaultDetection::median_programs() const {
  std::vector<double> v;
  for (const auto& r : runs) {
    if (r.detected) v.push_back(static_cast<double>(r.programs));
  }
  return median(v);
}

nlohmann::json FaultDetection::to_json() const {
  nlohmann::json j{{"fault", fault},
                   {"pass", pass},
                   {"set", held_out ? "held-out" : "tuning"},
                   {"detected", detected()},
                   {"campaigns", runs.size()},
                   {"median_seconds", median_seconds()},
                   {"median_programs", median_programs()}};
  j["runs"] = nlohmann::json::array();
  for (const auto& r : runs) j["runs"].push_back(r.to_json());
  return j;
}

FaultDetection detect_fault(const std::string& fault, const DetectionOptions& options,
                            const std::function<void(const DetectionRun&)>& on_run) {
  FaultDetection out;
  out.fault = fault;
  if (const faults::FaultInfo* info = info_of(fault)) {
    out.pass = info->pass;
    out.held_out = info->held_out;
  }
  std::vector<std::string> on;
  if (!fault.empty()) on.push_back(fault);
  const CompilerUnderTest& planted = options.check.under_test().planted_faults()->with(on);
  for (const uint64_t start : options.start_seeds) {
    CampaignOptions c;
    c.first_seed = start;
    c.unbounded = true;
    c.time_limit = options.budget_seconds;
    c.jobs = options.jobs;
    c.check = options.check;
    c.check.compiler = &planted;
    c.generator = options.generator;
    c.probe = options.probe;
    c.faults = on;
    c.stop_at_first_failure = !fault.empty();
    c.out_dir = (fs::path(options.work_dir) / (fault.empty() ? "clean" : fault) / fmt::format("from-{}", start)).string();
    fs::remove_all(c.out_dir);
    const CampaignSummary s = run_campaign(c);
    DetectionRun run;
    run.start_seed = start;
    run.seconds = s.status.elapsed;
    run.programs = s.status.done;
    const FailureClass* first = first_failure(s);
    // A program handed out before the budget ran out may fail after it: that is too late.
    if (first && first->found_after_seconds <= options.budget_seconds) {
      run.detected = true;
      run.seconds = first->found_after_seconds;
      run.programs = first->found_after_programs;
      run.seed = first->first_seed;
      run.kind = first->kind;
      run.signature = first->signature.str();
      if (!fault.empty() && options.reduce) reduce_first(run, *first, c, options, out.pass);
    }
    for (const auto& [kind, n] : s.status.counts) {
      if (is_compiler_failure(kind)) run.failing_programs += n;
      if (kind != "ok") run.not_ok[kind] += n;
    }
    if (fault.empty()) {  // the clean compiler ran its whole budget: count every program
      run.programs = s.status.done;
      run.seconds = s.status.elapsed;
    }
    if (on_run) on_run(run);
    out.runs.push_back(std::move(run));
  }
  return out;
}

namespace {

// One set's table: a row per fault, then how many of the set were found at all.
std::string detection_table(const std::vector<FaultDetection>& faults, bool held_out) {
  int found = 0;
  for (const auto& f : faults) found += f.detected() > 0;
  std::string s = fmt::format("### {} ({} of {} faults detected at least once)\n\n",
                              held_out ? "Held-out set: faults the generator was never tuned on" : "Tuning set", found,
                              faults.size());
  s += "| fault | pass | detected | median s to first | median programs | kind | ops before → after | culprit "
       "named | reduce s | oracle calls |\n|---|---|---|---:|---:|---|---|---|---:|---:|\n";
  for (const auto& f : faults) {
    std::vector<std::string> kinds, sizes, culprits, reduce_times, calls;
    int right = 0, reduced = 0;
    for (const auto& r : f.runs) {
      if (!r.detected) continue;
      if (std::find(kinds.begin(), kinds.end(), r.kind) == kinds.end()) kinds.push_back(r.kind);
      if (!r.reduced) {
        sizes.push_back("–");
        continue;
      }
      ++reduced;
      right += r.culprit_right;
      sizes.push_back(fmt::format("{}→{}", r.ops_before, r.ops_after));
      if (!r.culprit_right) culprits.push_back(r.culprit);
      reduce_times.push_back(fmt::format("{:.0f}", r.reduce_seconds));
      calls.push_back(fmt::format("{}", r.oracle_calls));
    }
    std::string named = fmt::format("{}/{}", right, reduced);
    if (!culprits.empty()) named += fmt::format(" (else {})", fmt::join(culprits, ", "));
    const double ms = f.median_seconds(), mp = f.median_programs();
    s += fmt::format("| `{}` | {} | {}/{} | {} | {} | {} | {} | {} | {} | {} |\n", f.fault, f.pass, f.detected(),
                     f.runs.size(), ms < 0 ? "–" : fmt::format("{:.1f}", ms), mp < 0 ? "–" : fmt::format("{:.0f}", mp),
                     fmt::join(kinds, ", "), fmt::join(sizes, ", "), named, fmt::join(reduce_times, ", "),
                     fmt::join(calls, ", "));
  }
  return s + "\n";
}

}  // namespace

std::string detection_markdown(const std::vector<FaultDetection>& faults, const FaultDetection& clean,
                               const DetectionOptions& options) {
  std::string s = fmt::format(
      "Campaigns from seeds {} ({} jobs{}), each stopped at its first failure or after {:.0f} s; the first failure "
      "reduced within {:.0f} s.\n\n",
      fmt::join(options.start_seeds, ", "), options.jobs, options.probe.empty() ? "" : ", every value probed",
      options.budget_seconds, options.reduce_seconds);
  for (const bool held_out : {false, true}) {
    std::vector<FaultDetection> set;
    for (const auto& f : faults) {
      if (f.held_out == held_out) set.push_back(f);
    }
    if (!set.empty()) s += detection_table(set, held_out);
  }
  int64_t programs = 0, alarms = 0;
  double seconds = 0;
  std::map<std::string, int64_t> by_kind;
  for (const auto& r : clean.runs) {
    programs += r.programs;
    seconds += r.seconds;
    for (const auto& [kind, n] : r.not_ok) {
      alarms += n;
      by_kind[kind] += n;
    }
  }
  std::vector<std::string> kinds;
  for (const auto& [kind, n] : by_kind) kinds.push_back(fmt::format("{} {}", kind, n));
  s += "\nA fault counts as detected only by a failure attributable to it: the same program, variant and "
       "binding pass with the fault off.\n";
  if (clean.runs.empty()) return s + "\nThe clean compiler's campaigns were not run (--no-clean).\n";
  s += fmt::format(
      "\nClean compiler, the same campaigns run to their budget: {} programs in {:.0f} s, {} false alarms (every "
      "verdict other than ok){}.\n",
      programs, seconds, alarms, kinds.empty() ? "" : fmt::format(": {}", fmt::join(kinds, ", ")));
  return s;
}

nlohmann::json detection_json(const std::vector<FaultDetection>& faults, const FaultDetection& clean,
                              const DetectionOptions& options) {
  nlohmann::json j{{"start_seeds", options.start_seeds},
                   {"budget_seconds", options.budget_seconds},
                   {"jobs", options.jobs},
                   {"probe", options.probe.str()},
                   {"reduce_seconds", options.reduce_seconds}};
  j["faults"] = nlohmann::json::array();
  for (const auto& f : faults) j["faults"].push_back(f.to_json());
  nlohmann::json c = nlohmann::json::array();
  for (const auto& r : clean.runs) {
    int64_t alarms = 0;
    for (const auto& [kind, n] : r.not_ok) alarms += n;
    c.push_back({{"start_seed", r.start_seed},
                 {"programs", r.programs},
                 {"seconds", r.seconds},
                 {"false_alarms", alarms},
                 {"false_alarms_by_kind", r.not_ok},
                 {"first_signature", r.signature}});
  }
  j["clean"] = c;
  return j;
}

}  // namespace difftest::oracle
