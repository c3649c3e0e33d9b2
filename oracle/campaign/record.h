// What a campaign keeps of one seed: its verdict, the failure it names, the verdict's detail
// when it failed. A worker sends it to the campaign as a JSON line, the campaign appends that
// line to journal.jsonl and hands the record to its caller; `--resume` reads the lines back.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "oracle/check/verdict.h"

namespace difftest::oracle {

struct SeedRecord {
  uint64_t seed = 0;
  // A difftest bug while checking it (never the compiler's): `kind` says nothing then, and the
  // fields of a verdict are absent.
  bool harness_error = false;
  VerdictKind kind = VerdictKind::Ok;  // the verdict's overall kind
  std::optional<uint64_t> hash;        // program_hash
  std::optional<StageTimes> times;
  std::vector<std::string> exercised;  // what its compiles exercised (Verdict::exercised), sorted
  double worst_ratio = 0, worst_excess = 0;  // over every variant and binding
  // Output elements compared with the reference by either tier, and in all, summed over every
  // variant and binding (VariantVerdict::elements_checked, elements).
  int64_t elements_checked = 0, elements = 0;
  int refuted_timeouts = 0;
  // The failure it names: with faults injected, the first one the clean compiler does not
  // show (`attributable` false when every failure shows there too; absent without faults).
  std::optional<Signature> signature;
  std::optional<bool> attributable;
  std::optional<Verdict> detail;  // the whole verdict, when it failed
  std::string message;            // a harness error's, or the reference's where the program is invalid
  // When the campaign journaled it: seconds since the Unix epoch (a campaign's wall clock, so
  // that shards run on other machines line up in one campaign's report); absent in journals
  // written before it was recorded.
  std::optional<double> at;

  // "ok", "mismatch", ..., or "harness_error".
  std::string verdict_name() const;
  bool is_compiler_failure() const { return !harness_error && is_failure(kind); }

  nlohmann::json to_json() const;
  // UserError(Syntax) naming `where` when it is not a record (no "seed" number, a field of the
  // wrong kind, an unknown verdict). `compiler` (the campaign's) resolves its variants' names.
  static SeedRecord from_json(const nlohmann::json& j, const std::string& where, const VariantLadder& compiler);
};

}  // namespace difftest::oracle
