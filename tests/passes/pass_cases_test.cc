// The pass cases of tests/passes (pass_cases.h), one test each: the pass gives the expected
// output, a second run changes nothing (idempotence), and a graph pass keeps the reference's
// results on the case's program. With DIFFTEST_UPDATE_PASS_CASES=1
// (scripts/update_pass_cases.sh) a case whose output differs has its expected output rewritten
// instead, and the test says so.
#include "tests/passes/pass_cases.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/loop/parser.h"
#include "compiler/loop/printer.h"
#include "tests/support/pass_testing.h"

namespace difftest::testing {
namespace {

const std::string kRoot = std::string(DIFFTEST_SOURCE_DIR) + "/tests/passes";

bool updating() {
  const char* v = std::getenv("DIFFTEST_UPDATE_PASS_CASES");
  return v != nullptr && std::string(v) == "1";
}

void update_expected(const PassCase& c, const std::string& got) {
  std::stringstream text;
  text << std::ifstream(c.file).rdbuf();
  std::ofstream(c.file) << with_expected_output(text.str(), c.index, got);
  ADD_FAILURE() << c.file << ":" << c.line << ": expected output rewritten (read the diff before you keep it)";
}

// Whether `got` contains `checks` in order.
::testing::AssertionResult contains_in_order(const std::string& got, const std::vector<std::string>& checks) {
  size_t at = 0;
  for (const auto& check : checks) {
    const size_t found = got.find(check, at);
    if (found == std::string::npos) {
      return ::testing::AssertionFailure() << "no \"" << check << "\" after offset " << at << " in:\n" << got;
    }
    at = found + check.size();
  }
  return ::testing::AssertionSuccess();
}

// The output `got` of case `c` (its text form; `same` when the pass handed back its input, whose
// text form is `given`) against what the case expects; `normalized` prints an expected text as
// the IR printer does.
template <typename Normalize>
void expect_output(const PassCase& c, const std::string& given, const std::string& got, bool same,
                   const Normalize& normalized) {
  const std::string where = c.file + ":" + std::to_string(c.line) + ": " + c.intent;
  switch (c.expect) {
    case PassCase::Expect::Output: {
      const std::string want = normalized(c.output);
      if (got != want && updating()) return update_expected(c, got);
      EXPECT_EQ(got, want) << where;
      break;
    }
    case PassCase::Expect::Unchanged:
      EXPECT_EQ(got, given) << where;
      EXPECT_TRUE(same) << c.pass << " rebuilt what it did not change: " << where;
      break;
    case PassCase::Expect::Checks:
      EXPECT_TRUE(contains_in_order(got, c.checks)) << where;
      break;
  }
}

class PassCases : public ::testing::TestWithParam<PassCase> {};

TEST_P(PassCases, GiveTheExpectedOutputOnceAndForAllAndKeepTheReference) {
  const PassCase& c = GetParam();
  const std::string where = c.file + ":" + std::to_string(c.line) + ": " + c.intent;
  const pipeline::PassInfo& info = pipeline::find_pass(c.pass);
  switch (info.kind) {
    case pipeline::PassKind::Graph: {
      const Program before = parse_program(c.input, c.file);
      verify(before);
      const Program after = run_graph_pass(c.pass, before);
      const std::string got = print(after);
      expect_output(c, print(before), got, after.same_as(before), [&](const std::string& text) {
        return print(parse_program(text, c.file));
      });
      EXPECT_EQ(print(run_graph_pass(c.pass, after)), got) << c.pass << " is not idempotent here: " << where;
      EXPECT_TRUE(preserves_reference(before, after)) << where;
      break;
    }
    case pipeline::PassKind::Loop: {
      CompileContext for_text = test_context();
      for_text.target = &target::text_default_target();  // the expected texts carry no target line
      const loop::Module before = c.graph_input ? pipeline::find_pass("LegalizeOps").lower(parse_program(c.input, c.file), for_text)
                                                : loop::parse_module(c.input, c.file);
      const loop::Module after = run_loop_pass(c.pass, before);
      const std::string got = loop::print(after);
      bool same = after.funcs.size() == before.funcs.size();
      for (size_t i = 0; same && i < after.funcs.size(); ++i) same = after.funcs[i].body.same_as(before.funcs[i].body);
      expect_output(c, loop::print(before), got, same,
                    [&](const std::string& text) { return loop::print(loop::parse_module(text, c.file)); });
      EXPECT_EQ(loop::print(run_loop_pass(c.pass, after)), got) << c.pass << " is not idempotent here: " << where;
      break;
    }
    case pipeline::PassKind::Lowering: {
      // Graph text in, loop text out, for the text default target (the texts carry no target).
      const Program before = parse_program(c.input, c.file);
      verify(before);
      pipeline::RunOptions options;
      options.context = test_context();
      options.context.target = &target::text_default_target();
      const loop::Module got = pipeline::run_passes(before, {c.pass}, options).module;
      loop::verify(got);
      ASSERT_NE(c.expect, PassCase::Expect::Unchanged) << where << ": a lowering always changes its input";
      expect_output(c, "", loop::print(got), false,
                    [&](const std::string& text) { return loop::print(loop::parse_module(text, c.file)); });
      break;
    }
    case pipeline::PassKind::Codegen:
      // Their IR is LLVM's: their text cases are tests/compiler/<step>_test.cc.
      FAIL() << where << ": " << c.pass << " is a codegen step; it has no pass case files";
  }
}

// Every directory under tests/passes names a pass of the registry, and holds a case.
TEST(PassCaseFiles, NameRegisteredPassesAndHoldCases) {
  const std::vector<PassCase> cases = read_pass_cases(kRoot);
  EXPECT_GE(cases.size(), 60u);
  for (const auto& dir : std::filesystem::directory_iterator(kRoot)) {
    if (!dir.is_directory()) continue;
    const std::string pass = dir.path().filename().string();
    EXPECT_NO_THROW(pipeline::find_pass(pass)) << dir.path();
    EXPECT_TRUE(std::any_of(cases.begin(), cases.end(), [&](const PassCase& c) { return c.pass == pass; })) << pass;
  }
}

// A malformed case file is refused with its path and line: a case without an intent, one that
// expects an empty output, and one whose separator was lost (it would be read as the header's
// comment and never run, as FuseLoops' first case was for a while).
TEST(PassCaseFiles, AMalformedCaseNamesItsFileAndLine) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "difftest_pass_cases" / "FoldConstant";
  const std::string program = "program @p() {\n  %x: f32[4] = param\n  return %x\n}\n";
  const std::vector<std::pair<std::string, std::string>> malformed = {
      {"# header\n# -----\n" + program + "# expect:\n", "bad.ir:3: expected \"# intent: ...\""},
      {"# header\n# -----\n# intent: i\n" + program + "# expect:\n# -----\n# intent: j\n" + program +
           "# expect: unchanged\n",
       "bad.ir:8: \"# expect:\" with no output"},
      {"# header\n# intent: lost\n" + program + "# expect: unchanged\n# -----\n# intent: i\n" + program +
           "# expect: unchanged\n",
       "bad.ir:2: a case's line before the first \"# -----\""},
  };
  for (const auto& [text, error] : malformed) {
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "bad.ir") << text;
    try {
      read_pass_cases(dir.parent_path().string());
      ADD_FAILURE() << "read:\n" << text;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(error), std::string::npos) << e.what();
    }
    std::filesystem::remove_all(dir.parent_path());
  }
}

std::string case_name(const ::testing::TestParamInfo<PassCase>& info) {
  std::string stem = std::filesystem::path(info.param.file).stem().string();
  for (char& ch : stem) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return info.param.pass + "_" + stem + "_" + std::to_string(info.param.index);
}

INSTANTIATE_TEST_SUITE_P(Files, PassCases, ::testing::ValuesIn(read_pass_cases(kRoot)), case_name);

}  // namespace
}  // namespace difftest::testing
