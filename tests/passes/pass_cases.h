// Pass cases as files, in the manner of LLVM's lit and MLIR's split-input-file tests:
// tests/passes/<Pass>/*.ir, each file a header of comments and then cases, each case starting at
// a line "# -----":
//
//   # -----
//   # intent: what the case is about (printed with any failure)
//   # input: graph                   (a loop pass only: the input is a graph program, lowered
//                                    by LegalizeOps for the text default target)
//   program @p(...) { ... }          the input (loop IR text for a loop pass)
//   # expect:                        then the expected output, whole;
//   program @p(...) { ... }
//
// or "# expect: unchanged" (the pass hands back its input itself), or "# check: TEXT" lines that
// the output's text must contain, in order, where a whole-text pin would be too brittle.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace difftest::testing {

struct PassCase {
  std::string pass;    // the directory's name: a pass of the registry
  std::string file;    // the path, for messages
  int line = 0;        // of the case's "# -----"
  int index = 0;       // its place in the file, from 0
  std::string intent;
  bool graph_input = false;  // "# input: graph": a loop pass's input given as the program it lowers from
  std::string input;   // padded with newlines to its line in the file, so that errors name it
  enum class Expect { Output, Unchanged, Checks } expect = Expect::Output;
  std::string output;  // Expect::Output: the expected text, padded likewise
  std::vector<std::string> checks;
};

// How a failing case names itself (GoogleTest would print its bytes).
inline void PrintTo(const PassCase& c, std::ostream* os) { *os << c.file << ":" << c.line; }

// Every case under `root` (tests/passes), in path and file order. A malformed file fails the
// read with its path and line (std::runtime_error).
std::vector<PassCase> read_pass_cases(const std::string& root);

// `file` with the expected output of its case `index` replaced by `output` (for
// scripts/update_pass_cases.sh): the case must expect a whole output.
std::string with_expected_output(const std::string& file_text, int index, const std::string& output);

}  // namespace difftest::testing
