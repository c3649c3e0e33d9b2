// A campaign's summary (oracle/campaign.h): its JSON, its table and its progress line.
#include <fmt/format.h>

#include <algorithm>

#include "oracle/campaign/campaign.h"

namespace difftest::oracle {

ExcessSummary ExcessSummary::of(std::vector<std::pair<double, uint64_t>> excesses) {
  ExcessSummary s;
  if (excesses.empty()) return s;
  std::sort(excesses.begin(), excesses.end());
  const auto quantile = [&](double q) {
    return excesses[static_cast<size_t>(q * static_cast<double>(excesses.size() - 1))].first;
  };
  s.programs = static_cast<int64_t>(excesses.size());
  s.median = quantile(0.5);
  s.p99 = quantile(0.99);
  s.max = excesses.back().first;
  s.max_seed = excesses.back().second;
  return s;
}

bool CampaignOptions::counts_against(const VariantVerdict& v) const {
  return is_failure(v.kind) || (fail_on_unchecked && v.kind == VerdictKind::Unchecked);
}

bool CampaignSummary::nothing_supported() const {
  const auto unsupported = status.counts.find(verdict_kind_name(VerdictKind::Unsupported));
  return status.done > 0 && unsupported != status.counts.end() && unsupported->second == status.done;
}

bool CampaignSummary::found_failure() const {
  const bool fresh = std::any_of(failures.begin(), failures.end(), [](const FailureClass& f) { return !f.known_as; });
  return fresh || nothing_supported();
}

std::map<std::string, KnownCause> known_causes(const std::vector<FailureClass>& failures) {
  std::map<std::string, KnownCause> out;
  for (const auto& f : failures) {
    if (!f.known_as) continue;
    KnownCause& c = out[*f.known_as];
    c.programs += f.programs;
    c.signatures.push_back(f.signature.str());
    c.other_pipeline_signatures += f.known_under_other_pipeline ? 1 : 0;
    c.first_seed = c.signatures.size() == 1 ? f.first_seed : std::min(c.first_seed, f.first_seed);
  }
  return out;
}

nlohmann::json CampaignSummary::to_json() const {
  nlohmann::json j = {{"programs", status.done},
                      {"resumed", status.resumed},
                      {"checked_this_run", checked},
                      {"seconds", status.elapsed},
                      {"counts", status.counts},
                      {"elements", status.elements},
                      {"elements_checked", status.elements_checked},
                      {"nothing_supported", nothing_supported()},
                      {"times_ms", times.to_json()},
                      {"abandoned_at_time_limit", status.abandoned},
                      {"refuted_timeouts", status.refuted_timeouts}};
  if (coverage_cells > 0) j["coverage_cells"] = coverage_cells;
  if (excess.programs > 0) {
    j["worst_excess"] = {{"programs", excess.programs},
                         {"median", excess.median},
                         {"p99", excess.p99},
                         {"max", excess.max},
                         {"max_seed", excess.max_seed}};
  }
  if (!journal_notes.empty()) j["journal_notes"] = journal_notes;
  j["failures"] = nlohmann::json::array();
  for (const auto& f : failures) {
    nlohmann::json one = {{"signature", f.signature.str()},
                          {"kind", f.kind},
                          {"first_seed", f.first_seed},
                          {"programs", f.programs},
                          {"saved_in", f.saved_in},
                          {"attributable", f.attributable},
                          {"found_after_seconds", f.found_after_seconds},
                          {"found_after_programs", f.found_after_programs},
                          {"new", !f.known_as.has_value()},
                          {"seeds", f.seeds}};
    if (f.known_as) one["known_as"] = *f.known_as;
    if (f.known_under_other_pipeline) one["known_under_another_pipeline"] = true;
    if (!f.shards.empty()) one["shards"] = f.shards;
    j["failures"].push_back(std::move(one));
  }
  const auto causes = known_causes(failures);
  if (!causes.empty()) {
    j["known_root_causes"] = nlohmann::json::object();
    for (const auto& [name, c] : causes) {
      j["known_root_causes"][name] = {{"programs", c.programs},
                                      {"signatures", c.signatures},
                                      {"under_other_pipelines", c.other_pipeline_signatures},
                                      {"first_seed", c.first_seed}};
    }
  }
  return j;
}

std::string format_progress(const CampaignStatus& s, double time_limit) {
  const int64_t fresh = s.done - s.resumed;
  const double rate = s.elapsed > 0 ? static_cast<double>(fresh) / s.elapsed : 0;
  std::string out = s.total >= 0 ? fmt::format("{:>6}/{}", s.done, s.total) : fmt::format("{:>6}", s.done);
  int64_t failures = 0;
  for (const auto& [kind, n] : s.counts) {
    const auto k = verdict_kind_from_name(kind);
    if (k && is_failure(*k)) failures += n;
  }
  out += fmt::format("  {:.2f}/s  failures {} ", rate, failures);
  for (const auto& [kind, n] : s.counts) out += fmt::format(" {} {}", kind, n);
  out += fmt::format("  elapsed {}", format_duration(s.elapsed));
  double remaining = -1;
  if (s.total >= 0 && rate > 0) remaining = static_cast<double>(s.total - s.done) / rate;
  if (time_limit > 0) remaining = remaining < 0 ? time_limit - s.elapsed : std::min(remaining, time_limit - s.elapsed);
  if (remaining >= 0) out += fmt::format("  remaining {}", format_duration(remaining));
  return out;
}

std::string format_checked_share(const CampaignStatus& s) {
  const auto unchecked = s.counts.find(verdict_kind_name(VerdictKind::Unchecked));
  const int64_t programs = unchecked == s.counts.end() ? 0 : unchecked->second;
  std::string out = fmt::format("  unchecked programs {} of {} ({:.2f}%)", programs, s.done,
                                s.done > 0 ? 100.0 * static_cast<double>(programs) / static_cast<double>(s.done) : 0.0);
  if (s.elements > 0) {
    out += fmt::format("; output elements compared {:.2f}% ({} of {}, every variant and binding)",
                       100.0 * static_cast<double>(s.elements_checked) / static_cast<double>(s.elements),
                       s.elements_checked, s.elements);
  }
  return out + "\n";
}

std::string format_failures(const std::vector<FailureClass>& failures) {
  const auto causes = known_causes(failures);
  const size_t known = std::count_if(failures.begin(), failures.end(), [](const FailureClass& f) { return f.known_as; });
  const size_t fresh = failures.size() - known;
  if (failures.empty()) return "no failure signatures\n";
  std::string out;
  if (fresh > 0) out += fmt::format("{} {}failure signatures:\n", fresh, known > 0 ? "NEW " : "distinct ");
  if (fresh == 0) out += "no new failure signatures\n";
  for (const auto& f : failures) {
    if (f.known_as) continue;
    out += fmt::format("  {:>6} programs  first seed {:<8} {}{}\n", f.programs, f.first_seed, f.signature.str(),
                       f.attributable ? "" : "  (the clean compiler fails there too)");
    if (!f.saved_in.empty()) out += fmt::format("{:>26}reproducer: {}\n", "", f.saved_in);
  }
  if (causes.empty()) return out;
  int64_t programs = 0;
  for (const auto& [name, c] : causes) programs += c.programs;
  out += fmt::format("known: {} programs in {} signatures of {} known root causes:\n", programs, known, causes.size());
  for (const auto& [name, c] : causes) {
    out += fmt::format("  {:>6} programs  first seed {:<8} {} ({} signature{}{})\n", c.programs, c.first_seed, name,
                       c.signatures.size(), c.signatures.size() == 1 ? "" : "s",
                       c.other_pipeline_signatures > 0
                           ? fmt::format(", {} under pipelines its entry does not name", c.other_pipeline_signatures)
                           : "");
  }
  return out;
}

std::string format_summary(const CampaignSummary& s) {
  std::string out;
  for (const auto& note : s.journal_notes) out += fmt::format("warning: {}\n", note);
  const double per = s.checked > 0 ? 1.0 / static_cast<double>(s.checked) : 0;
  if (s.shards > 0) {
    out += fmt::format("campaign: {} programs from {} shard{} over {:.1f} s of wall clock", s.status.done, s.shards,
                       s.shards == 1 ? "" : "s", s.status.elapsed);
  } else {
    out += fmt::format("campaign: {} programs ({} checked in this run, {} resumed from the journal) in {:.1f} s",
                       s.status.done, s.checked, s.status.resumed, s.status.elapsed);
  }
  if (s.status.elapsed > 0)
    out += fmt::format(", {:.2f} programs/s", static_cast<double>(s.checked) / s.status.elapsed);
  out += "\n";
  for (const auto& [kind, n] : s.status.counts) out += fmt::format("  {:<16}{:>8}\n", kind, n);
  out += format_checked_share(s.status);
  if (s.coverage_cells > 0) out += fmt::format("  coverage: {} distinct cells (op x dtype x attribute class x shape class)\n", s.coverage_cells);
  if (s.nothing_supported()) {
    out += "  every program was unsupported by the compiler under test: nothing was checked (a failure)\n";
  }
  if (s.status.abandoned > 0) {
    out +=
        fmt::format("  {} programs in flight at the time limit were abandoned (not journaled; --resume checks them)\n",
                    s.status.abandoned);
  }
  if (s.status.refuted_timeouts > 0) {
    out += fmt::format("  {} timeouts refuted by a rerun with a larger CPU budget (not failures)\n",
                       s.status.refuted_timeouts);
  }
  if (s.excess.programs > 0) {
    out +=
        fmt::format("worst excess per program (above 1: an outlier): median {:.3g}  p99 {:.3g}  max {:.3g} (seed {})\n",
                    s.excess.median, s.excess.p99, s.excess.max, s.excess.max_seed);
  }
  if (s.checked > 0) {
    out += fmt::format(
        "time per program (ms): generate {:.1f}  reference {:.1f}  compile {:.1f}  run {:.1f}  compare "
        "{:.1f}\n",
        s.times.generate * per, s.times.reference * per, s.times.compile * per, s.times.run * per,
        s.times.compare * per);
    if (!s.times.compile_by_variant.empty()) {
      out += "compile by variant (ms per program):";
      for (const auto& [variant, ms] : s.times.compile_by_variant) out += fmt::format("  {} {:.1f}", variant, ms * per);
      out += "\n";
    }
  }
  return out + format_failures(s.failures);
}

}  // namespace difftest::oracle
