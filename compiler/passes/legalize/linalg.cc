// Lowerings of the linalg family: one loop nest over the result around a dot product of length
// K. Operands are widened to `acc` (absent: the operand dtype) before the multiply, so products
// and sums are carried in the accumulator and the result is rounded once.
#include "compiler/faults/faults.h"
#include "compiler/passes/legalize/lowering.h"

namespace difftest::passes {

// Test faults of this file (docs/faults.md): off unless switched on.

const faults::Fault kMatmulF16Accumulation({
    .name = "matmul-f16-accumulation",
    .pass = "LegalizeOps",
    .description = "The matmul lowering of f16 operands with a declared f32 (or f64) accumulator rounds every "
        "partial sum to f16, which stalls on long K: a kernel or intrinsic choice that ignores the requested "
        "accumulator dtype",
    .models = "a kernel or intrinsic choice that ignores the requested accumulator dtype",
});

const faults::Fault kMatmulRhsBatchFollowsLhs({
    .name = "matmul-rhs-batch-follows-lhs",
    .pass = "LegalizeOps",
    .description = "The matmul lowering indexes the right operand's batch dims with the left operand's broadcast "
        "batch index, so when the left operand's batch is broadcast (size 1 or missing) every result batch reads "
        "the right operand's first batch: a batched matmul that only broadcasts the left operand",
    .models = "batch broadcasting of batched matmul handled on one side only (apache/tvm#12301, apache/tvm#11242)",
    .held_out = true,
});

namespace {

using loop::Expr;
using loop::Stmt;

// The dims of a shape before its last `trailing` ones.
std::vector<Expr> leading(const std::vector<Expr>& shape, size_t trailing) {
  return {shape.begin(), shape.end() - static_cast<std::ptrdiff_t>(trailing)};
}

// `prefix` followed by two more indices.
std::vector<Expr> with_pair(std::vector<Expr> prefix, const Expr& a, const Expr& b) {
  prefix.push_back(a);
  prefix.push_back(b);
  return prefix;
}

// out[idx] = cast(out, bias(sum_k term(k))) with the sum in `acc`.
Stmt dot_into(LowerContext& c, DType acc, const Expr& k_extent, const Expr& out_index,
              const std::function<Expr(const Expr& k)>& term, const std::function<Expr(const Expr& sum)>& bias) {
  return reduce_into(
      c, acc, loop::imm(0, acc), k_extent, [&](const Expr& sum, const Expr& k) { return sum + term(k); },
      [&](const Expr& sum) { return Stmt::store(c.out[0], out_index, loop::cast(c.out_dtype(), bias(sum))); });
}

Expr no_bias(const Expr& sum) { return sum; }

// Fault matmul-rhs-batch-follows-lhs: `index` with leading zeros up to `rank` dims, so that the
// left operand's batch index can be broadcast into a right operand of higher batch rank.
std::vector<Expr> padded_front(std::vector<Expr> index, size_t rank) {
  while (index.size() < rank) index.insert(index.begin(), Expr(0));
  return index;
}

// y[..., i, j] = sum_k A[..., i, k] * B[..., k, j], with A and B the operands or their
// transposes, and each operand's batch index the NumPy broadcast of the result's.
Stmt matmul(LowerContext& c) {
  const bool ta = c.attrs().get_bool("transpose_a"), tb = c.attrs().get_bool("transpose_b");
  const DType acc = c.acc(c.out_dtype());
  const auto& a_shape = c.in_shape(0);
  const auto& b_shape = c.in_shape(1);
  const Expr k_extent = ta ? a_shape[a_shape.size() - 2] : a_shape.back();
  const std::vector<Expr> a_batch = leading(a_shape, 2), b_batch = leading(b_shape, 2);
  return loop_nest(c, c.out_shape(), [&](const std::vector<Expr>& idx) {
    const std::vector<Expr> batch = leading(idx, 2);
    const Expr& i = idx[idx.size() - 2];
    const Expr& j = idx.back();
    const std::vector<Expr> a_prefix = broadcast_index(batch, a_batch);
    const std::vector<Expr> b_prefix = c.compile.fault(kMatmulRhsBatchFollowsLhs)
                                           ? broadcast_index(padded_front(a_prefix, b_batch.size()), b_batch)
                                           : broadcast_index(batch, b_batch);
    const auto term = [&](const Expr& k) {
      const Expr a = c.in[0][flat_index(ta ? with_pair(a_prefix, k, i) : with_pair(a_prefix, i, k), a_shape)];
      const Expr b = c.in[1][flat_index(tb ? with_pair(b_prefix, j, k) : with_pair(b_prefix, k, j), b_shape)];
      return loop::cast(acc, a) * loop::cast(acc, b);
    };
    if (acc != DType::f16 && c.out_dtype() == DType::f16 && c.compile.fault(kMatmulF16Accumulation)) {
      // The declared accumulator ignored for the operand dtype: every partial sum is rounded
      // to f16 (the products of f16 operands are exact in f32, so this is f16 accumulation).
      const Expr out = flat_index(idx, c.out_shape());
      return reduce_into(
          c, acc, loop::imm(0, acc), k_extent,
          [&](const Expr& sum, const Expr& k) { return loop::cast(acc, loop::cast(DType::f16, sum + term(k))); },
          [&](const Expr& sum) { return Stmt::store(c.out[0], out, loop::cast(DType::f16, sum)); });
    }
    return dot_into(c, acc, k_extent, flat_index(idx, c.out_shape()), term, no_bias);
  });
}

// y[..., n] = sum_k x[..., k] * w[n, k] (+ bias[n], added in the accumulator).
Stmt linear(LowerContext& c) {
  const DType acc = c.acc(c.out_dtype());
  const auto& x_shape = c.in_shape(0);
  const Expr k_extent = x_shape.back();
  const bool has_bias = c.in.size() > 2;
  return loop_nest(c, c.out_shape(), [&](const std::vector<Expr>& idx) {
    const std::vector<Expr> rows = leading(idx, 1);
    const Expr& n = idx.back();
    const auto term = [&](const Expr& k) {
      std::vector<Expr> x_idx = rows;
      x_idx.push_back(k);
      const Expr x = c.in[0][flat_index(x_idx, x_shape)];
      const Expr w = c.in[1][n * k_extent + k];
      return loop::cast(acc, x) * loop::cast(acc, w);
    };
    const auto bias = [&](const Expr& sum) { return has_bias ? sum + loop::cast(acc, c.in[2][n]) : sum; };
    return dot_into(c, acc, k_extent, flat_index(idx, c.out_shape()), term, bias);
  });
}

}  // namespace

void register_linalg_lowerings(LoweringTable& t) {
  t.add("matmul", matmul);
  t.add("linear", linear);
}

}  // namespace difftest::passes
