// `difftest merge DIR... --out OUT`: the outputs of a campaign's shards (fuzz --shard i/N on as
// many machines, or one shard's resumed runs) as one campaign in OUT, laid out as `fuzz --out`
// lays out one: journal.jsonl (one record per seed, by seed; a seed journaled twice with one
// verdict kept once, with two verdicts a conflict: the first shard's kept and both named),
// failures/ (one reproducer per signature across all shards, the lowest seed's), summary.json
// (every seed that showed each signature, the shards that did), reductions.json, coverage.json
// when every shard has one, and the gate's gate.json and gate.xml (one JUnit case per shard).
//
// The merge is a function of the records alone, not of the order shards or their lines come in:
// merging again after a shard resumed gives the same OUT as a merge of the finished shards.
// OUT is written beside itself and renamed into place, so a failed merge leaves the previous
// one; OUT may be empty, absent or an earlier merge, nothing else.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "oracle/campaign/campaign.h"
#include "oracle/gate/gate.h"
#include "oracle/merge/campaign_index.h"

namespace difftest::oracle {

struct MergeOptions {
  std::vector<std::string> dirs;
  std::string out_dir;
  // CampaignOptions::known_as: the root cause a signature is known as.
  KnownAs known_as;
};

struct MergeResult {
  CampaignSummary summary;  // its journal_notes: what reading the shards found wrong
  GateResult gate;
  int64_t duplicates = 0, conflicts = 0;
  std::vector<IndexedShard> shards;
};

// The failures of an index, one class per signature with every seed and shard that showed it,
// in the order of their first seed (their reproducers' places left empty).
std::vector<FailureClass> failure_classes(const CampaignIndex& index, const KnownAs& known_as);

// The summary of an index's campaign (without its reproducers' places).
CampaignSummary summarize_index(const CampaignIndex& index, const KnownAs& known_as);

MergeResult merge_campaigns(const MergeOptions& options);

// The merged campaign's text: the shards, what was wrong with them, the summary.
std::string format_merge(const MergeResult& r);

}  // namespace difftest::oracle
