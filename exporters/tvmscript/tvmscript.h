// TVMScript export for upstream bug reports: `repro_tvmscript.py` holds the program as a TVM
// Relax IRModule and a driver. With the failure's expected results embedded, the driver runs
// the module at every TVM opt_level on the failing inputs and judges each against the reference
// by itself. A reviewer needs TVM and numpy only, not difftest. See docs/reports.md.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/ops/op_table.h"
#include "exporters/expected_results.h"

namespace difftest::exporters {

struct TvmScriptOptions {
  // "O0".."O3" select a TVM opt_level; anything else is shown as is; "" with `expected`: no failure
  // (`difftest export --tvmscript`), every level judged and any wrong one fails.
  std::string failing_config = "O3";
  std::string passing_config = "O0";
  sym::Env binding;                   // dims of the driver's inputs; absent dims take their lower bound
  // The failing run's inputs, the reference values and the allowance: with them the driver runs
  // Module at every TVM opt_level on those inputs and judges each against the reference (exit 1
  // when failing_config's level is wrong); without them it compares failing_config with
  // passing_config on seeded random inputs.
  std::optional<ExpectedResults> expected;
};

// The program as a Python file: imports, `@I.ir_module class Module` whose `main` holds one
// dataflow binding per op (ops without a Relax counterpart become `@T.prim_func`s called
// through R.call_tir), then the driver. Generated constants become extra parameters that the
// driver materializes bit for bit (SplitMix64, as compiler/tensor/constant.h). Throws
// InternalError naming the op when an op has no exporter: never silently wrong output.
std::string export_tvmscript(const Program& p, const TvmScriptOptions& options = {});

// The program as a module alone, for a worker that runs it under TVM's pipelines: the imports,
// `class Module` and SHAPE_DIMS. main's parameters are `inputs` (the program's params, then the
// generated constants, which the caller materializes and passes), then, when `shape_dims` is not
// empty, an R.Shape of those dims' values.
struct TvmScriptModule {
  std::string text;
  std::vector<Value> inputs;
  std::vector<std::string> shape_dims;
};
TvmScriptModule export_tvmscript_module(const Program& p);

// "" or why TVM documents the program as one it does not take, in a form the exporter cannot
// avoid (a conv1d_transpose whose output_padding is not below its stride: Relax's struct-info
// inference refuses it, as PyTorch does unless the dilation is larger).
std::string tvm_unsupported_form(const Program& p);

// Our op name -> the Relax op it maps to ("R.matmul", "R.nn.softmax", ...; for the layer ops
// composed of several, the one at its heart), or "" when the op is exported as a T.prim_func
// called through R.call_tir. Registered per family
// (compiler/ops/op_table.h); every registry op is a key.
using RelaxOpTable = OpTable<std::string>;
const RelaxOpTable& relax_op_table();

}  // namespace difftest::exporters
