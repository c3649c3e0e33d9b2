#include "tests/passes/pass_cases.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace difftest::testing {

namespace {

namespace fs = std::filesystem;

constexpr const char* kSeparator = "# -----";
constexpr const char* kIntent = "# intent: ";
constexpr const char* kExpect = "# expect:";
constexpr const char* kCheck = "# check: ";
constexpr const char* kGraphInput = "# input: graph";

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Lines [from, to) joined, after `from` newlines so that line from + 1 of the file is line
// from + 1 of the text.
std::string padded(const std::vector<std::string>& lines, size_t from, size_t to) {
  std::string out(from, '\n');
  for (size_t i = from; i < to; ++i) out += lines[i] + "\n";
  return out;
}

// The line index where each case starts (its separator).
std::vector<size_t> case_starts(const std::vector<std::string>& lines) {
  std::vector<size_t> starts;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i] == kSeparator) starts.push_back(i);
  }
  return starts;
}

void read_file(const fs::path& path, const std::string& pass, std::vector<PassCase>& out) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::stringstream text;
  text << in.rdbuf();
  const std::vector<std::string> lines = lines_of(text.str());
  const std::vector<size_t> starts = case_starts(lines);
  const auto fail = [&](size_t line, const std::string& why) {
    throw std::runtime_error(fmt::format("{}:{}: {}", path.string(), line + 1, why));
  };
  if (starts.empty()) fail(0, "no case (a case starts at a line \"# -----\")");
  // A header line that a case would start with means a separator was lost: the case would be
  // read as comment, and never run.
  for (size_t i = 0; i < starts.front(); ++i) {
    if (starts_with(lines[i], kIntent) || starts_with(lines[i], kExpect) || starts_with(lines[i], kCheck)) {
      fail(i, "a case's line before the first \"# -----\" (a case starts at that line)");
    }
  }
  for (size_t c = 0; c < starts.size(); ++c) {
    const size_t begin = starts[c], end = c + 1 < starts.size() ? starts[c + 1] : lines.size();
    PassCase k;
    k.pass = pass;
    k.file = path.string();
    k.line = static_cast<int>(begin + 1);
    k.index = static_cast<int>(c);
    if (begin + 1 >= end || !starts_with(lines[begin + 1], kIntent)) fail(begin + 1, "expected \"# intent: ...\"");
    k.intent = lines[begin + 1].substr(std::string(kIntent).size());
    k.graph_input = begin + 2 < end && lines[begin + 2] == kGraphInput;
    size_t expect_at = end;
    for (size_t i = begin + 2; i < end; ++i) {
      if (starts_with(lines[i], kExpect) || starts_with(lines[i], kCheck)) {
        expect_at = i;
        break;
      }
    }
    if (expect_at == end) fail(begin, "the case has no \"# expect:\" or \"# check:\" line");
    k.input = padded(lines, begin + 2, expect_at);
    const std::string& e = lines[expect_at];
    if (e == std::string(kExpect) + " unchanged") {
      k.expect = PassCase::Expect::Unchanged;
      if (expect_at + 1 != end) fail(expect_at + 1, "nothing may follow \"# expect: unchanged\" in its case");
    } else if (e == kExpect) {
      k.expect = PassCase::Expect::Output;
      k.output = padded(lines, expect_at + 1, end);
      if (std::all_of(k.output.begin(), k.output.end(), [](char ch) { return ch == '\n' || ch == ' '; })) {
        fail(expect_at, "\"# expect:\" with no output after it (or \"# expect: unchanged\")");
      }
    } else if (starts_with(e, kCheck)) {
      k.expect = PassCase::Expect::Checks;
      for (size_t i = expect_at; i < end; ++i) {
        if (!starts_with(lines[i], kCheck)) fail(i, "only \"# check:\" lines may follow a \"# check:\" line");
        k.checks.push_back(lines[i].substr(std::string(kCheck).size()));
      }
    } else {
      fail(expect_at, "expected \"# expect:\", \"# expect: unchanged\" or \"# check: TEXT\"");
    }
    out.push_back(std::move(k));
  }
}

}  // namespace

std::vector<PassCase> read_pass_cases(const std::string& root) {
  std::vector<fs::path> files;
  for (const auto& dir : fs::directory_iterator(root)) {
    if (!dir.is_directory()) continue;
    for (const auto& f : fs::directory_iterator(dir.path())) {
      if (f.path().extension() == ".ir") files.push_back(f.path());
    }
  }
  std::sort(files.begin(), files.end());
  std::vector<PassCase> out;
  for (const auto& f : files) read_file(f, f.parent_path().filename().string(), out);
  return out;
}

std::string with_expected_output(const std::string& file_text, int index, const std::string& output) {
  const std::vector<std::string> lines = lines_of(file_text);
  const std::vector<size_t> starts = case_starts(lines);
  const auto c = static_cast<size_t>(index);
  if (c >= starts.size()) throw std::runtime_error(fmt::format("no case {} in the file", index));
  const size_t end = c + 1 < starts.size() ? starts[c + 1] : lines.size();
  size_t expect_at = end;
  for (size_t i = starts[c]; i < end; ++i) {
    if (lines[i] == kExpect) expect_at = i;
  }
  if (expect_at == end) throw std::runtime_error(fmt::format("case {} does not expect a whole output", index));
  std::string out;
  for (size_t i = 0; i <= expect_at; ++i) out += lines[i] + "\n";
  out += output;
  if (!output.empty() && output.back() != '\n') out += "\n";
  for (size_t i = end; i < lines.size(); ++i) out += lines[i] + "\n";
  return out;
}

}  // namespace difftest::testing
