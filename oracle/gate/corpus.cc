#include "oracle/gate/corpus.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "compiler/support/diagnostics.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/verifier.h"
#include "oracle/check/verdict.h"
#include "reference/inputs.h"

namespace difftest::oracle {

namespace fs = std::filesystem;

namespace {

const std::set<std::string> kHeaderKeys = {"expect", "fault",    "passes", "llvm",      "fma",
                                            "bind",   "compiler", "what",   "input-seed"};

// Any finding's kind (nondeterministic and runtime_error too, which external compilers show).
bool is_failure_kind_name(const std::string& name) {
  const std::optional<VerdictKind> kind = verdict_kind_from_name(name);
  return kind && is_failure(*kind);
}

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\r") - a + 1);
}

}  // namespace

CorpusEntry read_corpus_entry(const std::string& path, const CompilerUnderTest& builtin) {
  const PlantedFaults* planted = builtin.planted_faults();
  DT_CHECK(planted != nullptr, "a corpus entry's faults are read against " + builtin.name() + ", which has none");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(ErrorKind::Io, fmt::format("cannot read '{}'", path));
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CorpusEntry e;
  e.file = path;
  SourceLoc expect_at, bind_at, compiler_at;
  // `# passes:`, `# llvm:`, `# fma:`: a list of the builtin's steps, with its settings as its
  // records name them (they become e.custom once the header is read).
  std::optional<std::vector<std::string>> steps;
  nlohmann::json settings = {{"llvm_opt_level", 0}, {"fma_contraction", false}};
  std::map<std::string, int> seen_on;  // a key that may appear once -> its line
  std::istringstream lines(text);
  std::string line;
  for (int row = 1; std::getline(lines, line); ++row) {
    const std::string t = trim(line);
    if (t.empty()) continue;
    if (t[0] != '#') break;  // the header ends where the program starts
    const size_t colon = t.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = trim(t.substr(1, colon - 1));
    const std::string value = trim(t.substr(colon + 1));
    // The value's column (1-based), where an error in it points.
    const size_t value_at = line.find_first_not_of(" \t", line.find(':') + 1);
    const SourceLoc at{path, row, static_cast<int>(value_at == std::string::npos ? line.size() : value_at) + 1};
    // A one-word key is a header field; anything else before a colon is free text.
    const bool field = !key.empty() && std::all_of(key.begin(), key.end(), [](char ch) {
      return std::islower(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-';
    });
    if (!field) continue;
    if (!kHeaderKeys.count(key)) {
      throw UserError(
          ErrorKind::Syntax,
          fmt::format("unknown header '# {}:' (known: expect, fault, passes, llvm, fma, bind, input-seed, compiler, what)", key),
          SourceLoc{path, row, static_cast<int>(line.find('#')) + 1});
    }
    if (key == "passes" || key == "llvm" || key == "fma" || key == "bind" || key == "compiler" || key == "input-seed") {
      const auto [it, first] = seen_on.emplace(key, row);
      if (!first) {
        throw UserError(ErrorKind::Syntax,
                        fmt::format("a second '# {}:' line (the first is on line {})", key, it->second), at);
      }
    }
    if (key == "compiler") {
      if (value.empty() || value == "builtin") {
        throw UserError(ErrorKind::Syntax, "'# compiler:' names another backend than builtin (see difftest backends)",
                        at);
      }
      e.compiler = value;
      compiler_at = at;
    } else if (key == "expect") {
      if (expect_at.valid() && !compiler_at.valid()) {
        throw UserError(ErrorKind::Syntax, fmt::format("a second '# expect:' line (the first is on line {})", expect_at.line),
                        at);
      }
      const std::optional<Signature> expected = value == "ok" ? std::nullopt : Signature::parse(value);
      if (value != "ok" && (!expected || !is_failure_kind_name(expected->kind))) {
        throw UserError(ErrorKind::Syntax,
                        fmt::format("'# expect: {}' is neither ok nor a failure signature (kind|pipeline|stage|what)", value),
                        at);
      }
      if (compiler_at.valid()) {
        if (!expected) throw UserError(ErrorKind::Syntax, "an entry of '# compiler:' expects its failures, not ok", at);
        e.known_bugs.push_back(*expected);
      } else {
        e.expect = expected;
      }
      expect_at = at;
    } else if (key == "passes" || key == "llvm" || key == "fma" || key == "bind") {
      try {
        if (!steps) steps.emplace();  // `# bind:` too: as before, a binding without `# passes:` is refused
        if (key == "passes") {
          *steps = builtin.step_list(value, "# passes");
        } else if (key == "llvm") {
          if (value.size() != 1 || value[0] < '0' || value[0] > '3') {
            throw UserError(ErrorKind::Syntax, fmt::format("'# llvm: {}' is not an LLVM level 0..3", value));
          }
          settings["llvm_opt_level"] = value[0] - '0';
        } else if (key == "fma") {
          if (value != "on" && value != "off") throw UserError(ErrorKind::Syntax, "'# fma:' is on or off");
          settings["fma_contraction"] = value == "on";
        } else {
          e.binding = reference::parse_binding(value, "# bind");
          bind_at = at;
        }
      } catch (const UserError& err) {
        throw err.located(at);
      }
    } else if (key == "input-seed") {
      if (value.empty() || value.size() > 18 || value.find_first_not_of("0123456789") != std::string::npos) {
        throw UserError(ErrorKind::Syntax, fmt::format("'# input-seed: {}' is not a seed (digits, at most 18)", value), at);
      }
      e.input_seed = std::stoull(value);
    } else if (key == "fault") {
      const std::vector<std::string> known = planted->known();
      if (std::find(known.begin(), known.end(), value) == known.end()) {
        throw UserError(ErrorKind::Syntax, fmt::format("unknown fault '{}' (see difftest list-faults)", value), at);
      }
      e.faults.push_back(value);
    }
  }
  if (!expect_at.valid()) {
    throw UserError(ErrorKind::Syntax, "missing the '# expect: ok' (or '# expect: SIGNATURE') header line",
                    SourceLoc{path, 1, 1});
  }
  if (compiler_at.valid() && (!e.faults.empty() || steps || e.expect)) {
    throw UserError(ErrorKind::Syntax,
                    e.expect ? "'# compiler:' goes before the '# expect:' lines it qualifies"
                             : "an entry of '# compiler:' takes no '# fault:' or '# passes:' (those are the builtin's)",
                    compiler_at);
  }
  if (e.faults.empty() != !e.expect && !compiler_at.valid()) {
    throw UserError(ErrorKind::Syntax,
                    e.faults.empty() ? "an expected failure needs the '# fault: NAME' that causes it"
                                     : "an entry with '# fault:' lines must expect the signature they cause, not ok",
                    expect_at);
  }
  if (steps && steps->empty()) {
    throw UserError(ErrorKind::Syntax, "'# llvm:', '# fma:' need the '# passes:' they apply to", expect_at);
  }
  if (steps) e.custom = builtin.recorded("custom", std::move(*steps), settings, path);
  e.program = parse_program(text, path);
  verify(e.program);
  if (e.binding) {
    try {
      e.binding = reference::resolve_binding(e.program, *e.binding, nullptr);
    } catch (const UserError& err) {
      throw err.located(bind_at);
    }
  }
  return e;
}

CheckOptions entry_checks(const CorpusEntry& e, CheckOptions base) {
  if (e.custom) base.custom.push_back(*e.custom);
  if (e.input_seed) base.input_seed = *e.input_seed;
  if (e.binding) {
    if (base.bindings.empty()) base.bindings = default_bindings(e.program, base.random_bindings);
    if (std::find(base.bindings.begin(), base.bindings.end(), *e.binding) == base.bindings.end()) {
      base.bindings.push_back(*e.binding);
    }
  }
  return base;
}

std::vector<std::string> corpus_files(const std::string& dir_or_file) {
  std::error_code ec;
  if (fs::is_regular_file(dir_or_file, ec)) return {dir_or_file};
  if (!fs::is_directory(dir_or_file, ec)) {
    throw UserError(ErrorKind::Io, fmt::format("corpus '{}' is neither a directory nor a file", dir_or_file));
  }
  std::vector<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir_or_file)) {
    if (e.is_regular_file() && e.path().extension() == ".ir") files.push_back(e.path().string());
  }
  if (files.empty()) throw UserError(ErrorKind::Io, fmt::format("corpus '{}' holds no .ir file", dir_or_file));
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace difftest::oracle
