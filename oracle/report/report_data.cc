#include "oracle/report/report_data.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "compiler/support/diagnostics.h"
#include "oracle/io/json_file.h"
#include "oracle/merge/campaign_index.h"
#include "oracle/merge/merge.h"

namespace difftest::oracle {

namespace fs = std::filesystem;

namespace {

constexpr const char* kStages[5] = {"generate", "reference", "compile", "run", "compare"};

nlohmann::json counts_json(const std::vector<int64_t>& counts, const std::vector<std::string>& verdicts) {
  nlohmann::json j = nlohmann::json::object();
  for (size_t v = 0; v < counts.size(); ++v) {
    if (counts[v] > 0) j[verdicts[v]] = counts[v];
  }
  return j;
}

// Verdicts and programs per second over the campaign's span, in `bins` bins.
nlohmann::json over_time(const CampaignIndex& x, int bins) {
  double first = std::nan(""), last = std::nan("");
  for (const auto& e : x.entries) {
    if (std::isnan(e.at)) continue;
    if (!(e.at >= first)) first = e.at;
    if (!(e.at <= last)) last = e.at;
  }
  if (std::isnan(first)) return nullptr;
  const double width = std::max((last - first) / bins, 1e-3);
  std::vector<std::vector<int64_t>> counts(static_cast<size_t>(bins), std::vector<int64_t>(x.verdicts.size()));
  for (const auto& e : x.entries) {
    if (std::isnan(e.at)) continue;
    const auto b = std::min(static_cast<size_t>((e.at - first) / width), static_cast<size_t>(bins - 1));
    ++counts[b][e.verdict];
  }
  nlohmann::json out = {{"start", first}, {"seconds", last - first}, {"bin_seconds", width}, {"bins", nlohmann::json::array()}};
  for (size_t b = 0; b < counts.size(); ++b) {
    int64_t programs = 0;
    for (const int64_t n : counts[b]) programs += n;
    out["bins"].push_back({{"from_seconds", static_cast<double>(b) * width},
                           {"counts", counts_json(counts[b], x.verdicts)},
                           {"programs_per_second", static_cast<double>(programs) / width}});
  }
  return out;
}

// Verdicts by program, in seed order, in `bins` bins of consecutive programs; and the worst
// excess of each bin (the largest over its programs), how close each stretch came to a false alarm.
nlohmann::json per_program(const CampaignIndex& x, int bins) {
  const size_t n = x.entries.size();
  const size_t per = std::max<size_t>(1, (n + static_cast<size_t>(bins) - 1) / static_cast<size_t>(bins));
  nlohmann::json out = {{"programs_per_bin", per}, {"bins", nlohmann::json::array()}};
  for (size_t lo = 0; lo < n; lo += per) {
    const size_t hi = std::min(n, lo + per);
    std::vector<int64_t> counts(x.verdicts.size());
    double worst = std::nan("");
    for (size_t i = lo; i < hi; ++i) {
      ++counts[x.entries[i].verdict];
      const double e = x.entries[i].worst_excess;
      if (std::isfinite(e) && !(e <= worst)) worst = e;
    }
    nlohmann::json bin = {{"from_seed", x.entries[lo].seed}, {"to_seed", x.entries[hi - 1].seed},
                          {"counts", counts_json(counts, x.verdicts)}};
    if (!std::isnan(worst)) bin["worst_excess"] = worst;
    out["bins"].push_back(std::move(bin));
  }
  return out;
}

// The worst excess per program (|got - ref| / allowance, above 1 an outlier) as a histogram of
// its logarithm, with the programs that compared exactly (0) apart.
nlohmann::json excess_histogram(const CampaignIndex& x, const ExcessSummary& s, int bins) {
  constexpr double kLo = -8, kHi = 2;  // log10 of the range shown; beyond it, the end bins
  std::vector<int64_t> counts(static_cast<size_t>(bins));
  int64_t exact = 0, above = 0;
  for (const auto& e : x.entries) {
    if (!std::isfinite(e.worst_excess)) continue;
    if (e.worst_excess > 1) ++above;
    if (e.worst_excess <= 0) {
      ++exact;
      continue;
    }
    const double l = std::clamp(std::log10(static_cast<double>(e.worst_excess)), kLo, kHi - 1e-9);
    ++counts[static_cast<size_t>((l - kLo) / (kHi - kLo) * bins)];
  }
  nlohmann::json h = nlohmann::json::array();
  for (int b = 0; b < bins; ++b) {
    h.push_back({{"log10_from", kLo + (kHi - kLo) * b / bins}, {"log10_to", kLo + (kHi - kLo) * (b + 1) / bins},
                 {"programs", counts[static_cast<size_t>(b)]}});
  }
  return {{"programs", s.programs}, {"median", s.median},  {"p99", s.p99},
          {"max", s.max},           {"max_seed", s.max_seed}, {"exact", exact},
          {"above_allowance", above}, {"histogram", h}};
}

// signature -> the culprit its reduction named ("" when it was not reduced).
std::map<std::string, std::string> culprits(const fs::path& dir, std::vector<std::string>& notes) {
  std::map<std::string, std::string> out;
  const fs::path file = dir / "reductions.json";
  std::error_code ec;
  if (!fs::exists(file, ec)) return out;
  try {
    for (const auto& r : read_json_file(file.string())) {
      if (r.value("reduced", false)) out[r.at("signature").get<std::string>()] = r.value("culprit", std::string());
    }
  } catch (const std::exception& e) {
    notes.push_back(fmt::format("{}: not read ({}): no pass is blamed", file.string(), e.what()));
  }
  return out;
}

// The op a failure is about: the output its first program got wrong, else what its signature names.
std::string op_of(const CampaignIndex& x, int32_t sig) {
  const auto it = x.samples.lower_bound({sig, 0});
  if (it != x.samples.end() && it->first.first == sig && !it->second.output_op.empty()) return it->second.output_op;
  const Signature& s = x.signatures[static_cast<size_t>(sig)];
  if (s.what.rfind("output of ", 0) == 0) return s.what.substr(10);
  return fmt::format("(none: {} at {})", s.kind, s.stage.empty() ? "?" : s.stage);
}

// The files of a reproducer (and of its reduction) a person opens, relative to the page.
nlohmann::json links(const fs::path& reproducer, const fs::path& page_dir) {
  nlohmann::json out = nlohmann::json::array();
  std::error_code ec;
  if (reproducer.empty() || !fs::is_directory(reproducer, ec)) return out;
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(reproducer, ec)) {
    const std::string ext = e.path().extension().string();
    if (e.is_regular_file() && ext != ".npy" && ext != ".onnx") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    out.push_back({{"name", fs::relative(f, reproducer).string()}, {"href", fs::relative(f, page_dir).string()}});
  }
  return out;
}

}  // namespace

nlohmann::json report_data(const ReportOptions& o) {
  const CampaignIndex x = CampaignIndex::read({o.dir});
  const CampaignSummary s = summarize_index(x, o.known_as);
  const fs::path dir = fs::absolute(o.dir);
  const fs::path page_dir = fs::absolute(o.page_dir.empty() ? o.dir : o.page_dir);
  std::vector<std::string> notes = x.notes;
  const auto blamed = culprits(dir, notes);

  nlohmann::json campaign = {{"dir", o.dir},
                             {"identity", x.identity},
                             {"programs", s.status.done},
                             {"seconds", s.status.elapsed},
                             {"counts", s.status.counts},
                             {"elements", s.status.elements},
                             {"elements_checked", s.status.elements_checked},
                             {"duplicates", x.duplicates},
                             {"conflicts", x.conflicts}};
  if (s.status.elapsed > 0) campaign["programs_per_second"] = static_cast<double>(s.status.done) / s.status.elapsed;
  const fs::path config = dir / "campaign.json";
  std::error_code ec;
  // A merged campaign's failures name the shards that showed them (its summary.json).
  std::map<std::string, nlohmann::json> merged_shards;
  if (fs::exists(config, ec)) {
    const nlohmann::json c = read_json_file(config.string());
    if (c.contains("merged_from")) {
      campaign["merged_from"] = c["merged_from"];
      try {
        for (const auto& f : read_json_file((dir / "summary.json").string()).at("failures")) {
          merged_shards[f.at("signature").get<std::string>()] = f.value("shards", nlohmann::json::array());
        }
      } catch (const std::exception& e) {
        notes.push_back(fmt::format("{}: the shards of each failure are not shown ({})", (dir / "summary.json").string(), e.what()));
      }
    }
  }

  // Failures by blamed pass or transformer and by op, in programs and signatures.
  std::map<std::string, std::pair<int64_t, int64_t>> by_culprit, by_op;
  std::map<Signature, int32_t> ids;
  for (size_t i = 0; i < x.signatures.size(); ++i) ids[x.signatures[i]] = static_cast<int32_t>(i);
  nlohmann::json findings = nlohmann::json::array();
  std::vector<const FailureClass*> ordered;
  for (const auto& f : s.failures) ordered.push_back(&f);
  std::stable_sort(ordered.begin(), ordered.end(), [](const FailureClass* a, const FailureClass* b) {
    return !a->known_as && b->known_as;  // new before known
  });
  for (const FailureClass* f : ordered) {
    const std::string text = f->signature.str();
    const auto c = blamed.find(text);
    const std::string culprit = c == blamed.end() ? "(not reduced)" : c->second.empty() ? "(none named)" : c->second;
    const std::string op = op_of(x, ids.at(f->signature));
    by_culprit[culprit].first += f->programs;
    ++by_culprit[culprit].second;
    by_op[op].first += f->programs;
    ++by_op[op].second;
    const fs::path reproducer = dir / "failures" / failure_dir_name(f->kind, text);
    nlohmann::json seeds = nlohmann::json::array();
    for (size_t i = 0; i < f->seeds.size() && i < 20; ++i) seeds.push_back(f->seeds[i]);
    nlohmann::json one = {{"signature", text},
                          {"kind", f->kind},
                          {"new", !f->known_as},
                          {"programs", f->programs},
                          {"first_seed", f->first_seed},
                          {"seeds", seeds},
                          {"shards", merged_shards.count(text) ? merged_shards[text] : nlohmann::json(f->shards)},
                          {"op", op},
                          {"culprit", culprit},
                          {"attributable", f->attributable},
                          {"found_after_seconds", f->found_after_seconds},
                          {"found_after_programs", f->found_after_programs},
                          {"links", links(reproducer, page_dir)}};
    if (f->known_as) one["known_as"] = *f->known_as;
    if (f->known_under_other_pipeline) one["known_under_another_pipeline"] = true;
    findings.push_back(std::move(one));
  }
  const auto bars = [](const std::map<std::string, std::pair<int64_t, int64_t>>& m, const char* key) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& [name, n] : m) out.push_back({{key, name}, {"programs", n.first}, {"signatures", n.second}});
    std::stable_sort(out.begin(), out.end(),
                     [](const nlohmann::json& a, const nlohmann::json& b) { return a["programs"] > b["programs"]; });
    return out;
  };

  // The discovery curve: distinct signatures (and new ones) after how long and how many programs.
  std::vector<const FailureClass*> by_time;
  for (const auto& f : s.failures) {
    if (f.found_after_seconds >= 0) by_time.push_back(&f);
  }
  std::sort(by_time.begin(), by_time.end(), [](const FailureClass* a, const FailureClass* b) {
    return a->found_after_seconds < b->found_after_seconds;
  });
  nlohmann::json discovery = nlohmann::json::array();
  discovery.push_back({{"seconds", 0}, {"programs", 0}, {"signatures", 0}, {"new_signatures", 0}});
  int64_t distinct = 0, fresh = 0;
  for (const FailureClass* f : by_time) {
    ++distinct;
    fresh += f->known_as ? 0 : 1;
    discovery.push_back({{"seconds", f->found_after_seconds}, {"programs", f->found_after_programs},
                         {"signatures", distinct}, {"new_signatures", fresh}, {"signature", f->signature.str()}});
  }
  if (s.status.elapsed > 0) {
    discovery.push_back({{"seconds", s.status.elapsed}, {"programs", s.status.done}, {"signatures", distinct},
                         {"new_signatures", fresh}});
  }

  nlohmann::json stages = nlohmann::json::object();
  const double per = s.status.done > 0 ? 1.0 / static_cast<double>(s.status.done) : 0;
  const double ms[5] = {s.times.generate, s.times.reference, s.times.compile, s.times.run, s.times.compare};
  for (int i = 0; i < 5; ++i) stages[kStages[i]] = ms[i] * per;

  nlohmann::json coverage = nullptr;
  if (fs::exists(dir / "coverage.json", ec)) {
    try {
      const nlohmann::json c = read_json_file((dir / "coverage.json").string());
      coverage = {{"distinct_cells", c.value("distinct_cells", 0)}, {"programs", c.value("programs", 0)},
                  {"growth", c.value("growth", nlohmann::json::array())}, {"ops", c.value("ops", nlohmann::json::object())}};
    } catch (const UserError& e) {
      notes.push_back(fmt::format("{}: no coverage map shown", e.what()));
    }
  }

  const auto known_causes_json = [&] {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& [name, c] : known_causes(s.failures)) {
      out.push_back({{"root_cause", name},
                     {"programs", c.programs},
                     {"signatures", c.signatures},
                     {"under_other_pipelines", c.other_pipeline_signatures},
                     {"first_seed", c.first_seed}});
    }
    return out;
  };
  nlohmann::json out = {{"difftest_report", 1},
                        {"campaign", campaign},
                        {"notes", notes},
                        {"verdicts_over_time", over_time(x, o.time_bins)},
                        {"verdicts_per_program", per_program(x, o.program_bins)},
                        {"discovery", discovery},
                        {"by_culprit", bars(by_culprit, "culprit")},
                        {"by_op", bars(by_op, "op")},
                        {"coverage", coverage},
                        {"excess", excess_histogram(x, s.excess, o.excess_bins)},
                        {"stage_ms_per_program", stages},
                        {"known_root_causes", known_causes_json()},
                        {"findings", findings}};
  return out;
}

}  // namespace difftest::oracle
