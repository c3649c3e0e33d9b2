// A campaign's report data (`difftest report`): what its page plots and tabulates, as JSON, for
// the page and for CI dashboards. Read from a campaign directory (fuzz --out or merge --out):
// its journal through the index (oracle/merge/campaign_index.h), so that memory grows with the
// programs and not with their verdicts' size; reductions.json for the blamed passes or
// transformers, coverage.json for the coverage map, failures/ for the reproducers linked.
//
// Plots over time use the records' wall clock (SeedRecord::at): bins of the campaign's span, so
// shards run side by side add up. A journal written before records carried it has no plots
// over time, and says so.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "oracle/campaign/campaign.h"

namespace difftest::oracle {

struct ReportOptions {
  std::string dir;       // the campaign's directory
  std::string page_dir;  // where the page goes: its links are relative to it
  KnownAs known_as;
  int time_bins = 60, program_bins = 100, excess_bins = 40;
};

// UserError when `dir` holds no journal (CampaignIndex::read).
nlohmann::json report_data(const ReportOptions& options);

}  // namespace difftest::oracle
