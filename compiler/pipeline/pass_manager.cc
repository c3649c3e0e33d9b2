#include "compiler/pipeline/pass_manager.h"

#include <fmt/format.h>

#include "compiler/ir/diagnostics.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/loop/printer.h"
#include "compiler/loop/verifier.h"
#include "compiler/passes/legalize_ops.h"

namespace difftest::pipeline {

const std::vector<PassInfo>& all_passes() {
  static const std::vector<PassInfo> passes = [] {
    std::vector<PassInfo> v;
    v.push_back({"LegalizeOps", "lower every op to a loop-IR PrimFunc written from its semantics", PassKind::Lowering,
                 nullptr, passes::legalize_ops, nullptr});
    return v;
  }();
  return passes;
}

const PassInfo& find_pass(const std::string& name) {
  std::vector<std::string> known;
  for (const auto& p : all_passes()) {
    if (p.name == name) return p;
    known.push_back(p.name);
  }
  throw UserError(ErrorKind::Usage, fmt::format("unknown pass '{}' (known: {})", name, fmt::join(known, ", ")));
}

Lowered run_passes(const Program& p, const std::vector<std::string>& passes, const RunOptions& options) {
  Lowered out{p, {}, 0};
  bool lowered = false;
  auto allowed = [&] { return options.bisect_limit < 0 || out.applied < options.bisect_limit; };
  for (const auto& name : passes) {
    const PassInfo& pass = find_pass(name);
    switch (pass.kind) {
      case PassKind::Graph:
        if (lowered) throw UserError(ErrorKind::Usage, fmt::format("graph pass {} after LegalizeOps", name));
        if (!allowed()) continue;
        out.graph = pass.graph(out.graph);
        if (options.verify_each) verify(out.graph);
        if (options.print_after) options.print_after(name, print(out.graph));
        break;
      case PassKind::Lowering:
        if (lowered) throw UserError(ErrorKind::Usage, "LegalizeOps appears twice");
        out.module = pass.lower(out.graph);
        lowered = true;
        if (options.verify_each) loop::verify(out.module);
        if (options.print_after) options.print_after(name, loop::print(out.module));
        break;
      case PassKind::Loop:
        if (!lowered) throw UserError(ErrorKind::Usage, fmt::format("loop pass {} before LegalizeOps", name));
        if (!allowed()) continue;
        out.module = pass.loop(out.module);
        if (options.verify_each) loop::verify(out.module);
        if (options.print_after) options.print_after(name, loop::print(out.module));
        break;
    }
    ++out.applied;
  }
  if (!lowered) throw UserError(ErrorKind::Usage, "the pass list has no LegalizeOps");
  return out;
}

}  // namespace difftest::pipeline
