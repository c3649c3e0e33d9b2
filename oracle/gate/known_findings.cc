#include "oracle/gate/known_findings.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>

#include "compiler/support/diagnostics.h"
#include "oracle/gate/corpus.h"
#include "oracle/gate/gate.h"

namespace difftest::oracle {

namespace fs = std::filesystem;

KnownFindings KnownFindings::read(const std::vector<std::string>& paths, const CompilerUnderTest& builtin,
                                  const std::string& under_test, const std::vector<std::string>& injected) {
  KnownFindings k;
  for (const auto& path : paths) {
    const size_t before = k.signatures();
    std::error_code ec;
    if (fs::is_regular_file(path, ec) && fs::path(path).extension() == ".json") {
      const std::string name = fs::path(path).filename().string();
      for (const auto& s : read_baseline(path)) k.add(s, "baseline " + name);
    } else if (fs::exists(path, ec)) {
      for (const auto& file : corpus_files(path)) {
        const CorpusEntry e = read_corpus_entry(file, builtin);
        const std::string cause = fs::path(file).stem().string();
        const bool faults_on = std::all_of(e.faults.begin(), e.faults.end(), [&](const std::string& f) {
          return std::find(injected.begin(), injected.end(), f) != injected.end();
        });
        if (e.expect && faults_on) k.add(*e.expect, cause);
        if (e.compiler == under_test) {
          for (const auto& s : e.known_bugs) k.add(s, cause);
        }
      }
    } else {
      throw UserError(ErrorKind::Io, fmt::format("--known: '{}' does not exist (a corpus directory, an .ir entry or "
                                                 "a gate baseline .json)",
                                                 path));
    }
    k.sources_.push_back(fmt::format("{} ({} signatures)", path, k.signatures() - before));
  }
  return k;
}

namespace {

std::string without_pipeline(const Signature& s) { return s.kind + "|" + s.stage + "|" + s.what; }

void add_once(std::vector<std::string>& causes, const std::string& cause) {
  if (std::find(causes.begin(), causes.end(), cause) == causes.end()) causes.push_back(cause);
}

}  // namespace

void KnownFindings::add(const Signature& s, const std::string& root_cause) {
  add_once(by_signature_[s], root_cause);
  add_once(by_failure_[without_pipeline(s)], root_cause);
}

std::optional<KnownMatch> KnownFindings::match(const Signature& s) const {
  if (auto exact = root_cause(s)) return KnownMatch{*exact, false};
  const auto it = by_failure_.find(without_pipeline(s));
  if (it == by_failure_.end()) return std::nullopt;
  return KnownMatch{fmt::format("{}", fmt::join(it->second, " or ")), true};
}

std::optional<std::string> KnownFindings::root_cause(const Signature& s) const {
  const auto it = by_signature_.find(s);
  if (it == by_signature_.end()) return std::nullopt;
  return fmt::format("{}", fmt::join(it->second, " or "));
}

}  // namespace difftest::oracle
