// merge and report (commands.h): what a campaign left behind, read again.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "backends/builtin/builtin_compiler.h"
#include "commands/commands.h"
#include "oracle/gate/known_findings.h"
#include "oracle/merge/campaign_index.h"
#include "oracle/merge/merge.h"
#include "oracle/report/report_data.h"
#include "oracle/report/report_page.h"
#include "oracle/io/output_paths.h"
#include "compiler/tensor/npy.h"

#include <filesystem>

namespace difftest::commands {

namespace {

// The known findings `paths` name, as the campaign in `identity` (its compiler and faults) can
// show them; `out` says where they came from.
oracle::KnownFindings known_for(const std::vector<std::string>& paths, const nlohmann::json& identity, const Print& out) {
  if (paths.empty()) return {};
  const std::string compiler = identity.value("compiler", std::string("builtin"));
  const auto faults = identity.value("faults", std::vector<std::string>{});
  oracle::KnownFindings known = oracle::KnownFindings::read(paths, backends::builtin_compiler(), compiler, faults);
  out(fmt::format("known findings of {}{}: {}\n", compiler, faults.empty() ? "" : fmt::format(" with {}", fmt::join(faults, ", ")),
                  fmt::join(known.sources(), ", ")));
  return known;
}

}  // namespace

int merge_command(const MergeRequest& r, const Print& out) {
  // The settings are read twice (here for the known findings, then by the merge): both cheap.
  const oracle::KnownFindings known = known_for(r.known, oracle::CampaignIndex::read_settings(r.dirs), out);
  oracle::MergeOptions o;
  o.dirs = r.dirs;
  o.out_dir = r.out;
  if (!known.empty()) o.known_as = [&known](const oracle::Signature& s) { return known.match(s); };
  const oracle::MergeResult m = oracle::merge_campaigns(o);
  out(oracle::format_merge(m));
  out(fmt::format("merged into {}: journal.jsonl, summary.json, failures/, gate.json, gate.xml\n", r.out));
  return m.summary.found_failure() ? kFailure : kOk;
}

int report_command(const ReportRequest& r, const Print& out) {
  namespace fs = std::filesystem;
  const std::string page = r.out.empty() ? (fs::path(r.dir) / "report.html").string() : r.out;
  const std::string json = r.json.empty() ? (fs::path(page).parent_path() / "report.json").string() : r.json;
  oracle::require_writable_file(page, "--out");
  oracle::require_writable_file(json, "--json");
  const oracle::KnownFindings known = known_for(r.known, oracle::CampaignIndex::read_settings({r.dir}), out);
  oracle::ReportOptions o;
  o.dir = r.dir;
  o.page_dir = fs::absolute(page).parent_path().string();
  if (!known.empty()) o.known_as = [&known](const oracle::Signature& s) { return known.match(s); };
  const nlohmann::json data = oracle::report_data(o);
  write_file_atomic(json, data.dump(1) + "\n");
  write_file_atomic(page, oracle::report_page(data));
  int64_t fresh = 0, known_n = 0;
  for (const auto& f : data["findings"]) (f["new"].get<bool>() ? fresh : known_n) += 1;
  for (const auto& n : data["notes"]) out(fmt::format("warning: {}\n", n.get<std::string>()));
  out(fmt::format("report of {} programs, {} new and {} known failure signatures: {} (data: {})\n",
                  data["campaign"]["programs"].get<int64_t>(), fresh, known_n, page, json));
  return kOk;
}

}  // namespace difftest::commands
