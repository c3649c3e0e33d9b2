// Every pass the compiler has, in one flat list: graph passes, the lowering boundary, loop
// passes. `difftest --list-passes` prints it in this order.
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

const std::vector<PassInfo>& all_passes() {
  static const std::vector<PassInfo> passes = {
      // graph passes
      graph_pass("FoldConstant", "evaluate calls whose operands are all constants (with the compiler, at O0) into literals",
                 [](const Program& p, const CompileContext& c) { return passes::fold_constant(p, c, values_at_o0); }),
      graph_pass("SimplifyExpr", "algebraic identities that are exact bit for bit (x*1, neg(neg(x)), cast round trips ...)",
                 passes::simplify_expr),
      graph_pass("CommonSubexprElimination",
                 "merge calls with the same op, operands, attributes and result types, and identical constants",
                 passes::common_subexpr_elimination),
      graph_pass("DeadCodeElimination", "drop op bindings and constants whose results nothing uses",
                 passes::dead_code_elimination),
      graph_pass("SpecializeShapes", "replace every dim variable whose range is a single value by that constant",
                 passes::specialize_shapes),
      graph_pass("DecomposeOps", "rewrite softmax, norms, gelu and attention into primitive ops, rounding where they round",
                 passes::decompose_ops),
      graph_pass("FuseTransposeMatmul", "fold a permute_dims swapping the last two axes into matmul's transpose flag",
                 passes::fuse_transpose_matmul),
      graph_pass("FuseAddRMSNorm", "group an add with the rms_norm it feeds (the residual stays an output)",
                 passes::fuse_add_rms_norm),
      graph_pass("FuseDequantizeMatmul", "group a dequantize with the matmul/linear whose weight it is",
                 passes::fuse_dequantize_matmul),
      graph_pass("FuseOps", "group ops into fusion groups by their op patterns (annotations only)", passes::fuse_ops),

      // the lowering boundary
      {"LegalizeOps", "lower every op to a loop-IR PrimFunc written from its semantics", PassKind::Lowering, nullptr,
       passes::legalize_ops, nullptr, {}, {}},

      // loop passes
      loop_pass("LoopSimplify", "simplify index arithmetic and provable conditions; drop loops of extent <= 1",
                passes::loop_simplify),
      loop_pass("LICM", "hoist loop-invariant loads and intrinsic calls into guarded local scalars before the loop",
                passes::licm, passes::licm_precondition),
      loop_pass("StorageRewrite", "move allocations to their tightest scope and merge same-dtype siblings",
                passes::storage_rewrite),
      loop_pass("Unroll", "fully unroll `unrolled` loops and small constant serial innermost loops", passes::unroll),
      loop_pass("FuseLoops", "merge each fusion group's calls into one kernel, inlining or allocating intermediates",
                passes::fuse_loops, passes::fuse_loops_precondition),
      loop_pass("PlanMemory", "share storage between intermediates whose lifetimes do not overlap", passes::plan_memory,
                passes::plan_memory_precondition),
      loop_pass("ScheduleGEMV", "split the K sum of one-row matmul/linear nests over vector lanes, parallel over N",
                passes::schedule_gemv),
      loop_pass("ScheduleMatmul", "register-tile matmul/linear nests (MR x NR accumulators, vectorized columns, tails)",
                passes::schedule_matmul),
      loop_pass("ScheduleReduction", "split contiguous innermost sum/mean/max/min folds over vector lanes, then combine",
                passes::schedule_reduction),
      loop_pass("ScheduleElementwise", "flatten contiguous elementwise nests, vectorize the innermost loop, parallel the outermost",
                passes::schedule_elementwise),
  };
  return passes;
}

}  // namespace difftest::pipeline
