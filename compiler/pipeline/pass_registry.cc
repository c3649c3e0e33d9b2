// The registry: every step of passes.def, in its order.
#include "compiler/passes/common_subexpr_elimination.h"
#include "compiler/passes/dead_code_elimination.h"
#include "compiler/passes/decompose_ops.h"
#include "compiler/passes/fold_constant.h"
#include "compiler/pipeline/constant_evaluation.h"
#include "compiler/passes/fuse_add_rms_norm.h"
#include "compiler/passes/fuse_dequantize_matmul.h"
#include "compiler/passes/fuse_loops.h"
#include "compiler/passes/fuse_ops.h"
#include "compiler/passes/fuse_transpose_matmul.h"
#include "compiler/passes/legalize_ops.h"
#include "compiler/passes/licm.h"
#include "compiler/passes/loop_simplify.h"
#include "compiler/passes/plan_memory.h"
#include "compiler/passes/schedule/schedule_elementwise.h"
#include "compiler/passes/schedule/schedule_gemv.h"
#include "compiler/passes/schedule/schedule_matmul.h"
#include "compiler/passes/schedule/schedule_reduction.h"
#include "compiler/passes/simplify_expr.h"
#include "compiler/passes/specialize_shapes.h"
#include "compiler/passes/storage_rewrite.h"
#include "compiler/passes/unroll.h"
#include "compiler/pipeline/pass_manager.h"

namespace difftest::pipeline {

namespace {

// FoldConstant evaluates what it folds with the compiler itself, at O0.
Program fold_constant_at_o0(const Program& p, const CompileContext& c) { return passes::fold_constant(p, c, values_at_o0); }

PassInfo codegen_step(std::string name, bool required, std::string description) {
  PassInfo p{std::move(name), std::move(description), PassKind::Codegen, nullptr, nullptr, nullptr, {}, {}};
  p.required = required;
  return p;
}

}  // namespace

const std::vector<PassInfo>& all_passes() {
  static const std::vector<PassInfo> passes = {
#define GRAPH_PASS(NAME, RUN, DESCRIPTION) graph_pass(#NAME, DESCRIPTION, RUN),
#define LOWERING_PASS(NAME, RUN, DESCRIPTION) \
  {#NAME, DESCRIPTION, PassKind::Lowering, nullptr, RUN, nullptr, {}, {}, true},
#define LOOP_PASS(NAME, RUN, PRECONDITION, DESCRIPTION) loop_pass(#NAME, DESCRIPTION, RUN, PRECONDITION),
#define CODEGEN_STEP(NAME, REQUIRED, DESCRIPTION) codegen_step(#NAME, REQUIRED, DESCRIPTION),
#include "compiler/pipeline/passes.def"
  };
  return passes;
}

}  // namespace difftest::pipeline
