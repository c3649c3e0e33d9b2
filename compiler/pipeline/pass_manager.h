// Passes registered once by name, and a PassManager that runs a flat list of them.
//
// A pipeline is graph passes (Program -> Program, still interpretable by the reference), then
// the lowering boundary `LegalizeOps` (Program -> loop Module), then loop passes
// (Module -> Module), then LLVM at a given level. Named pipelines live in pipelines.cc.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/loop/ir.h"

namespace difftest::pipeline {

enum class PassKind { Graph, Lowering, Loop };

struct PassInfo {
  std::string name;
  std::string description;  // one line
  PassKind kind;
  std::function<Program(const Program&)> graph;         // Graph
  std::function<loop::Module(const Program&)> lower;    // Lowering
  std::function<loop::Module(const loop::Module&)> loop;  // Loop
};

const std::vector<PassInfo>& all_passes();
const PassInfo& find_pass(const std::string& name);  // UserError(Usage) naming the known passes

struct RunOptions {
  bool verify_each = true;
  int bisect_limit = -1;  // run only the first N pass applications (-1: all), like opt-bisect
  // Called after every pass that ran with the pass name and the IR printed in its text form.
  std::function<void(const std::string& pass, const std::string& ir)> print_after;
};

struct Lowered {
  Program graph;        // after the graph passes
  loop::Module module;  // after lowering and the loop passes
  int applied = 0;      // pass applications that ran
};

// Runs `passes` in order. The list must contain LegalizeOps exactly once, after every graph
// pass and before every loop pass (UserError otherwise). With a bisect limit, passes beyond
// it are skipped except LegalizeOps, which always runs (without it there is nothing to run).
Lowered run_passes(const Program& p, const std::vector<std::string>& passes, const RunOptions& options = {});

}  // namespace difftest::pipeline
