#include "backends/onnxruntime/ort_culprit.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cctype>
#include <map>

#include "backends/onnxruntime/ort_session.h"
#include "compiler/ir/fix_dims.h"
#include "reference/inputs.h"

namespace difftest::backends {

namespace {

using oracle::Culprit;
using oracle::FailureKey;
using oracle::VariantId;
using oracle::VariantVerdict;

constexpr int kMaxRounds = 8;

struct Search {
  const Program& p;
  const oracle::FailingRun& failing;
  const oracle::CheckOptions& base;
  const oracle::BisectProgress& on_call;
  FailureKey key;
  int calls = 0;

  VariantId with_disabled(const std::vector<std::string>& disabled) const {
    VariantId id = failing.variant;
    id.tested.settings["disabled"] = disabled;
    return id;
  }
  // The level with `disabled` off, judged as the failure was (against the reference or, for a
  // cross-check, against `disabled`).
  VariantVerdict check(const std::vector<std::string>& disabled) {
    ++calls;
    if (on_call) on_call(calls, disabled.empty() ? "nothing disabled" : fmt::format("{}", fmt::join(disabled, ";")));
    return oracle::check_variant_outcome(p, with_disabled(disabled), failing.binding, base);
  }
  // The session the level runs, logged: on the program with its dims fixed for a specialized
  // compile, as the check compiles it (a static shape lets more fusions match).
  OrtSessionLog log(const std::vector<std::string>& disabled) {
    oracle::Case c;
    c.env = failing.binding;
    c.inputs = reference::generate_inputs(p, c.env, base.input_seed);
    ++calls;
    const oracle::Variant v = with_disabled(disabled).tested;
    return ort_session_log(v.kind == oracle::VariantKind::Specialized ? fix_dims(p, c.env) : p, v, c,
                           base.limits);
  }
};

// `X` of "onnxruntime::X::Apply" (or ::ApplyImpl) in an exception thrown from
// onnxruntime/core/optimizer/, else "". (Searched by hand: std::regex trips gcc 12's
// -Wmaybe-uninitialized in the sanitizer build.)
std::string optimizer_in_exception(const std::string& message) {
  if (message.find("core/optimizer/") == std::string::npos) return "";
  static const std::string kNamespace = "onnxruntime::";
  for (size_t at = message.find("::Apply"); at != std::string::npos; at = message.find("::Apply", at + 1)) {
    const size_t start = message.rfind(kNamespace, at);
    if (start == std::string::npos) continue;
    const std::string name = message.substr(start + kNamespace.size(), at - start - kNamespace.size());
    const bool identifier = !name.empty() && std::all_of(name.begin(), name.end(), [](char ch) {
      return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
    });
    if (identifier) return name;
  }
  return "";
}

}  // namespace

std::string op_histogram(const std::string& model_bytes) {
  ::onnx::ModelProto m;
  if (model_bytes.empty() || !m.ParseFromString(model_bytes)) return "(no optimized model)";
  std::map<std::string, int> counts;
  for (const auto& n : m.graph().node()) counts[n.domain().empty() ? n.op_type() : n.domain() + "." + n.op_type()]++;
  std::vector<std::pair<std::string, int>> sorted(counts.begin(), counts.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<std::string> parts;
  for (const auto& [op, n] : sorted) parts.push_back(n > 1 ? fmt::format("{} x{}", op, n) : op);
  return fmt::format("{} nodes: {}", m.graph().node_size(), fmt::join(parts, ", "));
}

std::optional<Culprit> find_culprit_transformers(const Program& p, const oracle::FailingRun& failing,
                                                 const oracle::CheckOptions& base,
                                                 const oracle::BisectProgress& on_call) {
  const std::string level = failing.variant.tested.settings.value("level", std::string());
  if (level.empty()) return std::nullopt;
  Search s{p, failing, base, on_call, {}};
  Culprit c;
  const VariantVerdict whole = s.check({});
  c.key = FailureKey::of(whole);
  c.reproduced = oracle::is_failure(whole.kind);
  c.failure = whole;
  const auto done = [&] {
    c.oracle_calls = s.calls;
    return c;
  };
  if (!c.reproduced) return done();
  if (level == "disabled") {
    c.pass = "ONNX Runtime's kernels";
    c.summary = fmt::format(
        "culprit: ONNX Runtime's kernels — the failure ({}) shows at level 'disabled', where no optional graph "
        "transformer runs (or the exported model; docs/backends.md says how the two are told apart)",
        c.key.str());
    return done();
  }
  // A transformer or rewrite rule that threw names itself in ORT's exception (a rule of a
  // rule-based transformer cannot be disabled alone, so the search below could not find it).
  if (const std::string thrower = optimizer_in_exception(whole.message); !thrower.empty()) {
    c.pass = thrower;
    c.summary = fmt::format(
        "culprit: {} — ONNX Runtime's graph optimizer threw during session set-up (core/optimizer/ in the "
        "exception) at level '{}', not at 'disabled' (the failure: {})",
        thrower, level, c.key.str());
    return done();
  }
  // Collect: every transformer that modified the graph, round after round, until the level passes.
  std::vector<std::string> disabled, seen, rounds;
  bool passes = false;
  std::string before_graph;
  for (int round = 0; round < kMaxRounds && !passes; ++round) {
    const OrtSessionLog log = s.log(disabled);
    if (!log.ok) {
      c.summary = fmt::format("culprit: not found — ONNX Runtime's logged session did not run: {}", log.error);
      return done();
    }
    if (round == 0) before_graph = log.optimized_model;
    for (const auto& t : log.applied) {
      if (std::find(seen.begin(), seen.end(), t) == seen.end()) seen.push_back(t);
    }
    std::vector<std::string> fresh;
    for (const auto& t : log.modified) {
      if (std::find(disabled.begin(), disabled.end(), t) == disabled.end()) fresh.push_back(t);
    }
    if (fresh.empty()) break;
    disabled.insert(disabled.end(), fresh.begin(), fresh.end());
    passes = !oracle::is_failure(s.check(disabled).kind);
    rounds.push_back(fmt::format("round {}: {} modified the graph; with {} disabled the level {}", round + 1,
                                 fmt::join(fresh, ";"), disabled.size(), passes ? "passes" : "still fails"));
  }
  if (!passes) {
    c.pass = "ONNX Runtime's kernels";
    c.summary = fmt::format(
        "culprit: no transformer — the failure ({}) remains at level '{}' with every transformer that modified the "
        "graph disabled ({}): a kernel finding at this level\n  {}",
        c.key.str(), level, disabled.empty() ? "none did" : fmt::format("{}", fmt::join(disabled, ";")),
        fmt::join(rounds, "\n  "));
    return done();
  }
  // Minimize: drop each name while the level still passes without it.
  std::vector<std::string> culprits = disabled;
  for (size_t i = culprits.size(); i-- > 0;) {
    std::vector<std::string> fewer = culprits;
    fewer.erase(fewer.begin() + static_cast<std::ptrdiff_t>(i));
    if (fewer.empty()) continue;
    if (!oracle::is_failure(s.check(fewer).kind)) culprits = std::move(fewer);
  }
  const OrtSessionLog after = s.log(culprits);
  c.pass = fmt::format("{}", fmt::join(culprits, ";"));
  c.minimal_passes = culprits;
  c.summary = fmt::format(
      "culprit: {} — disabling {} makes level '{}' pass (the failure: {})\n  {}\n  transformers ORT ran: {}\n"
      "  optimized graph with them: {}\n  optimized graph without them: {}",
      c.pass, culprits.size() == 1 ? "it" : "these together", level, c.key.str(), fmt::join(rounds, "\n  "),
      fmt::join(seen, ", "), op_histogram(before_graph), op_histogram(after.optimized_model));
  return done();
}

}  // namespace difftest::backends
