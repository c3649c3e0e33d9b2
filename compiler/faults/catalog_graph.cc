// Faults in graph passes (FoldConstant, DecomposeOps, CSE, fusion, ...). Each description says what breaks, where, and the
// real bug class it models; docs/faults.md lists them all.
#include "compiler/faults/catalog.h"

namespace difftest::faults {

std::vector<FaultInfo> graph_faults() {
  return {
    {"fold-constant-symbolic-shape",
     "FoldConstant folds a creation op of symbolic shape (arange, causal/sliding-window masks, fills) with every "
     "dim at its lower bound and stretches the literal by clipping: TVM's FoldConstant-on-symbolic-shapes bug "
     "class, wrong wherever a dim exceeds the guess",
     "FoldConstant"},
    {"decompose-window-off-by-one",
     "DecomposeOps builds the sliding-window mask of attention with window + 1, admitting one key too many per "
     "row: the Gemma-3/Mistral sliding-window off-by-one (q_pos - kv_pos <= window instead of <)",
     "DecomposeOps"},
    {"fold-constant-int-div-double",
     "FoldConstant folds integer floor_divide/floor_mod of constants as (T)((double)a / (double)b): the C "
     "conversion truncates toward zero where the op floors (-7 // 2 folds to -3, -7 % 2 to -1) and int64 "
     "operands past 2^53 round; models a folding engine holding constants as double (generated integer "
     "constants stay within +-100, so the truncation is what they expose)",
     "FoldConstant"},
    {"cse-ignores-transpose-flags",
     "CommonSubexprElimination leaves matmul's transpose_a/transpose_b out of the attributes it compares, so "
     "x @ W and x @ W^T of a square W merge into one: a CSE key that omits attributes (TVM's structural "
     "equality once ignored some attributes)",
     "CommonSubexprElimination"},
    {"softmax-no-max-subtraction",
     "DecomposeOps writes softmax (also inside attention) as exp(x) / sum(exp(x)) without subtracting the row "
     "maximum, so exp overflows to inf once a logit passes log(max) of the accumulator (88.7 in f32, 11.1 in "
     "f16) and the row becomes NaN: the unstable softmax",
     "DecomposeOps"},
  };
}

}  // namespace difftest::faults
