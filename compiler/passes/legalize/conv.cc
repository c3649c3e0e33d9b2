// Lowerings of the conv family (NCL / NCHW layouts). Each convolution is a gather: one output
// element sums its taps in `acc`, skipping taps that fall into the padding (an if around the
// accumulation, so out-of-image positions are never loaded), adds the optional bias in `acc`
// and rounds once to the operand dtype.
#include "compiler/passes/legalize/lowering.h"

namespace difftest::passes {

namespace {

using loop::Expr;
using loop::Stmt;

// A tap of a reduction: whether it lands inside the input, and the x and w elements it multiplies.
struct Tap {
  Expr valid;
  Expr x_index, w_index;
};

// out[out_idx] = cast(sum over the reduction box of x * w (valid taps only) + bias[o]), in acc.
Stmt convolve(LowerContext& c, const std::vector<Expr>& out_idx, const Expr& o, const std::vector<Expr>& box,
              const std::function<Tap(const std::vector<Expr>&)>& tap) {
  const DType acc_t = c.acc(c.out_dtype());
  const loop::Buffer acc = c.scratch("acc", acc_t);
  const Stmt taps = loop_nest(c, box, [&](const std::vector<Expr>& r) {
    const Tap t = tap(r);
    const Expr product = loop::cast(acc_t, c.in[0][t.x_index]) * loop::cast(acc_t, c.in[1][t.w_index]);
    return Stmt::if_then_else(t.valid, Stmt::store(acc, 0, acc[0] + product));
  });
  Expr result = acc[0];
  if (c.in.size() > 2) result = result + loop::cast(acc_t, c.in[2][o]);
  return Stmt::allocate(acc, loop::Scope::Local,
                        Stmt::seq({Stmt::store(acc, 0, loop::imm(0, acc_t)), taps,
                                   Stmt::store(c.out[0], flat_index(out_idx, c.out_shape()), loop::cast(c.out_dtype(), result))}));
}

Expr in_range(const Expr& pos, const Expr& len) { return pos >= 0 && pos < len; }

// The first input channel of output channel o's group: groups split both channel ranges evenly.
Expr group_start(const Expr& o, const Expr& out_per_group, const Expr& in_per_group) {
  return floordiv(o, out_per_group) * in_per_group;
}

Stmt conv1d(LowerContext& c) {
  const int64_t stride = c.attrs().get_int("stride"), padding = c.attrs().get_int("padding");
  const int64_t dilation = c.attrs().get_int("dilation"), groups = c.attrs().get_int("groups");
  const auto& xs = c.in_shape(0);
  const auto& ws = c.in_shape(1);
  const Expr cin_g = ws[1], kernel = ws[2], out_per_group = floordiv(ws[0], groups);
  return loop_nest(c, c.out_shape(), [&](const std::vector<Expr>& idx) {
    const Expr &n = idx[0], &o = idx[1], &l = idx[2];
    const Expr first = group_start(o, out_per_group, cin_g);
    return convolve(c, idx, o, {cin_g, kernel}, [&](const std::vector<Expr>& r) {
      const Expr pos = l * stride - padding + r[1] * dilation;
      return Tap{in_range(pos, xs[2]), flat_index({n, first + r[0], pos}, xs), flat_index({o, r[0], r[1]}, ws)};
    });
  });
}

Stmt conv2d(LowerContext& c) {
  const auto& stride = c.attrs().get_ints("stride");
  const auto& padding = c.attrs().get_ints("padding");
  const auto& dilation = c.attrs().get_ints("dilation");
  const int64_t groups = c.attrs().get_int("groups");
  const auto& xs = c.in_shape(0);
  const auto& ws = c.in_shape(1);
  const Expr cin_g = ws[1], out_per_group = floordiv(ws[0], groups);
  return loop_nest(c, c.out_shape(), [&](const std::vector<Expr>& idx) {
    const Expr &n = idx[0], &o = idx[1];
    const Expr first = group_start(o, out_per_group, cin_g);
    return convolve(c, idx, o, {cin_g, ws[2], ws[3]}, [&](const std::vector<Expr>& r) {
      const Expr h = idx[2] * stride[0] - padding[0] + r[1] * dilation[0];
      const Expr v = idx[3] * stride[1] - padding[1] + r[2] * dilation[1];
      return Tap{in_range(h, xs[2]) && in_range(v, xs[3]), flat_index({n, first + r[0], h, v}, xs),
                 flat_index({o, r[0], r[1], r[2]}, ws)};
    });
  });
}

// Written as a gather: output l receives input j through tap k when j*stride - padding +
// k*dilation == l, i.e. j = (l + padding - k*dilation) / stride when that divides exactly.
Stmt conv_transpose1d(LowerContext& c) {
  const int64_t stride = c.attrs().get_int("stride"), padding = c.attrs().get_int("padding");
  const int64_t dilation = c.attrs().get_int("dilation"), groups = c.attrs().get_int("groups");
  const auto& xs = c.in_shape(0);
  const auto& ws = c.in_shape(1);  // [Cin, Cout / groups, K]
  const Expr cin_g = floordiv(xs[1], groups), out_per_group = ws[1];
  return loop_nest(c, c.out_shape(), [&](const std::vector<Expr>& idx) {
    const Expr &n = idx[0], &o = idx[1], &l = idx[2];
    const Expr first = group_start(o, out_per_group, cin_g);
    const Expr o_in_group = floormod(o, out_per_group);
    return convolve(c, idx, o, {cin_g, ws[2]}, [&](const std::vector<Expr>& r) {
      const Expr num = l + padding - r[1] * dilation;
      const Expr j = floordiv(num, stride);
      const Expr valid = num >= 0 && floormod(num, stride) == 0 && j < xs[2];
      return Tap{valid, flat_index({n, first + r[0], j}, xs), flat_index({first + r[0], o_in_group, r[1]}, ws)};
    });
  });
}

Stmt upsample_nearest1d(LowerContext& c) {
  const int64_t scale = c.attrs().get_int("scale");
  return loop_nest(c, c.out_shape(), [&](const std::vector<Expr>& idx) {
    const Expr x = c.in[0][flat_index({idx[0], idx[1], floordiv(idx[2], scale)}, c.in_shape(0))];
    return Stmt::store(c.out[0], flat_index(idx, c.out_shape()), x);
  });
}

}  // namespace

void register_conv_lowerings(LoweringTable& t) {
  t.add("conv1d", conv1d);
  t.add("conv2d", conv2d);
  t.add("conv_transpose1d", conv_transpose1d);
  t.add("upsample_nearest1d", upsample_nearest1d);
}

}  // namespace difftest::passes
