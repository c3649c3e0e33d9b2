// `difftest fuzz --reduce`: at the end of a campaign, every distinct failure it saved is
// bisected and reduced (oracle/reduce_failure.h) into a `reduced/` directory beside its
// reproducer, so that a campaign ends with minimal programs and culprit passes rather than
// raw generated programs. A failure reduced by an earlier run of the same campaign (resume)
// is not reduced again.
#pragma once

#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fuzz/reduce.h"
#include "oracle/campaign/campaign.h"
#include "oracle/reduce/reduce_failure.h"

namespace difftest::oracle {

struct CampaignReduction {
  std::string signature;
  std::string dir;             // the reduction's output directory ("" when none was made)
  bool reduced = false;        // false: `note` says why
  std::string note;
  std::string culprit;         // the culprit pass
  std::size_t ops_before = 0, ops_after = 0;
  int oracle_calls = 0;
  double seconds = 0;
  bool timed_out = false;      // the per-failure time limit stopped the reducer
  nlohmann::json to_json() const;
};

// Reduces the failures of `summary` (a campaign run with `options`, whose faults are enabled
// in this process) one after another, each within `reduce_options.time_limit`. Calls
// `on_start` before each, writes OUT/reductions.json after each (so an interrupted run keeps
// what it finished). Never throws for one failure: its problem becomes the entry's note.
std::vector<CampaignReduction> reduce_campaign_failures(
    const CampaignSummary& summary, const CampaignOptions& options, const fuzz::ReduceOptions& reduce_options,
    const std::function<void(const FailureClass&)>& on_start = {},
    const std::function<void(const ReduceProgress&)>& on_progress = {});

// One line per failure: "reduced 23 -> 2 ops, culprit FoldConstant, 41 oracle calls, 12.3 s".
std::string format_reductions(const std::vector<CampaignReduction>& reductions);

}  // namespace difftest::oracle
