#include "oracle/gate/gate.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "compiler/support/diagnostics.h"
#include "compiler/tensor/npy.h"
#include "oracle/gate/corpus.h"
#include "oracle/io/json_file.h"
#include "oracle/isolate/clock.h"
#include "reference/summary.h"

namespace difftest::oracle {

namespace fs = std::filesystem;

namespace {

constexpr int kBaselineVersion = 1;

// The CPU budget of a corpus entry's run with its faults on when it expects a timeout.
constexpr double kExpectedHangSeconds = 1;

// Records `f` in `c` (once per signature, variant and binding): fresh or known by the baseline.
void sort_into(GateCase& c, GateFailure f, const GateOptions& o) {
  const bool noted = !o.fail_on_outliers && f.signature.is_outlier();
  f.fresh = !noted && !o.baseline.count(f.signature);
  auto& list = noted ? c.noted : f.fresh ? c.fresh : c.known;
  if (std::find(list.begin(), list.end(), f.signature) == list.end()) list.push_back(f.signature);
  const bool seen = std::any_of(c.failures.begin(), c.failures.end(), [&](const GateFailure& g) {
    return g.signature == f.signature && g.seed == f.seed && g.variant == f.variant && g.binding == f.binding;
  });
  if (!seen) c.failures.push_back(std::move(f));
}


GateCase check_entry(const std::string& file, const GateOptions& o, const Deadline& deadline) {
  const auto t0 = std::chrono::steady_clock::now();
  DT_CHECK(o.corpus_compiler != nullptr, "a gate with a corpus but no GateOptions::corpus_compiler");
  const CorpusEntry e = read_corpus_entry(file, *o.corpus_compiler);
  GateCase c;
  c.suite = "corpus";
  c.name = file;
  CheckOptions check = entry_checks(e, o.campaign.check);
  check.limits.deadline = deadline;
  // The command that shows a variant's failure again: a pass list that is not a named
  // pipeline is spelt out.
  const std::string backend = check.under_test().name() == "builtin" ? "" : " --backend " + check.under_test().name();
  const auto rerun = [&](const VariantVerdict& v) {
    const std::string passes =
        v.variant.tested.records_steps() ? " " + check.under_test().replay_flags(v.variant.tested) : backend;
    return fmt::format("difftest run {}{}{}{}", file, passes, check.under_test().target_flag(),
                       inject_flags(o.campaign.faults));
  };
  const Verdict clean = check_program(e.program, check);
  // An entry of the compiler under test expects that compiler's own bugs: they are not failures.
  const bool its_bugs = !e.compiler.empty() && e.compiler == check.under_test().name();
  const auto known_bug = [&](const Signature& s) {
    return its_bugs && std::find(e.known_bugs.begin(), e.known_bugs.end(), s) != e.known_bugs.end();
  };
  // An entry that expects ok is not ok where an output went unchecked.
  for (const auto& v : clean.variants) {
    if ((is_failure(v.kind) || v.kind == VerdictKind::Unchecked) && !known_bug(v.signature())) {
      sort_into(c, GateFailure{v.signature(), false, -1, v.variant.name(), v.binding, v.message, file, rerun(v)}, o);
    }
  }
  c.detail = fmt::format("{} variants: {}", clean.variants.size(), verdict_kind_name(clean.overall()));
  if (its_bugs && !clean.cancelled) {
    const std::vector<Signature> shown = clean.failure_signatures();
    std::vector<Signature> gone;
    for (const Signature& s : e.known_bugs) {
      if (std::find(shown.begin(), shown.end(), s) == shown.end()) gone.push_back(s);
    }
    c.detail += fmt::format("; {} of its {} known {} bugs shown", e.known_bugs.size() - gone.size(),
                            e.known_bugs.size(), e.compiler);
    for (const Signature& s : gone) c.detail += fmt::format("; {} no longer shows {}", e.compiler, s.str());
    if (!gone.empty()) c.detail += ": fixed or changed upstream (update the entry)";
    for (const Signature& s : gone) {
      sort_into(c,
                GateFailure{lost_detection_signature(fs::path(file).filename().string(), s),
                            false,
                            -1,
                            "",
                            {},
                            fmt::format("{} no longer shows {}: fixed or changed upstream (update the entry)",
                                        check.under_test().identity(), s.str()),
                            file,
                            fmt::format("difftest run {}{}", file, backend)},
                o);
    }
  } else if (!e.compiler.empty()) {
    c.detail += fmt::format("; its expected failures are {}'s", e.compiler);
  }
  // An entry's faults are planted in the builtin compiler: another compiler under test is held
  // to the entry's clean half only.
  const PlantedFaults* planted = check.under_test().planted_faults();
  const bool takes_faults = planted != nullptr;
  if (e.expect && !takes_faults)
    c.detail += fmt::format("; its faults ({}) are the builtin compiler's", fmt::join(e.faults, ", "));
  if (e.expect && !clean.cancelled && takes_faults) {
    // An expected hang shows under any budget, and each hanging pipeline costs all of it (and
    // its confirming rerun): a generous budget chosen for slow compiles would make this long.
    CheckOptions with_faults = check;
    with_faults.compiler = &planted->with(e.faults);
    if (e.expect->is_timeout()) {
      with_faults.limits.cpu_seconds = std::min(with_faults.limits.cpu_seconds, kExpectedHangSeconds);
    }
    const Verdict faulty = check_program(e.program, with_faults);
    const std::vector<Signature> shown = faulty.failure_signatures();
    const bool detected = std::find(shown.begin(), shown.end(), *e.expect) != shown.end();
    std::vector<std::string> shown_text;
    for (const auto& sig : shown) shown_text.push_back(sig.str());
    c.detail += fmt::format("; with {}: {}", fmt::join(e.faults, ", "),
                            shown.empty() ? std::string("no failure") : fmt::format("{}", fmt::join(shown_text, "; ")));
    if (!detected && !faulty.cancelled) {
      sort_into(
          c,
          GateFailure{lost_detection_signature(fs::path(file).filename().string(), *e.expect),
                      false,
                      -1,
                      "",
                      {},
                      fmt::format("with {} on, {} is no longer shown", fmt::join(e.faults, ", "), e.expect->str()),
                      file,
                      fmt::format("difftest run {}{}", file, inject_flags(e.faults))},
          o);
    }
    c.skipped = faulty.cancelled;
  }
  c.skipped = c.skipped || clean.cancelled;
  if (c.skipped) c.detail = "not checked: the budget ran out";
  c.seconds = seconds_since(t0);
  return c;
}

// The reproducer directory a campaign saved for each signature.
std::map<Signature, std::string> saved_reproducers(const CampaignSummary& s) {
  std::map<Signature, std::string> out;
  for (const auto& f : s.failures) out[f.signature] = f.saved_in;
  return out;
}

void run_seeds(const GateOptions& o, const Deadline& deadline, GateResult& r,
               const std::function<void(const CampaignStatus&)>& on_status) {
  CampaignOptions c = o.campaign;
  if (deadline) {
    c.time_limit = seconds_left(deadline);
    if (c.time_limit <= 0) {
      r.notes.push_back("the budget ran out before the seeds: none was checked");
      if (!c.unbounded) r.seeds_not_reached = static_cast<int64_t>(c.last_seed - c.first_seed + 1);
      return;
    }
  }
  std::error_code ec;
  fs::remove_all(c.out_dir, ec);  // the gate's own directory: every run starts afresh
  if (ec) throw UserError(ErrorKind::Io, fmt::format("--out: cannot clear '{}': {}", c.out_dir, ec.message()));
  std::vector<SeedRecord> records;
  const CampaignSummary s = run_campaign(c, on_status, [&](const SeedRecord& rec) { records.push_back(rec); });
  r.programs = s.status.done;
  r.seed_counts = s.status.counts;
  r.seed_status = s.status;
  if (s.nothing_supported()) {
    r.nothing_supported = true;
    r.notes.push_back(fmt::format("every one of the {} seeds was unsupported by {}: nothing was checked (a failure)",
                                  s.status.done, c.check.under_test().identity()));
  }
  if (s.status.total >= 0) {
    r.seeds_not_reached = s.status.total - s.status.done;
    if (r.seeds_not_reached > 0) {
      r.notes.push_back(
          fmt::format("the budget ran out after {} of {} seeds: {} not checked (they do not fail the gate)",
                      s.status.done, s.status.total, r.seeds_not_reached));
    }
  }
  // In seed order, not the order the workers finished in: the same run reads the same.
  std::sort(records.begin(), records.end(), [](const SeedRecord& a, const SeedRecord& b) { return a.seed < b.seed; });
  const auto reproducers = saved_reproducers(s);
  std::map<uint64_t, GateCase> batches;
  std::map<uint64_t, std::map<std::string, int64_t>> kinds;
  for (const SeedRecord& rec : records) {
    const uint64_t seed = rec.seed;
    const uint64_t k = (seed - c.first_seed) / static_cast<uint64_t>(o.batch);
    GateCase& b = batches[k];
    ++kinds[k][rec.verdict_name()];
    const std::string rerun = fmt::format("difftest --seed {}{}", seed, inject_flags(c.faults));
    const auto add = [&](const Signature& signature, const std::string& variant, const sym::Env& binding,
                         const std::string& message) {
      const auto saved = reproducers.find(signature);
      sort_into(b,
                GateFailure{signature, false, static_cast<int64_t>(seed), variant, binding, message,
                            saved == reproducers.end() ? "" : saved->second, rerun},
                o);
    };
    if (rec.detail) {
      for (const auto& var : rec.detail->variants) {
        if (c.counts_against(var)) add(var.signature(), var.variant.name(), var.binding, var.message);
      }
    } else if (rec.signature) {  // a harness error: no variants
      add(*rec.signature, "", {}, rec.message);
    }
    if (rec.times) {
      const StageTimes& t = *rec.times;
      b.seconds += (t.generate + t.reference + t.compile + t.run + t.compare) / 1000;
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

// Signatures in text form, in the order given (a set of them is in the order of their text).
template <typename Signatures>
std::vector<std::string> texts(const Signatures& signatures) {
  std::vector<std::string> out;
  for (const auto& s : signatures) out.push_back(s.str());
  return out;
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

std::string inject_flags(const std::vector<std::string>& faults) {
  std::string out;
  for (const auto& f : faults) out += " --inject " + f;
  return out;
}

std::set<Signature> GateResult::fresh() const {
  std::set<Signature> out;
  for (const auto& c : cases) out.insert(c.fresh.begin(), c.fresh.end());
  return out;
}

std::set<Signature> GateResult::absent(const std::set<Signature>& baseline) const {
  std::set<Signature> out;
  for (const auto& s : baseline) {
    if (!seen.count(s)) out.insert(s);
  }
  return out;
}

int GateResult::corpus_skipped() const {
  return static_cast<int>(
      std::count_if(cases.begin(), cases.end(), [](const GateCase& c) { return c.suite == "corpus" && c.skipped; }));
}

std::string format_gate_progress(const GateProgress& p) {
  const std::string clock =
      format_duration(p.elapsed) + (p.budget > 0 ? " of " + format_duration(p.budget) : std::string());
  if (p.seeds) return fmt::format("gate: seeds {}  ({})", format_progress(*p.seeds, 0), clock);
  return fmt::format("gate: corpus {}/{}  {}  {}", p.corpus_done, p.corpus_total, clock, p.entry);
}

GateResult run_gate(const GateOptions& o, const std::function<void(const GateProgress&)>& on_progress) {
  if (o.batch < 1) throw UserError(ErrorKind::Usage, "--batch: must be at least 1");
  const auto t0 = std::chrono::steady_clock::now();
  const Deadline deadline = deadline_in(o.campaign.time_limit);
  GateResult r;
  r.notes = o.notes;
  GateProgress progress;
  progress.budget = o.campaign.time_limit;
  const auto report = [&] {
    progress.elapsed = seconds_since(t0);
    if (on_progress) on_progress(progress);
  };
  if (!o.corpus.empty()) {
    std::vector<std::string> files;
    const std::vector<std::string> all = corpus_files(o.corpus);
    for (size_t i = 0; i < all.size(); ++i) {
      if (i % o.campaign.shard.count == o.campaign.shard.index) files.push_back(all[i]);
    }
    progress.corpus_total = files.size();
    for (const auto& file : files) {
      progress.entry = file;
      report();
      if (passed(deadline)) {
        GateCase skipped{"corpus", file, 0, {}, {}, {}, {}, "not checked: the budget ran out", true};
        r.cases.push_back(std::move(skipped));
        continue;
      }
      r.cases.push_back(check_entry(file, o, deadline));
      ++progress.corpus_done;
      if (o.fail_fast && !r.cases.back().passed()) break;
    }
    if (const int skipped = r.corpus_skipped()) {
      r.notes.push_back(
          fmt::format("the budget ran out during the corpus: {} of {} entries not checked; the gate fails "
                      "(raise --budget)",
                      skipped, files.size()));
    }
  }
  progress.entry.clear();
  if (o.runs_seeds() && !(o.fail_fast && !r.passed())) {
    run_seeds(o, deadline, r, [&](const CampaignStatus& s) {
      progress.seeds = &s;
      report();
      progress.seeds = nullptr;
    });
  }
  for (const auto& c : r.cases) {
    r.seen.insert(c.fresh.begin(), c.fresh.end());
    r.seen.insert(c.known.begin(), c.known.end());
  }
  r.seconds = seconds_since(t0);
  return r;
}

std::set<Signature> read_baseline(const std::string& path) {
  const nlohmann::json j = read_json_file(path);
  const auto bad = [&](const std::string& why) {
    return UserError(ErrorKind::Syntax,
                     fmt::format("{}: {} (a baseline is {{\"difftest_baseline\": {}, \"signatures\": "
                                 "[\"...\"]}}, written by --update-baseline)",
                                 path, why, kBaselineVersion));
  };
  if (!j.is_object()) throw bad("not a JSON object");
  for (const auto& [key, value] : j.items()) {
    if (key != "difftest_baseline" && key != "signatures") throw bad(fmt::format("unknown key \"{}\"", key));
  }
  if (!j.contains("difftest_baseline")) throw bad("no \"difftest_baseline\" version key");
  if (j["difftest_baseline"] != kBaselineVersion) {
    throw bad(fmt::format("\"difftest_baseline\" is {}; this difftest reads version {}", j["difftest_baseline"].dump(),
                          kBaselineVersion));
  }
  if (!j.contains("signatures") || !j["signatures"].is_array()) throw bad("no \"signatures\" list");
  std::set<Signature> out;
  for (size_t i = 0; i < j["signatures"].size(); ++i) {
    const auto& s = j["signatures"][i];
    if (!s.is_string()) throw bad(fmt::format("\"signatures\"[{}] is not a string", i));
    const std::string text = s.get<std::string>();
    const std::optional<Signature> sig = Signature::parse(text);
    const auto k = sig ? verdict_kind_from_name(sig->kind) : std::nullopt;
    // An unchecked output of an entry that expects ok, and an outlier under --fail-on outlier,
    // fail a gate too: --update-baseline writes them, so they are read back.
    const bool gating_kind = k && (is_failure(*k) || *k == VerdictKind::Unchecked || *k == VerdictKind::Outlier);
    const bool known_kind = sig && (gating_kind || sig->kind == kHarnessError || sig->kind == kLostDetection);
    if (!known_kind) {
      throw bad(fmt::format("\"signatures\"[{}] '{}' is not a failure signature (kind|pipeline|stage|what)", i, text));
    }
    out.insert(*sig);
  }
  return out;
}

void write_baseline(const std::string& path, const std::set<Signature>& signatures) {
  const nlohmann::json j{{"difftest_baseline", kBaselineVersion}, {"signatures", texts(signatures)}};
  write_file_atomic(path, j.dump(2) + "\n");
}

nlohmann::json GateFailure::to_json() const {
  nlohmann::json j = {
      {"signature", signature.str()}, {"new", fresh},  {"variant", variant}, {"binding", binding}, {"message", message},
      {"reproducer", reproducer},     {"rerun", rerun}};
  if (seed >= 0) j["seed"] = seed;
  return j;
}

namespace {

// "seed 42, O3 under n=5: mismatch|O3|compare|output of mul" and where to look.
std::string describe(const GateFailure& f) {
  std::string out = f.seed >= 0 ? fmt::format("seed {}", f.seed) : std::string("entry");
  if (!f.variant.empty()) out += ", " + f.variant;
  if (!f.binding.empty()) out += " under " + reference::binding_str(f.binding);
  out += fmt::format(": {}{}", f.fresh ? "" : "(known) ", f.signature.str());
  if (!f.reproducer.empty()) out += fmt::format("\n    reproducer: {}", f.reproducer);
  out += fmt::format("\n    rerun: {}", f.rerun);
  return out;
}

}  // namespace

std::string format_gate(const GateResult& r, const std::set<Signature>& baseline) {
  std::string out;
  for (const auto& note : r.notes) out += fmt::format("note: {}\n", note);
  for (const auto& c : r.cases) {
    const char* status = c.skipped ? "SKIP" : c.passed() ? (c.known.empty() ? "ok" : "known") : "NEW";
    out += fmt::format("{:<5} {} ({:.1f} s): {}\n", status, c.name, c.seconds, c.detail);
    for (const auto& s : c.fresh) out += fmt::format("        new:   {}\n", s.str());
    for (const auto& s : c.known) out += fmt::format("        known: {}\n", s.str());
    for (const auto& s : c.noted)
      out += fmt::format("        noted: {} (fails only with --fail-on outlier)\n", s.str());
    for (const auto& f : c.failures) {
      if (f.fresh) out += fmt::format("        {}\n", describe(f));
    }
  }
  if (r.programs > 0) {
    std::vector<std::string> counts;
    for (const auto& [kind, n] : r.seed_counts) counts.push_back(fmt::format("{} {}", kind, n));
    out += fmt::format("seeds: {} programs ({})\n", r.programs, fmt::join(counts, ", "));
    out += format_checked_share(r.seed_status);
  }
  const std::set<Signature> fresh = r.fresh(), absent = r.absent(baseline);
  out += fmt::format("gate: {} in {:.1f} s: {} new signature{}, {} known seen, {} known not seen{}\n",
                     r.passed() ? "passed" : "FAILED", r.seconds, fresh.size(), fresh.size() == 1 ? "" : "s",
                     r.seen.size() - fresh.size(), absent.size(),
                     r.corpus_skipped() ? fmt::format(", {} corpus entries not checked", r.corpus_skipped()) : "");
  for (const auto& s : fresh) out += fmt::format("  new: {}\n", s.str());
  return out;
}

std::string gate_junit(const GateResult& r) {
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  int failures = 0, skipped = 0;
  for (const auto& c : r.cases) {
    failures += !c.passed() && !c.skipped;
    skipped += c.skipped;
  }
  out +=
      fmt::format("<testsuites name=\"difftest gate\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" time=\"{:.3f}\">\n",
                  r.cases.size(), failures, skipped, r.seconds);
  for (const char* suite : {"corpus", "seeds"}) {
    std::vector<const GateCase*> in;
    for (const auto& c : r.cases) {
      if (c.suite == suite) in.push_back(&c);
    }
    if (in.empty()) continue;
    int failed = 0, not_run = 0;
    double seconds = 0;
    for (const auto* c : in) {
      failed += !c->passed() && !c->skipped;
      not_run += c->skipped;
      seconds += c->seconds;
    }
    out += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" time=\"{:.3f}\">\n", suite,
                       in.size(), failed, not_run, seconds);
    for (const auto* c : in) {
      out += fmt::format("    <testcase classname=\"difftest.{}\" name=\"{}\" time=\"{:.3f}\"", suite, xml_escape(c->name),
                         c->seconds);
      if (c->passed() && c->known.empty()) {
        out += "/>\n";
        continue;
      }
      out += ">\n";
      if (c->skipped) {
        out += fmt::format("      <skipped message=\"{}\"/>\n", xml_escape(c->detail));
      } else if (!c->passed()) {
        std::vector<std::string> lines;
        for (const auto& f : c->failures) {
          if (f.fresh) lines.push_back(describe(f));
        }
        out += fmt::format("      <failure type=\"new_signature\" message=\"{}\">{}</failure>\n",
                           xml_escape(fmt::format("{} new failure signature(s): {}", c->fresh.size(),
                                                  fmt::join(texts(c->fresh), "; "))),
                           xml_escape(fmt::format("{}\n{}", c->detail, fmt::join(lines, "\n"))));
      }
      if (!c->known.empty()) {
        out += fmt::format("      <system-out>{}</system-out>\n",
                           xml_escape(fmt::format("known (in the baseline): {}", fmt::join(texts(c->known), "; "))));
      }
      out += "    </testcase>\n";
    }
    out += "  </testsuite>\n";
  }
  out += "</testsuites>\n";
  return out;
}

nlohmann::json gate_json(const GateResult& r, const std::set<Signature>& baseline) {
  nlohmann::json cases = nlohmann::json::array();
  nlohmann::json fresh_failures = nlohmann::json::array();
  for (const auto& c : r.cases) {
    nlohmann::json failures = nlohmann::json::array();
    for (const auto& f : c.failures) {
      failures.push_back(f.to_json());
      if (f.fresh) fresh_failures.push_back(f.to_json());
    }
    cases.push_back({{"suite", c.suite},
                     {"name", c.name},
                     {"passed", c.passed()},
                     {"skipped", c.skipped},
                     {"seconds", c.seconds},
                     {"new", texts(c.fresh)},
                     {"known", texts(c.known)},
                     {"noted", texts(c.noted)},
                     {"failures", failures},
                     {"detail", c.detail}});
  }
  const std::set<Signature> fresh = r.fresh();
  std::set<Signature> known_seen;
  for (const auto& s : r.seen) {
    if (!fresh.count(s)) known_seen.insert(s);
  }
  nlohmann::json j = {{"passed", r.passed()},
                      {"seconds", r.seconds},
                      {"new", texts(fresh)},
                      {"new_failures", fresh_failures},
                      {"known_seen", texts(known_seen)},
                      {"known_absent", texts(r.absent(baseline))},
                      {"programs", r.programs},
                      {"seed_counts", r.seed_counts},
                      {"seed_elements", r.seed_status.elements},
                      {"seed_elements_checked", r.seed_status.elements_checked},
                      {"nothing_supported", r.nothing_supported},
                      {"corpus_skipped", r.corpus_skipped()},
                      {"notes", r.notes},
                      {"cases", cases}};
  if (r.seeds_not_reached >= 0) j["seeds_not_reached"] = r.seeds_not_reached;
  return j;
}

}  // namespace difftest::oracle
