// TVMScript export for upstream bug reports: `repro_tvmscript.py` holds the program as a TVM
// Relax IRModule and a driver that builds it at a failing and a passing configuration, runs
// both on the same seeded inputs and compares them. A reviewer needs TVM and numpy only, not
// difftest. See docs/reports.md.
#pragma once

#include <map>
#include <string>

#include "compiler/ir/ir.h"
#include "compiler/ops/op_table.h"

namespace difftest::exporters {

struct TvmScriptOptions {
  std::string failing_config = "O3";  // "O0".."O3" select a TVM opt_level; anything else is shown as is
  std::string passing_config = "O0";
  sym::Env binding;                   // dims of the driver's inputs; absent dims take their lower bound
};

// The program as a Python file: imports, `@I.ir_module class Module` whose `main` holds one
// dataflow binding per op (ops without a Relax counterpart become `@T.prim_func`s called
// through R.call_tir), then the driver. Generated constants become extra parameters that the
// driver materializes bit for bit (SplitMix64, as compiler/tensor/constant.h). Throws
// InternalError naming the op when an op has no exporter: never silently wrong output.
std::string export_tvmscript(const Program& p, const TvmScriptOptions& options = {});

// Our op name -> the Relax op it maps to ("R.matmul", "R.nn.softmax", ...), or "" when the op
// is exported as a T.prim_func called through R.call_tir. Registered per family
// (compiler/ops/op_table.h); every registry op is a key.
using RelaxOpTable = OpTable<std::string>;
const RelaxOpTable& relax_op_table();

}  // namespace difftest::exporters
