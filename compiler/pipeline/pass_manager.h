// Passes registered once by name (passes.def, a flat list), and a PassManager that runs a flat
// list of them.
//
// A pipeline is graph passes (Program -> Program, still interpretable by the reference), then
// the lowering boundary `LegalizeOps` (Program -> loop Module), then loop passes
// (Module -> Module), then LLVM at a given level, whose IR the code generator's own steps
// rewrite last (codegen steps: in the registry, run by the JIT, not named in pass lists).
// Named pipelines live in pipelines.cc.
//
// Pass applications are numbered from 1 in the order they are reached, like LLVM's
// opt-bisect, the optional codegen steps a compile applies after its pass list: with a bisect
// limit N only applications 1..N run (LegalizeOps always runs: there is nothing to execute
// without it, and it is reported as required).
#pragma once

#include <functional>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "compiler/context/compile_context.h"
#include "compiler/ir/ir.h"
#include "compiler/loop/ir.h"

namespace difftest::pipeline {

enum class PassKind { Graph, Lowering, Loop, Codegen };
const char* pass_kind_name(PassKind k);  // graph lowering loop codegen

// Every pass is handed the compile's context (the target, the test faults, ...); a pass that
// needs none of it is registered as a function of its IR alone.
using GraphPassFn = std::function<Program(const Program&, const CompileContext&)>;
using LoweringFn = std::function<loop::Module(const Program&, const CompileContext&)>;
using LoopPassFn = std::function<loop::Module(const loop::Module&, const CompileContext&)>;

struct PassInfo {
  std::string name;
  std::string description;  // one line
  PassKind kind;
  GraphPassFn graph;   // Graph
  LoweringFn lower;    // Lowering
  LoopPassFn loop;     // Loop
  // Pre-conditions on the pass's input: "" when it may run, else why it cannot (the pass
  // manager refuses with that reason rather than produce garbage). Empty function: none.
  std::function<std::string(const Program&)> graph_precondition;
  std::function<std::string(const loop::Module&)> loop_precondition;
  // Runs whatever the bisect limit: LegalizeOps, and a codegen step without which the code
  // generator cannot select the IR (not numbered).
  bool required = false;
};

// Factories for the registry's flat list: `run` takes the IR and the context, or the IR alone.
template <typename IR, typename Fn>
std::function<IR(const IR&, const CompileContext&)> with_context(Fn run) {
  if constexpr (std::is_invocable_v<Fn, const IR&, const CompileContext&>) {
    return run;
  } else {
    return [run](const IR& ir, const CompileContext&) { return run(ir); };
  }
}
PassInfo graph_pass_of(std::string name, std::string description, GraphPassFn run,
                       std::function<std::string(const Program&)> precondition);
PassInfo loop_pass_of(std::string name, std::string description, LoopPassFn run,
                      std::function<std::string(const loop::Module&)> precondition);
template <typename Fn>
PassInfo graph_pass(std::string name, std::string description, Fn run,
                    std::function<std::string(const Program&)> precondition = nullptr) {
  return graph_pass_of(std::move(name), std::move(description), with_context<Program>(std::move(run)),
                       std::move(precondition));
}
template <typename Fn>
PassInfo loop_pass(std::string name, std::string description, Fn run,
                   std::function<std::string(const loop::Module&)> precondition = nullptr) {
  return loop_pass_of(std::move(name), std::move(description), with_context<loop::Module>(std::move(run)),
                      std::move(precondition));
}

const std::vector<PassInfo>& all_passes();           // registry order (passes.def)
const PassInfo& find_pass(const std::string& name);  // UserError(Usage) naming the known passes

// `--passes=a,b,c` (spaces allowed around names); every name must be registered and the order
// usable (pass_order_problem). UserError(Usage) naming `flag` otherwise.
std::vector<std::string> parse_pass_list(const std::string& text, const std::string& flag);

// What makes a list of known passes unusable, whatever the program ("" when nothing): graph
// passes after LegalizeOps, loop passes before it, LegalizeOps missing or twice, a codegen step
// (the variant's settings turn those on).
std::string pass_order_problem(const std::vector<std::string>& passes);

struct PassEvent {
  int number;        // 1-based application number
  std::string pass;
  bool ran;          // false: skipped by the bisect limit
  bool required;     // LegalizeOps: runs whatever the limit
};

struct RunOptions {
  // What every pass is handed: the target, the test faults, the bisection limit (run only the
  // first N pass applications, -1: all, like opt-bisect).
  CompileContext context;
  bool verify_each = true;
  std::set<std::string> disabled;  // passes dropped from the list (not numbered)
  // Called before every pass that runs (the oracle reports it as the stage a crash happened in).
  std::function<void(const std::string& pass)> before_pass;
  // Called for every application reached, run or skipped (opt-bisect's log).
  std::function<void(const PassEvent&)> on_event;
  // Stop before LegalizeOps: only the graph passes run (Lowered::module stays empty). For a caller
  // that wants the program the graph passes leave without lowering it in its own process.
  bool graph_only = false;
  // The optional codegen steps the compile will apply after the pass list (codegen_steps of
  // pipelines.h), numbered after it: those within the bisect limit come back in
  // Lowered::codegen_steps for the JIT.
  std::vector<std::string> codegen_steps;
};

// LLVM's wording: "BISECT: running pass (3) CommonSubexprElimination".
std::string bisect_line(const PassEvent& e);

struct Lowered {
  Program graph;        // after the graph passes
  loop::Module module;  // after lowering and the loop passes
  int applied = 0;      // pass applications reached (run or skipped)
  // The passes whose application changed the IR, in order (a pass applied twice may appear
  // twice): a graph pass that returned a new program, a loop pass that rebuilt a function or
  // changed the calls (passes hand back what they did not change), and LegalizeOps.
  std::vector<std::string> changed;
  // The codegen steps of RunOptions::codegen_steps within the bisect limit: the JIT applies these.
  std::vector<std::string> codegen_steps;
};

// Runs `passes` in order. The list must contain LegalizeOps exactly once, after every graph
// pass and before every loop pass (UserError otherwise); a pass whose pre-condition fails is
// refused with a UserError naming the pass and the reason.
Lowered run_passes(const Program& p, const std::vector<std::string>& passes, const RunOptions& options = {});

}  // namespace difftest::pipeline
