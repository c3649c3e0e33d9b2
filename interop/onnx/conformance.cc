#include "interop/onnx/conformance.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>
#include <set>
#include <sstream>

#include "compiler/support/diagnostics.h"
#include "compiler/ir/verifier.h"
#include "interop/onnx/import.h"
#include "oracle/check/case.h"
#include "reference/reference.h"

namespace difftest::interop {

namespace fs = std::filesystem;

namespace {

// The elements of an output whose reference is not finite (so the bounds cannot judge it):
// the same special value, and finite elements as close as ONNX's own runner requires
// (rtol 1e-3, atol 1e-7).
std::string compare_specials(const Tensor& want, const Tensor& got) {
  for (int64_t i = 0; i < want.numel(); ++i) {
    const double w = want.get(i), g = got.get(i);
    if (std::isnan(w) || std::isnan(g)) {
      if (std::isnan(w) != std::isnan(g))
        return fmt::format("element {}: expected {}, the reference gives {}", i, w, g);
    } else if (std::isinf(w) || std::isinf(g)) {
      if (w != g) return fmt::format("element {}: expected {}, the reference gives {}", i, w, g);
    } else if (std::abs(w - g) > 1e-7 + 1e-3 * std::abs(w)) {
      return fmt::format("element {}: expected {:.9g}, the reference gives {:.9g}", i, w, g);
    }
  }
  return "";
}

// Each dim_param of a graph input fixed to the size the test's data has there.
std::map<std::string, sym::Range> dims_of_data(const ::onnx::ModelProto& model,
                                               const std::map<std::string, Tensor>& data) {
  std::map<std::string, sym::Range> dims;
  for (const auto& in : model.graph().input()) {
    const auto t = data.find(in.name());
    if (t == data.end()) continue;
    const auto& shape = in.type().tensor_type().shape();
    for (int i = 0; i < shape.dim_size() && i < t->second.rank(); ++i) {
      const int64_t size = t->second.shape()[static_cast<size_t>(i)];
      if (shape.dim(i).has_dim_param() && size >= 1) dims[shape.dim(i).dim_param()] = {size, size};
    }
  }
  return dims;
}

NodeTestResult run_node_test(const fs::path& dir) {
  NodeTestResult r;
  r.name = dir.filename().string();
  const std::string model_file = (dir / "model.onnx").string();
  try {
    const ::onnx::ModelProto model = read_model(model_file);
    for (const auto& node : model.graph().node()) r.op_types.push_back(node.op_type());
    require_tensors(model, model_file);
    const fs::path data = dir / "test_data_set_0";
    const std::vector<ImportedInput> graph_inputs = imported_inputs(model);
    std::map<std::string, Tensor> by_onnx_name;
    for (size_t i = 0; i < graph_inputs.size(); ++i) {
      const std::string file = (data / fmt::format("input_{}.pb", i)).string();
      by_onnx_name.emplace(graph_inputs[i].onnx_name, tensor_from_proto(read_tensor_proto(file), file));
    }
    ImportOptions import;
    import.dims = dims_of_data(model, by_onnx_name);
    std::optional<Program> imported;
    try {
      imported = import_model(model, import, model_file);
    } catch (const Unsupported& e) {
      // An op taking its shape, axes or bounds from an input: the test's data fixes them.
      if (e.reason().rfind("computed input", 0) != 0) throw;
      import.known_inputs = by_onnx_name;
      imported = import_model(model, import, model_file);
    }
    const Program& p = *imported;
    verify(p);
    std::map<std::string, Tensor> inputs;
    for (const auto& in : graph_inputs) {
      if (!import.known_inputs.count(in.onnx_name)) inputs.emplace(in.name, by_onnx_name.at(in.onnx_name));
    }
    std::vector<Tensor> expected;
    for (size_t i = 0; i < p.outputs().size(); ++i) {
      const std::string file = (data / fmt::format("output_{}.pb", i)).string();
      expected.push_back(tensor_from_proto(read_tensor_proto(file), file));
    }
    oracle::CaseOptions options;
    options.tolerance.mode = tolerance::BoundMode::Probabilistic;
    options.ensemble.members = 0;
    const oracle::Case c = oracle::make_case(p, {}, options, inputs);
    for (size_t i = 0; i < expected.size(); ++i) {
      const Tensor& want = expected[i];
      if (want.dtype() != p.outputs()[i].type().dtype) {
        r.outcome = NodeTestOutcome::Failed;
        r.reason = fmt::format("output {}: expected dtype {}, the program gives {}", i, dtype_name(want.dtype()),
                               dtype_name(p.outputs()[i].type().dtype));
        return r;
      }
    }
    if (!c.invalid()) {
      const tolerance::Comparison cmp = c.compare(p, expected, options.tolerance);
      r.outcome = cmp.passed() ? NodeTestOutcome::Passed : NodeTestOutcome::Failed;
      for (const auto& o : cmp.outputs) {
        if (o.passed()) continue;
        r.reason = fmt::format(
            "output {}: {} elements beyond the bounds, worst at [{}]: expected {:.9g}, the "
            "reference gives {:.9g} (bound {:.3g})",
            o.index, o.failing, fmt::join(o.worst_index, ", "), o.got, o.want, o.bound);
        break;
      }
      return r;
    }
    const auto native = reference::evaluate(p, c.env, c.inputs, reference::Mode::Native).outputs;
    for (size_t i = 0; i < expected.size(); ++i) {
      if (expected[i].shape() != native[i].shape()) {
        r.outcome = NodeTestOutcome::Failed;
        r.reason = fmt::format("output {}: expected shape {}, the reference gives {}", i,
                               shape_str(expected[i].shape()), shape_str(native[i].shape()));
        return r;
      }
      const std::string diff = compare_specials(expected[i], native[i]);
      if (!diff.empty()) {
        r.outcome = NodeTestOutcome::Failed;
        r.reason = fmt::format("output {} (not finite, compared value by value): {}", i, diff);
        return r;
      }
    }
    r.outcome = NodeTestOutcome::Passed;
  } catch (const Unsupported& e) {
    r.outcome = NodeTestOutcome::Unsupported;
    r.reason = e.reason();
  } catch (const UserError& e) {
    r.outcome = NodeTestOutcome::Failed;
    r.reason = e.message();
  }
  return r;
}

}  // namespace

const char* outcome_name(NodeTestOutcome o) {
  switch (o) {
    case NodeTestOutcome::Passed:
      return "passed";
    case NodeTestOutcome::Failed:
      return "failed";
    case NodeTestOutcome::Unsupported:
      return "unsupported";
  }
  return "?";
}

int ConformanceReport::count(NodeTestOutcome o) const {
  return static_cast<int>(std::count_if(results.begin(), results.end(), [&](const auto& r) { return r.outcome == o; }));
}

ConformanceReport run_conformance(const std::string& dir, const std::function<void(const NodeTestResult&)>& on_test) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    throw UserError(ErrorKind::Io,
                    fmt::format("'{}' is not a directory of ONNX node tests (install libonnx-testdata)", dir));
  }
  std::vector<fs::path> tests;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_directory() && fs::exists(entry.path() / "model.onnx")) tests.push_back(entry.path());
  }
  if (tests.empty()) throw UserError(ErrorKind::Io, fmt::format("'{}' holds no node test (DIR/*/model.onnx)", dir));
  std::sort(tests.begin(), tests.end());
  ConformanceReport report{dir, {}};
  for (const auto& t : tests) {
    report.results.push_back(run_node_test(t));
    if (on_test) on_test(report.results.back());
  }
  return report;
}

std::string format_conformance(const ConformanceReport& r) {
  std::string out = fmt::format(
      "ONNX node tests in {}: {} in all, {} supported: {} passed, {} failed; {} unsupported\n", r.dir, r.results.size(),
      r.results.size() - r.count(NodeTestOutcome::Unsupported), r.count(NodeTestOutcome::Passed),
      r.count(NodeTestOutcome::Failed), r.count(NodeTestOutcome::Unsupported));
  for (const auto& t : r.results) {
    if (t.outcome == NodeTestOutcome::Failed) out += fmt::format("  FAILED {}: {}\n", t.name, t.reason);
  }
  std::map<std::string, int> by_reason;
  std::map<std::string, int> unlocks;  // op type -> unsupported tests whose only missing op it is
  const std::vector<std::string> have = importable_op_types();
  for (const auto& t : r.results) {
    if (t.outcome != NodeTestOutcome::Unsupported) continue;
    ++by_reason[t.reason];
    std::set<std::string> missing;
    for (const auto& op : t.op_types) {
      if (!std::binary_search(have.begin(), have.end(), op)) missing.insert(op);
    }
    if (missing.size() == 1) ++unlocks[*missing.begin()];
  }
  std::vector<std::pair<int, std::string>> reasons, ops;
  for (const auto& [reason, n] : by_reason) reasons.emplace_back(-n, reason);
  for (const auto& [op, n] : unlocks) ops.emplace_back(-n, op);
  std::sort(reasons.begin(), reasons.end());
  std::sort(ops.begin(), ops.end());
  out += "unsupported, by reason:\n";
  for (const auto& [n, reason] : reasons) out += fmt::format("  {:4} {}\n", -n, reason);
  out += "missing ops, by the unsupported tests each alone would unlock:\n";
  for (const auto& [n, op] : ops) out += fmt::format("  {:4} {}\n", -n, op);
  return out;
}

std::string expectations_text(const ConformanceReport& r) {
  std::string out;
  for (const auto& t : r.results) {
    out += t.name + " " + outcome_name(t.outcome);
    if (t.outcome == NodeTestOutcome::Unsupported) out += ": " + t.reason;
    out += "\n";
  }
  return out;
}

std::vector<std::string> expectation_changes(const ConformanceReport& r, const std::string& expected) {
  std::map<std::string, std::string> old_lines, new_lines;
  const auto index = [](const std::string& text, std::map<std::string, std::string>& into) {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      into[line.substr(0, line.find(' '))] = line;
    }
  };
  index(expected, old_lines);
  index(expectations_text(r), new_lines);
  std::vector<std::string> changes;
  std::set<std::string> names;
  for (const auto& [name, line] : old_lines) names.insert(name);
  for (const auto& [name, line] : new_lines) names.insert(name);
  for (const auto& name : names) {
    const auto o = old_lines.find(name), n = new_lines.find(name);
    const std::string was = o == old_lines.end() ? "" : o->second, now = n == new_lines.end() ? "" : n->second;
    if (was == now) continue;
    if (!was.empty()) changes.push_back("- " + was);
    if (!now.empty()) changes.push_back("+ " + now);
  }
  return changes;
}

}  // namespace difftest::interop
