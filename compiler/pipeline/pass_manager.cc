#include "compiler/pipeline/pass_manager.h"

#include <fmt/format.h>

#include "compiler/support/diagnostics.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/loop/printer.h"
#include "compiler/loop/verifier.h"

namespace difftest::pipeline {

const char* pass_kind_name(PassKind k) {
  switch (k) {
    case PassKind::Graph: return "graph";
    case PassKind::Lowering: return "lowering";
    case PassKind::Loop: return "loop";
    case PassKind::Codegen: return "codegen";
  }
  return "?";
}

PassInfo graph_pass_of(std::string name, std::string description, GraphPassFn run,
                       std::function<std::string(const Program&)> precondition) {
  PassInfo p{std::move(name), std::move(description), PassKind::Graph, std::move(run), nullptr, nullptr, {}, {}};
  p.graph_precondition = std::move(precondition);
  return p;
}

PassInfo loop_pass_of(std::string name, std::string description, LoopPassFn run,
                      std::function<std::string(const loop::Module&)> precondition) {
  PassInfo p{std::move(name), std::move(description), PassKind::Loop, nullptr, nullptr, std::move(run), {}, {}};
  p.loop_precondition = std::move(precondition);
  return p;
}

const PassInfo& find_pass(const std::string& name) {
  std::vector<std::string> known;
  for (const auto& p : all_passes()) {
    if (p.name == name) return p;
    known.push_back(p.name);
  }
  throw UserError(ErrorKind::Usage, fmt::format("unknown pass '{}' (known: {})", name, fmt::join(known, ", ")));
}

namespace {

std::string codegen_step_in_a_list(const PassInfo& step) {
  return fmt::format("{} is a step of the code generator, not of a pass list: {}", step.name, step.description);
}

}  // namespace

std::string pass_order_problem(const std::vector<std::string>& passes) {
  bool lowered = false;
  for (const auto& name : passes) {
    const PassInfo& pass = find_pass(name);
    if (pass.kind == PassKind::Codegen) return codegen_step_in_a_list(pass);
    if (pass.kind == PassKind::Graph && lowered) return fmt::format("graph pass {} after LegalizeOps", name);
    if (pass.kind == PassKind::Loop && !lowered) return fmt::format("loop pass {} before LegalizeOps", name);
    if (pass.kind == PassKind::Lowering && lowered) return "LegalizeOps appears twice";
    lowered = lowered || pass.kind == PassKind::Lowering;
  }
  return lowered ? "" : "the pass list has no LegalizeOps (graph passes, then LegalizeOps, then loop passes)";
}

std::vector<std::string> parse_pass_list(const std::string& text, const std::string& flag) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    std::string name = text.substr(start, end - start);
    name.erase(0, name.find_first_not_of(' '));
    name.erase(name.find_last_not_of(' ') + 1);
    if (name.empty()) throw UserError(ErrorKind::Usage, fmt::format("{}: empty pass name in '{}'", flag, text));
    try {
      find_pass(name);
    } catch (const UserError& e) {
      throw UserError(ErrorKind::Usage, fmt::format("{}: {}", flag, e.message()));
    }
    out.push_back(name);
    start = end + 1;
  }
  if (const std::string problem = pass_order_problem(out); !problem.empty()) {
    throw UserError(ErrorKind::Usage, fmt::format("{}: {}", flag, problem));
  }
  return out;
}

std::string bisect_line(const PassEvent& e) {
  return fmt::format("BISECT: {} pass ({}) {}{}", e.ran ? "running" : "NOT running", e.number, e.pass,
                     e.required ? " (required)" : "");
}

namespace {

[[noreturn]] void refuse(const std::string& pass, const std::string& why) {
  throw UserError(ErrorKind::Usage, fmt::format("pass {} cannot run here: {}", pass, why));
}

}  // namespace

namespace {

// Whether a loop pass changed the module: a function body rebuilt (Mutators and rules hand back
// the statement they were given when nothing in it changed), or other functions, calls or plan.
bool rebuilt(const loop::Module& before, const loop::Module& after) {
  if (before.funcs.size() != after.funcs.size() || before.calls.size() != after.calls.size() ||
      before.storage != after.storage) {
    return true;
  }
  for (size_t i = 0; i < before.funcs.size(); ++i) {
    if (!before.funcs[i].body.same_as(after.funcs[i].body) || before.funcs[i].name != after.funcs[i].name) return true;
  }
  return false;
}

}  // namespace

Lowered run_passes(const Program& p, const std::vector<std::string>& passes, const RunOptions& options) {
  Lowered out{p, {}, 0, {}, {}};
  const auto& report = options.context.diagnostics;
  bool lowered = false;
  bool graph_verified = false;  // out.graph has passed the verifier
  for (const auto& name : passes) {
    const PassInfo& pass = find_pass(name);
    if (options.disabled.count(name)) continue;
    if (pass.kind == PassKind::Codegen) throw UserError(ErrorKind::Usage, codegen_step_in_a_list(pass));
    if (pass.kind == PassKind::Graph && lowered) {
      throw UserError(ErrorKind::Usage, fmt::format("graph pass {} after LegalizeOps", name));
    }
    if (pass.kind == PassKind::Loop && !lowered) {
      throw UserError(ErrorKind::Usage, fmt::format("loop pass {} before LegalizeOps", name));
    }
    if (pass.kind == PassKind::Lowering && lowered) throw UserError(ErrorKind::Usage, "LegalizeOps appears twice");
    if (pass.kind == PassKind::Lowering && options.graph_only) return out;
    const bool required = pass.required;
    const int limit = options.context.bisect_limit;
    const PassEvent event{++out.applied, name, required || limit < 0 || out.applied <= limit, required};
    if (options.on_event) options.on_event(event);
    if (!event.ran) continue;
    if (options.before_pass) options.before_pass(name);
    switch (pass.kind) {
      case PassKind::Graph: {
        if (pass.graph_precondition) {
          if (std::string why = pass.graph_precondition(out.graph); !why.empty()) refuse(name, why);
        }
        Program next = pass.graph(out.graph, options.context);
        const bool changed = !next.same_as(out.graph);
        // A pass that changed nothing returns the program it was given: verified once is enough.
        if (options.verify_each && (changed || !graph_verified)) verify(next);
        graph_verified = options.verify_each;
        out.graph = std::move(next);
        if (changed) out.changed.push_back(name);
        if (changed && report) report(name, print(out.graph));
        break;
      }
      case PassKind::Lowering:
        out.module = pass.lower(out.graph, options.context);
        out.module.target = options.context.target;
        lowered = true;
        out.changed.push_back(name);
        if (options.verify_each) loop::verify(out.module);
        if (report) report(name, loop::print(out.module));
        break;
      case PassKind::Loop: {
        if (pass.loop_precondition) {
          if (std::string why = pass.loop_precondition(out.module); !why.empty()) refuse(name, why);
        }
        const std::string before = report ? loop::print(out.module) : std::string();
        const loop::Module given = out.module;
        out.module = pass.loop(out.module, options.context);
        if (rebuilt(given, out.module)) out.changed.push_back(name);
        if (options.verify_each) loop::verify(out.module);
        if (report) {
          std::string after = loop::print(out.module);
          if (after != before) report(name, after);
        }
        break;
      }
      case PassKind::Codegen:
        break;  // refused above
    }
  }
  if (!lowered) throw UserError(ErrorKind::Usage, "the pass list has no LegalizeOps");
  for (const auto& name : options.codegen_steps) {
    const PassInfo& step = find_pass(name);
    DT_CHECK(step.kind == PassKind::Codegen && !step.required, name + " is not an optional codegen step");
    const int limit = options.context.bisect_limit;
    const PassEvent event{++out.applied, name, limit < 0 || out.applied <= limit, false};
    if (options.on_event) options.on_event(event);
    if (event.ran) out.codegen_steps.push_back(name);
  }
  return out;
}

}  // namespace difftest::pipeline
