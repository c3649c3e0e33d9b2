#include "oracle/gate.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "compiler/faults/faults.h"
#include "compiler/ir/diagnostics.h"
#include "compiler/tensor/npy.h"
#include "oracle/corpus.h"
#include "oracle/json_file.h"

namespace difftest::oracle {

namespace fs = std::filesystem;

namespace {

// The timeout of a corpus entry's run with its faults on when it expects a timeout.
constexpr double kExpectedHangSeconds = 5;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The distinct signatures of a verdict's failing variants, in variant order.
std::vector<std::string> failure_signatures(const Verdict& v) {
  std::vector<std::string> out;
  for (const auto& var : v.variants) {
    if (!is_failure(var.kind)) continue;
    const std::string s = var.signature();
    if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  }
  return out;
}

void sort_into(GateCase& c, const std::string& signature, const GateOptions& o) {
  auto& list = o.baseline.count(signature) ? c.known : c.fresh;
  if (std::find(list.begin(), list.end(), signature) == list.end()) list.push_back(signature);
}

GateCase check_entry(const std::string& file, const GateOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  const CorpusEntry e = read_corpus_entry(file);
  GateCase c;
  c.suite = "corpus";
  c.name = file;
  const CheckOptions check = entry_checks(e, o.campaign.check);
  const Verdict clean = check_program(e.program, check);
  for (const auto& s : failure_signatures(clean)) sort_into(c, s, o);
  c.detail = fmt::format("{} variants: {}", clean.variants.size(), verdict_kind_name(clean.overall()));
  if (!e.faults.empty()) {
    const faults::ScopedFaults on(e.faults);
    // An expected hang shows under any timeout, and each hanging pipeline costs the whole of it:
    // a generous timeout chosen for slow compiles would make this run minutes long.
    CheckOptions with_faults = check;
    if (signature_kind(e.expect) == verdict_kind_name(VerdictKind::Timeout)) {
      with_faults.limits.timeout_seconds = std::min(with_faults.limits.timeout_seconds, kExpectedHangSeconds);
    }
    const std::vector<std::string> shown = failure_signatures(check_program(e.program, with_faults));
    const bool detected = std::find(shown.begin(), shown.end(), e.expect) != shown.end();
    c.detail += fmt::format("; with {}: {}", fmt::join(e.faults, ", "),
                            shown.empty() ? std::string("no failure") : fmt::format("{}", fmt::join(shown, "; ")));
    if (!detected) sort_into(c, fmt::format("lost-detection|{}|{}", fs::path(file).filename().string(), e.expect), o);
  }
  c.seconds = seconds_since(t0);
  return c;
}

void run_seeds(const GateOptions& o, GateResult& r) {
  const CampaignOptions& c = o.campaign;
  fs::remove_all(c.out_dir);  // the gate's own directory: every run starts afresh
  const CampaignSummary s = run_campaign(c);
  r.programs = s.status.done;
  r.seed_counts = s.status.counts;
  std::map<uint64_t, GateCase> batches;
  std::map<uint64_t, std::map<std::string, int64_t>> kinds;
  for (const auto& rec : read_campaign_journal(c.out_dir)) {
    const uint64_t seed = rec.at("seed").get<uint64_t>();
    const uint64_t k = (seed - c.first_seed) / static_cast<uint64_t>(o.batch);
    GateCase& b = batches[k];
    ++kinds[k][rec.value("verdict", "?")];
    if (rec.contains("signature")) sort_into(b, rec.at("signature").get<std::string>(), o);
    if (rec.contains("times")) {
      for (const auto& [stage, ms] : rec.at("times").items()) b.seconds += ms.get<double>() / 1000;
    }
  }
  for (auto& [k, b] : batches) {
    const uint64_t lo = c.first_seed + k * static_cast<uint64_t>(o.batch);
    b.suite = "seeds";
    b.name = fmt::format("seeds {}..{}", lo, lo + static_cast<uint64_t>(o.batch) - 1);
    std::vector<std::string> counts;
    for (const auto& [kind, n] : kinds[k]) counts.push_back(fmt::format("{} {}", kind, n));
    b.detail = fmt::format("{}", fmt::join(counts, ", "));
    r.cases.push_back(std::move(b));
  }
}

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char ch : s) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += ch;
    }
  }
  return out;
}

}  // namespace

std::set<std::string> GateResult::fresh() const {
  std::set<std::string> out;
  for (const auto& c : cases) out.insert(c.fresh.begin(), c.fresh.end());
  return out;
}

std::set<std::string> GateResult::absent(const std::set<std::string>& baseline) const {
  std::set<std::string> out;
  for (const auto& s : baseline) {
    if (!seen.count(s)) out.insert(s);
  }
  return out;
}

GateResult run_gate(const GateOptions& o) {
  if (o.batch < 1) throw UserError(ErrorKind::Usage, "--batch: must be at least 1");
  const auto t0 = std::chrono::steady_clock::now();
  GateResult r;
  if (!o.corpus.empty()) {
    const std::vector<std::string> files = corpus_files(o.corpus);
    for (size_t i = 0; i < files.size(); ++i) {
      if (i % o.campaign.shard.count != o.campaign.shard.index) continue;
      r.cases.push_back(check_entry(files[i], o));
      if (o.fail_fast && !r.cases.back().passed()) break;
    }
  }
  if (o.runs_seeds() && !(o.fail_fast && !r.fresh().empty())) run_seeds(o, r);
  for (const auto& c : r.cases) {
    r.seen.insert(c.fresh.begin(), c.fresh.end());
    r.seen.insert(c.known.begin(), c.known.end());
  }
  r.seconds = seconds_since(t0);
  return r;
}

std::set<std::string> read_baseline(const std::string& path) {
  const nlohmann::json j = read_json_file(path);
  const auto bad = [&](const std::string& why) {
    return UserError(ErrorKind::Syntax, fmt::format("{}: {} (a baseline is {{\"difftest_baseline\": 1, \"signatures\": "
                                                    "[\"...\"]}}, written by --update-baseline)",
                                                    path, why));
  };
  if (!j.is_object() || !j.contains("signatures") || !j["signatures"].is_array()) {
    throw bad("no \"signatures\" list");
  }
  std::set<std::string> out;
  for (const auto& s : j["signatures"]) {
    if (!s.is_string()) throw bad("a signature is not a string");
    out.insert(s.get<std::string>());
  }
  return out;
}

void write_baseline(const std::string& path, const std::set<std::string>& signatures) {
  const nlohmann::json j{{"difftest_baseline", 1}, {"signatures", signatures}};
  write_file_atomic(path, j.dump(2) + "\n");
}

std::string format_gate(const GateResult& r, const std::set<std::string>& baseline) {
  std::string out;
  for (const auto& c : r.cases) {
    out += fmt::format("{:<5} {} ({:.1f} s): {}\n", c.passed() ? (c.known.empty() ? "ok" : "known") : "NEW", c.name,
                       c.seconds, c.detail);
    for (const auto& s : c.fresh) out += fmt::format("        new:   {}\n", s);
    for (const auto& s : c.known) out += fmt::format("        known: {}\n", s);
  }
  if (r.programs > 0) {
    std::vector<std::string> counts;
    for (const auto& [kind, n] : r.seed_counts) counts.push_back(fmt::format("{} {}", kind, n));
    out += fmt::format("seeds: {} programs ({})\n", r.programs, fmt::join(counts, ", "));
  }
  const std::set<std::string> fresh = r.fresh(), absent = r.absent(baseline);
  out += fmt::format("gate: {} in {:.1f} s: {} new signature{}, {} known seen, {} known not seen\n",
                     r.passed() ? "passed" : "FAILED", r.seconds, fresh.size(), fresh.size() == 1 ? "" : "s",
                     r.seen.size() - fresh.size(), absent.size());
  for (const auto& s : fresh) out += fmt::format("  new: {}\n", s);
  return out;
}

std::string gate_junit(const GateResult& r) {
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  int failures = 0;
  for (const auto& c : r.cases) failures += !c.passed();
  out += fmt::format("<testsuites name=\"difftest gate\" tests=\"{}\" failures=\"{}\" time=\"{:.3f}\">\n", r.cases.size(),
                     failures, r.seconds);
  for (const char* suite : {"corpus", "seeds"}) {
    std::vector<const GateCase*> in;
    for (const auto& c : r.cases) {
      if (c.suite == suite) in.push_back(&c);
    }
    if (in.empty()) continue;
    int failed = 0;
    double seconds = 0;
    for (const auto* c : in) {
      failed += !c->passed();
      seconds += c->seconds;
    }
    out += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" time=\"{:.3f}\">\n", suite, in.size(),
                       failed, seconds);
    for (const auto* c : in) {
      out += fmt::format("    <testcase classname=\"difftest.{}\" name=\"{}\" time=\"{:.3f}\"", suite, xml_escape(c->name),
                         c->seconds);
      if (c->passed() && c->known.empty()) {
        out += "/>\n";
        continue;
      }
      out += ">\n";
      if (!c->passed()) {
        out += fmt::format("      <failure type=\"new_signature\" message=\"{}\">{}</failure>\n",
                           xml_escape(fmt::format("{} new failure signature(s): {}", c->fresh.size(),
                                                  fmt::join(c->fresh, "; "))),
                           xml_escape(c->detail));
      }
      if (!c->known.empty()) {
        out += fmt::format("      <system-out>{}</system-out>\n",
                           xml_escape(fmt::format("known (in the baseline): {}", fmt::join(c->known, "; "))));
      }
      out += "    </testcase>\n";
    }
    out += "  </testsuite>\n";
  }
  out += "</testsuites>\n";
  return out;
}

nlohmann::json gate_json(const GateResult& r, const std::set<std::string>& baseline) {
  nlohmann::json cases = nlohmann::json::array();
  for (const auto& c : r.cases) {
    cases.push_back({{"suite", c.suite},
                     {"name", c.name},
                     {"passed", c.passed()},
                     {"seconds", c.seconds},
                     {"new", c.fresh},
                     {"known", c.known},
                     {"detail", c.detail}});
  }
  const std::set<std::string> fresh = r.fresh();
  std::set<std::string> known_seen;
  for (const auto& s : r.seen) {
    if (!fresh.count(s)) known_seen.insert(s);
  }
  return {{"passed", r.passed()},       {"seconds", r.seconds},         {"new", fresh},
          {"known_seen", known_seen},   {"known_absent", r.absent(baseline)}, {"programs", r.programs},
          {"seed_counts", r.seed_counts}, {"cases", cases}};
}

}  // namespace difftest::oracle
