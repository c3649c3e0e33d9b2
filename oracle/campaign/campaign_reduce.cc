#include "oracle/campaign/campaign_reduce.h"

#include <fmt/format.h>

#include <filesystem>

#include "compiler/ir/parser.h"
#include "compiler/tensor/npy.h"
#include "oracle/io/json_file.h"
#include "oracle/reduce/reduce_failure.h"

namespace difftest::oracle {

namespace fs = std::filesystem;

nlohmann::json CampaignReduction::to_json() const {
  nlohmann::json j{{"signature", signature}, {"dir", dir}, {"reduced", reduced}};
  if (!reduced) {
    j["note"] = note;
    return j;
  }
  j.update({{"culprit", culprit},
            {"ops_before", ops_before},
            {"ops_after", ops_after},
            {"oracle_calls", oracle_calls},
            {"seconds", seconds},
            {"timed_out", timed_out}});
  if (!note.empty()) j["note"] = note;
  return j;
}

namespace {

// A resumed campaign keeps what its earlier run recorded of a reduction (reductions.json is
// rewritten whole), read back from the reduction's verdict.json.
CampaignReduction with_earlier_reduction(CampaignReduction r, const std::string& verdict_file) {
  try {
    const nlohmann::json j = read_json_file(verdict_file);
    const nlohmann::json& reduction = j.at("reduction");
    CampaignReduction earlier = r;
    earlier.culprit = j.at("culprit").at("pass").get<std::string>();
    earlier.ops_before = reduction.at("ops_before").get<size_t>();
    earlier.ops_after = reduction.at("ops_after").get<size_t>();
    earlier.oracle_calls = reduction.at("oracle_calls").get<int>();
    earlier.seconds = reduction.at("seconds").get<double>();
    earlier.timed_out = reduction.at("timed_out").get<bool>();
    earlier.reduced = true;
    return earlier;
  } catch (const std::exception& e) {
    r.note += fmt::format(" (its record is unreadable: {})", e.what());
    return r;
  }
}

CampaignReduction reduce_one(const FailureClass& f, const CheckOptions& check, const fuzz::ReduceOptions& ro,
                             const std::function<void(const ReduceProgress&)>& on_progress) {
  CampaignReduction r;
  r.signature = f.signature.str();
  if (f.kind == "harness_error") {
    r.note = "a harness error is a difftest bug, not a compiler failure: not reduced";
    return r;
  }
  if (f.saved_in.empty()) {
    r.note = "its reproducer could not be saved";
    return r;
  }
  const fs::path out = fs::path(f.saved_in) / "reduced";
  if (fs::exists(out / "verdict.json")) {
    r.dir = out.string();
    r.note = "reduced by an earlier run of this campaign";
    return with_earlier_reduction(r, (out / "verdict.json").string());
  }
  try {
    const Program p = parse_program_file((fs::path(f.saved_in) / "program.ir").string());
    // The variant the campaign saw fail, as its verdict.json records it.
    const std::string verdict_file = (fs::path(f.saved_in) / "verdict.json").string();
    auto failing = recorded_failing_run(p, read_json_file(verdict_file), verdict_file, check.under_test());
    if (!failing) failing = first_failing_run(p, check);
    if (!failing) {
      r.note = "the saved program shows no failure";
      return r;
    }
    const ReductionReport report = reduce_failure(p, *failing, check, ro, out.string(), on_progress);
    r.dir = out.string();
    r.reduced = true;
    r.culprit = report.culprit.pass;
    r.ops_before = p.num_calls();
    r.ops_after = report.reduced.program.num_calls();
    r.oracle_calls = report.oracle_calls;
    r.seconds = report.seconds;
    r.timed_out = report.reduced.stats.timed_out;
    if (failing->verdict.signature() != f.signature) {
      r.note =
          fmt::format("reduced the first failure its saved verdict records, {}", failing->verdict.signature().str());
    }
    if (!report.reproduces) {
      r.note += fmt::format("{}the reduced program does not reproduce the failure: {}", r.note.empty() ? "" : "; ",
                            report.reduced_failure.signature().str());
    }
  } catch (const std::exception& e) {
    r.reduced = false;
    r.note = fmt::format("not reduced: {}", e.what());
  }
  return r;
}

}  // namespace

std::vector<CampaignReduction> reduce_campaign_failures(const CampaignSummary& summary, const CampaignOptions& options,
                                                        const fuzz::ReduceOptions& reduce_options,
                                                        const std::function<void(const FailureClass&)>& on_start,
                                                        const std::function<void(const ReduceProgress&)>& on_progress) {
  const CheckOptions& check = options.check;
  std::vector<CampaignReduction> out;
  nlohmann::json all = nlohmann::json::array();
  for (const FailureClass& f : summary.failures) {
    if (on_start) on_start(f);
    out.push_back(reduce_one(f, check, reduce_options, on_progress));
    all.push_back(out.back().to_json());
    write_file_atomic((fs::path(options.out_dir) / "reductions.json").string(), all.dump(2) + "\n");
  }
  return out;
}

std::string format_reductions(const std::vector<CampaignReduction>& reductions) {
  std::string s;
  for (const auto& r : reductions) {
    if (r.reduced) {
      s += fmt::format("  {}\n    reduced {} -> {} ops, culprit {}, {} oracle calls, {:.1f} s{}: {}\n", r.signature,
                       r.ops_before, r.ops_after, r.culprit, r.oracle_calls, r.seconds,
                       r.timed_out ? " (time limit)" : "", r.dir);
      if (!r.note.empty()) s += fmt::format("    note: {}\n", r.note);
    } else {
      s += fmt::format("  {}\n    {}{}\n", r.signature, r.note, r.dir.empty() ? "" : ": " + r.dir);
    }
  }
  return s;
}

}  // namespace difftest::oracle
