// Matrix products.
#include "compiler/ops/infer_util.h"

namespace difftest::ops {

void register_linalg_ops(OpRegistry& r) {
  {
    OpDef d;
    d.name = "matmul";
    d.family = "linalg";
    d.summary = "batched matrix product";
    d.semantics =
        "With A = a (or its last two dims swapped when transpose_a) of shape [..., M, K] and B = b (swapped "
        "when transpose_b) of shape [..., K, N]: y[..., i, j] = sum over k of A[..., i, k] * B[..., k, j]. "
        "Both operands have rank >= 2 and the same float dtype; batch dims (all but the last two) are "
        "NumPy-broadcast. Products and sums are carried in `acc` (any summation order, with or without "
        "FMA) and the result is rounded once to the operand dtype. The reduction length K is what the "
        "tolerance scales with.";
    d.inputs = {"a", "b"};
    d.min_inputs = d.max_inputs = 2;
    d.attrs = {attr_bool("transpose_a", false, "use a with its last two dims swapped"),
               attr_bool("transpose_b", false, "use b with its last two dims swapped"), attr_acc()};
    d.pattern = OpPattern::OutEWiseFusable;
    d.infer = [](const InferContext& ctx) {
      require_same_dtype(ctx, 0, 1);
      require_float(ctx, 0);
      require_min_rank(ctx, 0, 2);
      require_min_rank(ctx, 1, 2);
      accumulator(ctx, input(ctx, 0).dtype);
      const auto& a = input(ctx, 0).shape;
      const auto& b = input(ctx, 1).shape;
      const bool ta = ctx.attrs.get_bool("transpose_a"), tb = ctx.attrs.get_bool("transpose_b");
      const size_t ra = a.size(), rb = b.size();
      sym::Expr m = ta ? a[ra - 1] : a[ra - 2];
      sym::Expr ka = ta ? a[ra - 2] : a[ra - 1];
      sym::Expr kb = tb ? b[rb - 1] : b[rb - 2];
      sym::Expr n = tb ? b[rb - 2] : b[rb - 1];
      require_equal_dims(ctx, ka, kb, "reduction dims (K) of a and b");
      std::vector<sym::Expr> batch = broadcast_shapes(ctx, std::vector<sym::Expr>(a.begin(), a.end() - 2),
                                                      std::vector<sym::Expr>(b.begin(), b.end() - 2));
      batch.push_back(m);
      batch.push_back(n);
      return std::vector<TensorType>{TensorType{input(ctx, 0).dtype, batch}};
    };
    r.add(std::move(d));
  }
  {
    OpDef d;
    d.name = "linear";
    d.family = "linalg";
    d.summary = "dense layer x @ w^T + bias";
    d.semantics =
        "x: [..., K], w: [N, K] (PyTorch nn.Linear layout), optional bias: [N]. "
        "y[..., n] = sum over k of x[..., k] * w[n, k] (+ bias[n]), accumulated in `acc`, rounded once to "
        "the operand dtype (the bias is added in `acc` before that rounding). All operands share a float "
        "dtype.";
    d.inputs = {"x", "w", "bias"};
    d.min_inputs = 2;
    d.max_inputs = 3;
    d.attrs = {attr_acc()};
    d.pattern = OpPattern::OutEWiseFusable;
    d.infer = [](const InferContext& ctx) {
      require_float(ctx, 0);
      require_same_dtype(ctx, 0, 1);
      require_min_rank(ctx, 0, 1);
      require_rank(ctx, 1, 2);
      accumulator(ctx, input(ctx, 0).dtype);
      const auto& x = input(ctx, 0).shape;
      const auto& w = input(ctx, 1).shape;
      require_equal_dims(ctx, x.back(), w[1], "x's last dim and w's K");
      if (has_input(ctx, 2)) {
        require_same_dtype(ctx, 0, 2);
        require_rank(ctx, 2, 1);
        require_equal_dims(ctx, input(ctx, 2).shape[0], w[0], "bias length and w's N");
      }
      std::vector<sym::Expr> out(x.begin(), x.end() - 1);
      out.push_back(w[0]);
      return std::vector<TensorType>{TensorType{input(ctx, 0).dtype, out}};
    };
    r.add(std::move(d));
  }
}

}  // namespace difftest::ops
