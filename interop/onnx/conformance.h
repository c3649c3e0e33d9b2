// The reference held against ONNX's own node tests (libonnx-testdata): each test's model
// imported, its test_data_set_0 inputs run through the reference interpreter, its expected
// outputs compared with the reference's bounds. `difftest onnx-conformance` prints the tally;
// a checked-in expectations file makes any change in it a test failure.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace difftest::interop {

// Where Debian's libonnx-testdata puts the node tests.
inline constexpr const char* kDefaultNodeTestDir = "/usr/include/onnx/backend/test/data/node";

enum class NodeTestOutcome { Passed, Failed, Unsupported };
const char* outcome_name(NodeTestOutcome o);

struct NodeTestResult {
  std::string name;  // the test's directory name, "test_add_bcast"
  NodeTestOutcome outcome = NodeTestOutcome::Unsupported;
  // Unsupported: what the importer cannot take ("op Loop"); Failed: what differed.
  std::string reason;
  std::vector<std::string> op_types;  // of the model's nodes
};

struct ConformanceReport {
  std::string dir;
  std::vector<NodeTestResult> results;  // by name
  int count(NodeTestOutcome o) const;
};

// Every test directory under `dir` (UserError(Io) when there is none); `on_test` is called
// after each.
ConformanceReport run_conformance(const std::string& dir,
                                  const std::function<void(const NodeTestResult&)>& on_test = {});

// The tally: counts, failures with their reasons, unsupported tests grouped by reason, and the
// missing ops ranked by how many unsupported tests each alone keeps out.
std::string format_conformance(const ConformanceReport& r);

// The expectations file: one line per test, "name outcome[: reason]", sorted.
std::string expectations_text(const ConformanceReport& r);
// The lines of `expected` (an expectations file's text) that `r` no longer matches, as
// "- old" / "+ new" pairs; empty when it matches.
std::vector<std::string> expectation_changes(const ConformanceReport& r, const std::string& expected);

}  // namespace difftest::interop
