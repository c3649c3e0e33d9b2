#include "oracle/merge/campaign_index.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>

#include "compiler/support/diagnostics.h"
#include "oracle/io/json_file.h"

namespace difftest::oracle {

namespace fs = std::filesystem;

namespace {

constexpr size_t kNotesPerKind = 20;  // of each kind of note, the first ones are named

// Reads `j` (a journal line) into `e` and returns its signature text ("" when none); throws
// (std::exception) when the line is not a record.
std::string read_fields(const nlohmann::json& j, IndexEntry& e, std::string& verdict) {
  if (!j.is_object() || !j.contains("seed") || !j["seed"].is_number_unsigned()) {
    throw std::runtime_error("a JSON object with a \"seed\" number");
  }
  e.seed = j["seed"].get<uint64_t>();
  verdict = j.value("verdict", std::string(kHarnessError));
  if (verdict != kHarnessError && !verdict_kind_from_name(verdict)) {
    throw std::runtime_error(fmt::format("an unknown verdict '{}'", verdict));
  }
  if (j.contains("hash")) e.hash = std::stoull(j["hash"].get<std::string>(), nullptr, 16);
  e.at = j.contains("at") ? j["at"].get<double>() : std::numeric_limits<double>::quiet_NaN();
  e.worst_excess = verdict == kHarnessError || !j.contains("worst_excess")
                       ? std::numeric_limits<float>::quiet_NaN()
                       : static_cast<float>(json_number(j, "worst_excess"));
  if (j.contains("times")) {
    const StageTimes t = StageTimes::from_json(j["times"]);
    const double ms[5] = {t.generate, t.reference, t.compile, t.run, t.compare};
    for (int i = 0; i < 5; ++i) e.stage_ms[i] = static_cast<float>(ms[i]);
  }
  e.elements = j.value("elements", int64_t{0});
  e.elements_checked = j.value("elements_checked", int64_t{0});
  e.refuted_timeouts = static_cast<uint16_t>(std::clamp(j.value("refuted_timeouts", 0), 0, 65535));
  if (j.contains("attributable")) e.attributable = j["attributable"].get<bool>() ? 1 : 0;
  if (!j.contains("signature")) return "";
  const std::string text = j["signature"].get<std::string>();
  if (!Signature::parse(text)) throw std::runtime_error(fmt::format("'{}' is not a failure signature", text));
  return text;
}

FailureSample sample_of(const nlohmann::json& j, uint64_t seed, const std::string& signature) {
  FailureSample s;
  s.seed = seed;
  s.message = j.value("message", std::string());
  if (!j.contains("detail") || !j["detail"].contains("variants")) return s;
  for (const auto& v : j["detail"]["variants"]) {
    if (v.value("signature", std::string()) != signature) continue;
    s.variant = v.value("pipeline", std::string());
    if (v.contains("binding")) s.binding = v["binding"].get<sym::Env>();
    s.message = v.value("message", std::string());
    s.output_op = v.value("output_op", std::string());
    break;
  }
  return s;
}

nlohmann::json without_shard(nlohmann::json identity) {
  if (identity.is_object()) identity.erase("shard");
  return identity;
}

// The shards' settings (DIR/campaign.json), which must agree but for the shard.
struct Settings {
  nlohmann::json identity = nlohmann::json::object();
  std::string first;  // the first directory with settings

  void add(const std::string& dir, IndexedShard& shard, std::vector<std::string>& notes) {
    const fs::path config = fs::path(dir) / "campaign.json";
    std::error_code ec;
    if (!fs::exists(config, ec)) {
      notes.push_back(fmt::format("{}: no campaign.json: its settings are not checked against the other shards'", dir));
      return;
    }
    const nlohmann::json c = read_json_file(config.string());
    if (!c.is_object() || !c.contains("identity") || !c["identity"].is_object()) {
      notes.push_back(fmt::format("{}: no \"identity\" object: its settings are not checked", config.string()));
      return;
    }
    shard.identity = c["identity"];
    shard.shard = c["identity"].value("shard", std::string());
    const nlohmann::json mine = without_shard(c["identity"]);
    if (first.empty()) {
      identity = mine;
      first = dir;
    } else if (mine != identity) {
      throw UserError(ErrorKind::Usage,
                      fmt::format("{} and {} are not shards of one campaign: their settings differ ({} against {})",
                                  first, dir, identity.dump(), mine.dump()));
    }
  }
};

}  // namespace

nlohmann::json CampaignIndex::read_settings(const std::vector<std::string>& dirs) {
  Settings settings;
  std::vector<std::string> notes;
  for (const auto& dir : dirs) {
    IndexedShard shard;
    settings.add(dir, shard, notes);
  }
  return settings.identity;
}

CampaignIndex CampaignIndex::read(const std::vector<std::string>& dirs) {
  CampaignIndex x;
  std::map<std::string, uint8_t> verdict_ids;
  std::map<std::string, int32_t> signature_ids;
  size_t bad_lines = 0;
  Settings settings;
  for (const auto& dir : dirs) {
    IndexedShard shard;
    shard.dir = dir;
    shard.journal = (fs::path(dir) / "journal.jsonl").string();
    std::error_code ec;
    if (!fs::is_regular_file(shard.journal, ec)) {
      x.notes.push_back(fmt::format("{}: no journal.jsonl: not a campaign's output, skipped", dir));
      continue;
    }
    settings.add(dir, shard, x.notes);
    const auto shard_id = static_cast<uint16_t>(x.shards.size());
    std::ifstream in(shard.journal, std::ios::binary);
    std::string text;
    uint64_t offset = 0;
    uint32_t line = 0;
    std::set<int32_t> sampled;
    while (std::getline(in, text)) {
      ++line;
      const uint64_t line_start = offset;
      offset += text.size() + 1;
      const std::string where = fmt::format("{}:{}", shard.journal, line);
      if (in.eof()) {  // no newline: the shard was killed while writing it
        x.notes.push_back(fmt::format("{}: a torn last line (the shard was killed while writing it): not merged", where));
        break;
      }
      IndexEntry e;
      std::string verdict, signature;
      nlohmann::json j;
      try {
        j = nlohmann::json::parse(text);
        signature = read_fields(j, e, verdict);
      } catch (const std::exception& err) {
        if (++bad_lines <= kNotesPerKind) {
          x.notes.push_back(fmt::format("{}: not a journal record ({}): skipped", where, err.what()));
        }
        continue;
      }
      e.offset = line_start;
      e.length = static_cast<uint32_t>(text.size());
      e.line = line;
      e.shard = shard_id;
      const auto [v, fresh_verdict] = verdict_ids.try_emplace(verdict, static_cast<uint8_t>(x.verdicts.size()));
      if (fresh_verdict) x.verdicts.push_back(verdict);
      e.verdict = v->second;
      if (!signature.empty()) {
        const auto [s, fresh] = signature_ids.try_emplace(signature, static_cast<int32_t>(x.signatures.size()));
        if (fresh) {
          x.signatures.push_back(*Signature::parse(signature));
          x.kinds.push_back(verdict);
        }
        e.signature = s->second;
        if (sampled.insert(e.signature).second) x.samples[{e.signature, shard_id}] = sample_of(j, e.seed, signature);
      }
      x.entries.push_back(e);
      ++shard.lines;
    }
    x.shards.push_back(std::move(shard));
  }
  x.identity = settings.identity;
  if (x.identity.contains("faults")) x.faults = x.identity["faults"].get<std::vector<std::string>>();
  if (bad_lines > kNotesPerKind) {
    x.notes.push_back(fmt::format("{} more lines that are not journal records: skipped", bad_lines - kNotesPerKind));
  }
  if (x.shards.empty()) {
    throw UserError(ErrorKind::Usage, fmt::format("none of {} holds a campaign journal (DIR/journal.jsonl)",
                                                  fmt::join(dirs, ", ")));
  }
  // Every shard i/N of one N there? A shard given twice (a copy, a resumed one) is fine.
  std::map<uint64_t, std::set<uint64_t>> present;  // N -> i
  for (const auto& s : x.shards) {
    const size_t slash = s.shard.find('/');
    if (slash == std::string::npos) continue;
    present[std::stoull(s.shard.substr(slash + 1))].insert(std::stoull(s.shard.substr(0, slash)));
  }
  for (const auto& [n, have] : present) {
    std::vector<std::string> missing;
    for (uint64_t i = 0; i < n; ++i) {
      if (!have.count(i)) missing.push_back(fmt::format("{}/{}", i, n));
    }
    if (!missing.empty() && n > 1) {
      x.notes.push_back(fmt::format("shard{} {} not given: {} seeds are not in this campaign",
                                    missing.size() == 1 ? "" : "s", fmt::join(missing, ", "),
                                    missing.size() == 1 ? "its" : "their"));
    }
  }
  std::stable_sort(x.entries.begin(), x.entries.end(), [](const IndexEntry& a, const IndexEntry& b) {
    return a.seed != b.seed ? a.seed < b.seed : a.shard != b.shard ? a.shard < b.shard : a.line < b.line;
  });
  // One entry per seed: the first; a later one that says otherwise is a conflict. Compacted in
  // place: a copy would double the index's peak.
  size_t kept = 0, conflict_notes = 0;
  const auto says = [&](const IndexEntry& r) {
    return fmt::format("{}:{} says {}{} (program {:016x})", x.shards[r.shard].journal, r.line, x.verdicts[r.verdict],
                       r.signature >= 0 ? " " + x.signatures[static_cast<size_t>(r.signature)].str() : "", r.hash);
  };
  for (size_t i = 0; i < x.entries.size(); ++i) {
    const IndexEntry& e = x.entries[i];
    if (kept == 0 || x.entries[kept - 1].seed != e.seed) {
      x.entries[kept++] = e;
      continue;
    }
    const IndexEntry& first = x.entries[kept - 1];
    if (first.verdict == e.verdict && first.signature == e.signature && first.hash == e.hash) {
      ++x.duplicates;
      continue;
    }
    ++x.conflicts;
    if (++conflict_notes <= kNotesPerKind) {
      x.notes.push_back(fmt::format("seed {} conflicts: {}, {}: the first is kept", e.seed, says(first), says(e)));
    }
  }
  if (conflict_notes > kNotesPerKind) {
    x.notes.push_back(fmt::format("{} more conflicting seeds: the first record of each is kept",
                                  conflict_notes - kNotesPerKind));
  }
  x.entries.resize(kept);
  return x;
}

JournalLines::JournalLines(const CampaignIndex& index) : index_(index) {
  for (const auto& s : index.shards) {
    const int fd = ::open(s.journal.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw UserError(ErrorKind::Io, fmt::format("cannot read '{}': {}", s.journal, std::strerror(errno)));
    fds_.push_back(fd);
  }
}

JournalLines::~JournalLines() {
  for (const int fd : fds_) ::close(fd);
}

std::string JournalLines::line(const IndexEntry& e) {
  std::string out(e.length, '\0');
  const ssize_t n = ::pread(fds_[e.shard], out.data(), e.length, static_cast<off_t>(e.offset));
  if (n != static_cast<ssize_t>(e.length)) {
    throw UserError(ErrorKind::Io, fmt::format("{}:{}: the journal changed while it was read",
                                               index_.shards[e.shard].journal, e.line));
  }
  return out;
}

}  // namespace difftest::oracle
