// The held-out faults: written after the generator's last change, each modelled on a real upstream
// bug (docs/faults.md names it), and never used to tune the generator or the oracle. The detection
// benchmark reports them apart from the tuning set (the other catalog files), so that its held-out
// figure measures faults the generator was not shaped to reach.
#include "compiler/faults/catalog.h"

namespace difftest::faults {

std::vector<FaultInfo> held_out_faults() {
  return {
    {"round-ties-away-from-zero",
     "codegen emits `round` (and every rounding built on it, quantize's included) as llvm.round, which rounds "
     "halves away from zero, instead of rint's ties-to-even: wrong on exact ties only; the ONNX Round lowering "
     "that gives round(0.5) = 1",
     "codegen", true},
    {"f16-vector-round-truncates",
     "codegen rounds f32 vector registers to f16 (after each f16 operation of a vectorized loop body) toward "
     "zero instead of to nearest even: at most one ulp, on the elements that round away from zero, in vector "
     "code only; a float-to-half routine that truncates",
     "codegen", true},
    {"subnormal-loads-flushed",
     "codegen flushes subnormal float values to signed zero as it loads them (denormals-are-zero), so a "
     "subnormal intermediate stored by one kernel reads as 0 in the next: flush-to-zero turned on by a fast-math "
     "setting",
     "codegen", true},
    {"exp-via-exp2-rounded-product",
     "The exp lowering computes exp(x) as pow(2, x * log2(e)) with the product rounded in x's dtype: a relative "
     "error of about |x| ulps, inside the bound for small |x| and outside it for large ones; an exp built on "
     "exp2 whose argument loses its low bits",
     "LegalizeOps", true},
    {"argmax-ties-pick-last",
     "The argmax and argmin lowerings replace the best index on an equal value too, so a row with a tied extreme "
     "answers the last of the tied indices instead of the first: a reduction kernel whose comparison is >= "
     "where the op means >",
     "LegalizeOps", true},
    {"broadcast-both-sides-flat-modulo",
     "When both operands of an elementwise binary op are broadcast, the lowering reads each at the flat output "
     "index modulo its element count, the fast path that is right only for an operand whose shape is a suffix "
     "of the result's ([n, 1] + [1, m] reads the first operand wrongly): a broadcast kernel with a wrong index "
     "rule for two-sided broadcasting",
     "LegalizeOps", true},
    {"matmul-rhs-batch-follows-lhs",
     "The matmul lowering indexes the right operand's batch dims with the left operand's broadcast batch "
     "index, so when the left operand's batch is broadcast (size 1 or missing) every result batch reads the "
     "right operand's first batch: a batched matmul that only broadcasts the left operand",
     "LegalizeOps", true},
    {"group-norm-channels-strided",
     "The group_norm lowering puts channel c in group c % G instead of c / (C / G), so each group normalizes "
     "channels spread across the tensor with one another's statistics; right for G = 1 and for one channel "
     "per group (instance_norm): a channel-to-group mapping written for the other layout",
     "LegalizeOps", true},
    {"rms-norm-eps-outside-sqrt",
     "The rms_norm lowering divides by sqrt(mean(x^2)) + eps instead of sqrt(mean(x^2) + eps): off by about "
     "eps / rms relative, so it shows on rows of small magnitude or with a large eps; RMSNorm written as "
     "x / (rms + eps)",
     "LegalizeOps", true},
    {"gqa-kv-head-modulo",
     "The attention lowering maps query head h to kv head h % Hkv instead of h / (Hq / Hkv): right without "
     "grouping or with one kv head, wrong for grouped-query attention with several kv heads: tile where "
     "repeat_interleave was meant",
     "LegalizeOps", true},
    {"window-start-ignores-offset",
     "The attention and mask lowerings start a sliding window at row index i - window instead of position "
     "offset + i - window, so with a KV-cache offset each row also admits up to `offset` keys before its window; "
     "right at offset 0: a window computed in query coordinates, not in cache positions",
     "LegalizeOps", true},
    {"decompose-softcap-dropped",
     "DecomposeOps writes attention without its logit soft-capping (softcap * tanh(s / softcap)), so the "
     "decomposed attention of O2/O3 uses the raw scores: an error of about s^3 / (3 softcap^2) in each score, "
     "small while the scores are small next to the cap; an attention path that silently ignores softcap",
     "DecomposeOps", true},
    {"reduction-lane-partials-narrow",
     "ScheduleReduction rounds each vector lane's partial sum to the operand dtype (f16, bf16, or f32 under an "
     "f64 accumulator) at every step (the remainder loop and the combine of the lanes too) while the declared accumulator is wider: "
     "partial sums kept in half precision where float accumulation was declared",
     "ScheduleReduction", true},
    {"simplify-permute-composed-backwards",
     "SimplifyExpr's permute-permute rule composes two permute_dims in the wrong order (c[k] = outer[inner[k]] "
     "instead of inner[outer[k]]): right when the two commute (a transpose and its inverse, equal "
     "permutations, rank 2), wrong for rank >= 3 pairs that do not: a peephole fusing two transposes",
     "SimplifyExpr", true},
  };
}

}  // namespace difftest::faults
