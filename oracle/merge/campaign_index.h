// The journals of one or more campaign directories (shards of one campaign, or a campaign and
// its resumed runs), read once into a compact index: per journal line what a merge or a report
// needs (seed, verdict, signature, times, where the line is), never the line's whole verdict.
// Memory grows by one entry per program and one sample per signature and shard, however many
// programs share a failure.
//
// Reading never stops at a bad line: a line that is not a record, a torn last line (a shard
// killed mid-write), a directory without a journal become notes naming path:line, and the rest
// is read. A directory whose settings (campaign.json) differ from the first one's, other than
// its shard, is not the same campaign: a UserError naming both.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "oracle/campaign/campaign.h"
#include "oracle/gate/gate.h"

namespace difftest::oracle {

// One journal line of a program.
struct IndexEntry {
  uint64_t seed = 0;
  uint64_t hash = 0;         // program_hash (0: none recorded)
  uint64_t offset = 0;       // of the line in its journal
  double at = 0;             // SeedRecord::at (NaN: not recorded)
  float worst_excess = 0;    // NaN: none (a harness error, an unsupported program)
  float stage_ms[5] = {};    // generate, reference, compile, run, compare
  int64_t elements = 0, elements_checked = 0;
  uint32_t length = 0;       // of the line, without its newline
  uint32_t line = 0;         // 1-based
  uint16_t shard = 0;        // index into CampaignIndex::shards
  uint8_t verdict = 0;       // index into CampaignIndex::verdicts
  int8_t attributable = -1;  // -1: not recorded (no faults)
  int32_t signature = -1;    // index into CampaignIndex::signatures; -1: none
  uint16_t refuted_timeouts = 0;
};

struct IndexedShard {
  std::string dir;
  std::string journal;    // dir/journal.jsonl
  std::string shard;      // "i/N" from its campaign.json ("": none recorded)
  int64_t lines = 0;      // records read
  std::optional<nlohmann::json> identity;
};

// What a merged report says of one failure of one shard: its first program's failing variant.
struct FailureSample {
  uint64_t seed = 0;
  std::string variant;
  sym::Env binding;
  std::string message;
  std::string output_op;  // the op whose output was wrong ("" when none is named)
};

struct CampaignIndex {
  std::vector<IndexedShard> shards;
  std::vector<IndexEntry> entries;    // sorted by seed, then shard and line; duplicates removed
  std::vector<std::string> verdicts;  // verdict names, as IndexEntry::verdict indexes them
  std::vector<Signature> signatures;  // as IndexEntry::signature indexes them
  std::vector<std::string> kinds;     // per signature: its first program's verdict name
  std::map<std::pair<int32_t, uint16_t>, FailureSample> samples;  // (signature, shard) -> first program
  std::vector<std::string> notes;     // bad lines, conflicts, shards missing
  int64_t duplicates = 0;             // the same seed journaled again with the same verdict (a resume)
  int64_t conflicts = 0;              // the same seed journaled with different verdicts
  nlohmann::json identity;            // the campaign's settings, without the shard ({} when none)
  std::vector<std::string> faults;    // injected, from the identity

  // Reads the journals of `dirs`. UserError when no directory holds a journal, or settings differ.
  static CampaignIndex read(const std::vector<std::string>& dirs);
  // Only their settings (identity), checked as `read` checks them.
  static nlohmann::json read_settings(const std::vector<std::string>& dirs);
};

// The journal lines of an index, read again from their shards' files.
class JournalLines {
 public:
  explicit JournalLines(const CampaignIndex& index);
  ~JournalLines();
  JournalLines(const JournalLines&) = delete;
  JournalLines& operator=(const JournalLines&) = delete;
  // The line of `e`, without its newline. UserError(Io) when the file changed under us.
  std::string line(const IndexEntry& e);

 private:
  const CampaignIndex& index_;
  std::vector<int> fds_;
};

}  // namespace difftest::oracle
