#include "oracle/merge/merge.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <tuple>

#include "compiler/support/diagnostics.h"
#include "compiler/tensor/npy.h"
#include "oracle/io/json_file.h"
#include "oracle/io/output_paths.h"
#include "oracle/isolate/isolate.h"

namespace difftest::oracle {

namespace fs = std::filesystem;

namespace {

// The record times of an index's programs, sorted: how many programs were journaled by a time.
std::vector<double> sorted_times(const CampaignIndex& index) {
  std::vector<double> at;
  at.reserve(index.entries.size());
  for (const auto& e : index.entries) {
    if (!std::isnan(e.at)) at.push_back(e.at);
  }
  std::sort(at.begin(), at.end());
  return at;
}

// The reproducer directory of each signature: that of the shard holding its lowest seed with
// one saved (a shard saves its own first program's), as the campaign's own would be.
std::map<int32_t, fs::path> reproducer_sources(const CampaignIndex& index) {
  std::map<int32_t, fs::path> out;
  for (const auto& e : index.entries) {
    if (e.signature < 0 || out.count(e.signature)) continue;
    const auto sig = static_cast<size_t>(e.signature);
    const fs::path dir = fs::path(index.shards[e.shard].dir) / "failures" /
                         failure_dir_name(index.kinds[sig], index.signatures[sig].str());
    std::error_code ec;
    if (fs::is_directory(dir, ec)) out[e.signature] = dir;
  }
  // A signature whose lowest seed's shard saved none (killed before it could): any shard's.
  for (size_t sig = 0; sig < index.signatures.size(); ++sig) {
    const auto id = static_cast<int32_t>(sig);
    if (out.count(id)) continue;
    for (const auto& shard : index.shards) {
      const fs::path dir =
          fs::path(shard.dir) / "failures" / failure_dir_name(index.kinds[sig], index.signatures[sig].str());
      std::error_code ec;
      if (fs::is_directory(dir, ec)) {
        out[id] = dir;
        break;
      }
    }
  }
  return out;
}

// The shard a directory ran as ("?" when its settings do not say), and an order of shards: by
// N, then i, so that the gate's cases do not depend on the order directories are given in.
std::string shard_name(const IndexedShard& s) { return s.shard.empty() ? "? (" + s.dir + ")" : s.shard; }
bool shard_before(const std::string& a, const std::string& b) {
  const auto key = [](const std::string& s) {
    const size_t slash = s.find('/');
    using Key = std::tuple<uint64_t, uint64_t, std::string>;
    if (slash == std::string::npos || s[0] == '?') return Key{uint64_t{1} << 63, 0, s};
    return Key{std::stoull(s.substr(slash + 1)), std::stoull(s.substr(0, slash)), s};
  };
  return key(a) < key(b);
}

// The gate's view of the whole: one JUnit case per shard, with each signature it showed once
// (its lowest seed there).
GateResult gate_of(const CampaignIndex& index, const CampaignSummary& s, const fs::path& out) {
  GateResult r;
  r.programs = s.status.done;
  r.seed_counts = s.status.counts;
  r.seed_status = s.status;
  r.nothing_supported = s.nothing_supported();
  r.seconds = s.status.elapsed;
  std::map<Signature, const FailureClass*> classes;
  for (const auto& f : s.failures) classes[f.signature] = &f;
  const auto before = [](const std::string& a, const std::string& b) { return shard_before(a, b); };
  std::map<std::string, GateCase, decltype(before)> cases(before);
  std::map<std::string, std::map<std::string, int64_t>> counts;
  for (const auto& e : index.entries) {
    const std::string name = shard_name(index.shards[e.shard]);
    ++counts[name][index.verdicts[e.verdict]];
    for (const float ms : e.stage_ms) cases[name].seconds += ms / 1000;
  }
  std::map<std::pair<std::string, Signature>, const FailureSample*> samples;  // the lowest seed per shard
  for (const auto& [key, sample] : index.samples) {
    const auto k = std::make_pair(shard_name(index.shards[key.second]), index.signatures[static_cast<size_t>(key.first)]);
    auto [it, fresh] = samples.try_emplace(k, &sample);
    if (!fresh && sample.seed < it->second->seed) it->second = &sample;
  }
  for (const auto& [key, sample] : samples) {
    const auto& [name, signature] = key;
    const auto cls = classes.find(signature);
    if (cls == classes.end()) continue;  // only in records a conflict set aside
    const FailureClass* f = cls->second;
    GateCase& c = cases[name];
    const bool noted = signature.is_outlier();
    GateFailure g{signature,      !noted && !f->known_as,
                  static_cast<int64_t>(sample->seed), sample->variant, sample->binding, sample->message,
                  f->saved_in.empty() ? "" : (out / "failures" / fs::path(f->saved_in).filename()).string(),
                  fmt::format("difftest --seed {}{}", sample->seed, inject_flags(index.faults))};
    (noted ? c.noted : g.fresh ? c.fresh : c.known).push_back(signature);
    c.failures.push_back(std::move(g));
    r.seen.insert(signature);
  }
  for (auto& [name, c] : cases) {
    c.suite = "seeds";
    c.name = "shard " + name;
    std::vector<std::string> kinds;
    for (const auto& [kind, n] : counts[name]) kinds.push_back(fmt::format("{} {}", kind, n));
    c.detail = fmt::format("{}", fmt::join(kinds, ", "));
    r.cases.push_back(std::move(c));
  }
  return r;
}

// The shards' reductions of the reproducers merged, their directories renamed into OUT.
nlohmann::json merged_reductions(const std::map<int32_t, fs::path>& sources, const CampaignIndex& index,
                                 const fs::path& out, std::vector<std::string>& notes) {
  nlohmann::json all = nlohmann::json::array();
  std::map<std::string, fs::path> source_of;  // signature -> the reproducer copied
  for (const auto& [sig, dir] : sources) source_of[index.signatures[static_cast<size_t>(sig)].str()] = dir;
  for (const auto& shard : index.shards) {
    const fs::path file = fs::path(shard.dir) / "reductions.json";
    std::error_code ec;
    if (!fs::exists(file, ec)) continue;
    nlohmann::json j;
    try {
      j = read_json_file(file.string());
    } catch (const UserError& e) {
      notes.push_back(fmt::format("{}: skipped", e.what()));
      continue;
    }
    if (!j.is_array()) {
      notes.push_back(fmt::format("{}: not a list of reductions: skipped", file.string()));
      continue;
    }
    for (auto r : j) {
      if (!r.is_object() || !r.contains("signature") || !r["signature"].is_string()) continue;
      const auto src = source_of.find(r["signature"].get<std::string>());
      if (src == source_of.end() || src->second.parent_path().parent_path() != fs::path(shard.dir)) continue;
      if (r.value("dir", std::string()) != "") {
        r["dir"] = (out / "failures" / src->second.filename() / "reduced").string();
      }
      all.push_back(std::move(r));
    }
  }
  return all;
}

// The shards' coverage maps (DIR/coverage.json) summed, when every shard has one.
std::optional<nlohmann::json> merged_coverage(const CampaignIndex& index, std::vector<std::string>& notes) {
  nlohmann::json sum;
  for (const auto& shard : index.shards) {
    const fs::path file = fs::path(shard.dir) / "coverage.json";
    std::error_code ec;
    if (!fs::exists(file, ec)) return std::nullopt;
    nlohmann::json j;
    try {
      j = read_json_file(file.string());
    } catch (const UserError& e) {
      notes.push_back(fmt::format("{}: its coverage is not merged", e.what()));
      return std::nullopt;
    }
    if (sum.is_null()) sum = nlohmann::json{{"programs", 0}, {"calls", 0}};
    for (const char* count : {"programs", "calls"}) sum[count] = sum[count].get<int64_t>() + j.value(count, int64_t{0});
    for (const char* map : {"cells", "ops", "attribute_classes", "shape_classes", "constant_values", "result_dtypes",
                            "exercised"}) {
      if (!j.contains(map) || !j[map].is_object()) continue;
      nlohmann::json& into = sum[map];
      if (!into.is_object()) into = nlohmann::json::object();
      for (const auto& [key, n] : j[map].items()) {
        if (n.is_number()) into[key] = into.value(key, int64_t{0}) + n.get<int64_t>();
      }
    }
  }
  if (sum.is_null()) return std::nullopt;
  sum["distinct_cells"] = sum.contains("cells") ? sum["cells"].size() : 0;
  sum["merged_from_shards"] = index.shards.size();  // growth curves are per shard: not merged
  return sum;
}

// OUT may be absent, empty or an earlier merge's: anything else would be lost.
void require_replaceable(const fs::path& out, const std::vector<std::string>& dirs) {
  std::error_code ec;
  for (const auto& d : dirs) {
    if (fs::exists(d, ec) && fs::exists(out, ec) && fs::equivalent(d, out, ec)) {
      throw UserError(ErrorKind::Usage, fmt::format("--out {} is one of the shards being merged", out.string()));
    }
  }
  if (!fs::exists(out, ec)) return;
  if (!fs::is_directory(out, ec)) throw UserError(ErrorKind::Usage, fmt::format("--out {} is not a directory", out.string()));
  if (fs::is_empty(out, ec)) return;
  const fs::path config = out / "campaign.json";
  bool merged = false;
  if (fs::exists(config, ec)) {
    std::ifstream in(config);
    const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    merged = j.is_object() && j.contains("merged_from");
  }
  if (!merged) {
    throw UserError(ErrorKind::Usage,
                    fmt::format("--out {} holds something other than an earlier merge: choose an empty directory",
                                out.string()));
  }
}

}  // namespace

std::vector<FailureClass> failure_classes(const CampaignIndex& index, const KnownAs& known_as) {
  const std::vector<double> at = sorted_times(index);
  const double start = at.empty() ? 0 : at.front();
  std::vector<FailureClass> classes(index.signatures.size());
  std::vector<std::set<uint16_t>> shards(index.signatures.size());
  std::vector<double> first_at(index.signatures.size(), std::nan(""));
  for (const auto& e : index.entries) {
    if (e.signature < 0) continue;
    const auto sig = static_cast<size_t>(e.signature);
    FailureClass& f = classes[sig];
    if (f.programs == 0) {
      f.signature = index.signatures[sig];
      f.kind = index.kinds[sig];
      f.first_seed = e.seed;
      f.attributable = false;
    }
    ++f.programs;
    f.seeds.push_back(e.seed);
    f.attributable = f.attributable || e.attributable != 0;
    shards[sig].insert(e.shard);
    if (!std::isnan(e.at) && !(e.at >= first_at[sig])) first_at[sig] = e.at;
  }
  std::vector<FailureClass> out;
  for (size_t sig = 0; sig < classes.size(); ++sig) {
    FailureClass& f = classes[sig];
    if (f.programs == 0) continue;  // every program that showed it was a conflict's loser
    std::set<std::string> names;  // a shard given as two directories (a copy, a resumed one) once
    for (const uint16_t s : shards[sig]) names.insert(shard_name(index.shards[s]));
    f.shards.assign(names.begin(), names.end());
    std::sort(f.shards.begin(), f.shards.end(), shard_before);
    if (!std::isnan(first_at[sig])) {
      f.found_after_seconds = first_at[sig] - start;
      f.found_after_programs = std::upper_bound(at.begin(), at.end(), first_at[sig]) - at.begin();
    }
    if (known_as) {
      if (const auto match = known_as(f.signature)) {
        f.known_as = match->root_cause;
        f.known_under_other_pipeline = match->other_pipeline;
      }
    }
    out.push_back(std::move(f));
  }
  std::sort(out.begin(), out.end(), [](const FailureClass& a, const FailureClass& b) { return a.first_seed < b.first_seed; });
  return out;
}

CampaignSummary summarize_index(const CampaignIndex& index, const KnownAs& known_as) {
  CampaignSummary s;
  std::vector<std::pair<double, uint64_t>> excesses;
  excesses.reserve(index.entries.size());
  double first = std::nan(""), last = std::nan("");
  for (const auto& e : index.entries) {
    ++s.status.done;
    ++s.status.counts[index.verdicts[e.verdict]];
    s.status.elements += e.elements;
    s.status.elements_checked += e.elements_checked;
    s.status.refuted_timeouts += e.refuted_timeouts;
    if (std::isfinite(e.worst_excess)) excesses.emplace_back(e.worst_excess, e.seed);
    s.times.generate += e.stage_ms[0];
    s.times.reference += e.stage_ms[1];
    s.times.compile += e.stage_ms[2];
    s.times.run += e.stage_ms[3];
    s.times.compare += e.stage_ms[4];
    if (!std::isnan(e.at)) {
      if (!(e.at >= first)) first = e.at;
      if (!(e.at <= last)) last = e.at;
    }
  }
  s.status.total = s.status.done;
  s.status.elapsed = std::isnan(first) ? 0 : last - first;
  s.checked = s.status.done;
  s.excess = ExcessSummary::of(std::move(excesses));
  s.failures = failure_classes(index, known_as);
  s.journal_notes = index.notes;
  s.shards = index.shards.size();
  return s;
}

MergeResult merge_campaigns(const MergeOptions& o) {
  if (o.dirs.empty()) throw UserError(ErrorKind::Usage, "merge: give the shards' directories");
  if (o.out_dir.empty()) throw UserError(ErrorKind::Usage, "merge: --out DIR is required");
  const fs::path out = fs::absolute(o.out_dir).lexically_normal();
  require_replaceable(out, o.dirs);
  require_writable_dir(out.parent_path().string(), "--out");
  const CampaignIndex index = CampaignIndex::read(o.dirs);
  const fs::path tmp = out.parent_path() / fmt::format(".{}.merging{}", out.filename().string(), ::getpid());
  std::error_code ec;
  fs::remove_all(tmp, ec);
  fs::create_directories(tmp / "failures", ec);
  if (ec) throw UserError(ErrorKind::Io, fmt::format("--out: cannot create '{}': {}", tmp.string(), ec.message()));
  try {
    MergeResult r;
    r.summary = summarize_index(index, o.known_as);
    r.duplicates = index.duplicates;
    r.conflicts = index.conflicts;
    r.shards = index.shards;
    {  // The journal, one line per seed in seed order, as the shards wrote it.
      JournalLines lines(index);
      const std::string path = (tmp / "journal.jsonl").string();
      const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (fd < 0) throw UserError(ErrorKind::Io, fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
      const auto flush = [&](std::string& buffer) {
        if (!write_all(fd, buffer)) throw UserError(ErrorKind::Io, fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
        buffer.clear();
      };
      std::string buffer;
      for (const auto& e : index.entries) {
        buffer += lines.line(e);
        buffer += '\n';
        if (buffer.size() > (1u << 20)) flush(buffer);
      }
      flush(buffer);
      ::close(fd);
    }
    const auto sources = reproducer_sources(index);
    std::map<Signature, fs::path> saved;
    for (const auto& [sig, dir] : sources) {
      fs::copy(dir, tmp / "failures" / dir.filename(), fs::copy_options::recursive, ec);
      if (ec) {
        r.summary.journal_notes.push_back(fmt::format("cannot copy {}: {}", dir.string(), ec.message()));
        ec.clear();
        continue;
      }
      saved[index.signatures[static_cast<size_t>(sig)]] = out / "failures" / dir.filename();
    }
    for (auto& f : r.summary.failures) {
      const auto it = saved.find(f.signature);
      if (it != saved.end()) f.saved_in = it->second.string();
    }
    const nlohmann::json reductions = merged_reductions(sources, index, out, r.summary.journal_notes);
    if (!reductions.empty()) write_file_atomic((tmp / "reductions.json").string(), reductions.dump(2) + "\n");
    if (const auto coverage = merged_coverage(index, r.summary.journal_notes)) {
      write_file_atomic((tmp / "coverage.json").string(), coverage->dump(1) + "\n");
      r.summary.coverage_cells = (*coverage)["distinct_cells"].get<size_t>();
    }
    r.gate = gate_of(index, r.summary, out);
    r.gate.notes = r.summary.journal_notes;
    nlohmann::json identity = index.identity;
    if (identity.is_object()) identity["shard"] = "merged";
    nlohmann::json from = nlohmann::json::array();
    for (const auto& s : index.shards) from.push_back({{"dir", s.dir}, {"shard", s.shard}, {"records", s.lines}});
    write_file_atomic((tmp / "campaign.json").string(),
                      nlohmann::json{{"identity", identity}, {"merged_from", from}}.dump(2) + "\n");
    nlohmann::json summary = r.summary.to_json();
    summary["duplicates"] = r.duplicates;
    summary["conflicts"] = r.conflicts;
    summary["merged_from"] = from;
    write_file_atomic((tmp / "summary.json").string(), summary.dump(2) + "\n");
    write_file_atomic((tmp / "gate.json").string(), gate_json(r.gate, {}).dump(2) + "\n");
    write_file_atomic((tmp / "gate.xml").string(), gate_junit(r.gate));
    fs::remove_all(out, ec);
    if (ec) throw UserError(ErrorKind::Io, fmt::format("--out: cannot replace '{}': {}", out.string(), ec.message()));
    fs::rename(tmp, out, ec);
    if (ec) throw UserError(ErrorKind::Io, fmt::format("--out: cannot rename '{}' to '{}': {}", tmp.string(), out.string(), ec.message()));
    return r;
  } catch (...) {
    fs::remove_all(tmp, ec);
    throw;
  }
}

std::string format_merge(const MergeResult& r) {
  std::string out;
  int64_t records = 0;
  for (const auto& s : r.shards) records += s.lines;
  out += fmt::format("merged {} shard{} ({} records): {} programs, {} journaled twice with one verdict, {} conflicts\n",
                     r.shards.size(), r.shards.size() == 1 ? "" : "s", records, r.summary.status.done, r.duplicates,
                     r.conflicts);
  for (const auto& s : r.shards) {
    out += fmt::format("  {:<8} {:>8} records  {}\n", s.shard.empty() ? "?" : s.shard, s.lines, s.dir);
  }
  return out + format_summary(r.summary);
}

}  // namespace difftest::oracle
