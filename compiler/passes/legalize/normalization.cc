// Lowerings of softmax and the normalization layers. Each op is a loop over "rows" (the
// positions one statistic is taken over): a row along one axis for softmax, log_softmax,
// rms_norm and layer_norm; a contiguous [channels of a group, spatial] block for group_norm and
// instance_norm. A row is walked once per statistic (max, sum, mean, variance: the numerically
// standard two-pass forms) and once more to write the result.
//
// All intermediate arithmetic is in the accumulator A: `acc` when declared, otherwise f32 for
// f16/bf16 operands (never narrower than the documented operand-dtype default) and the operand
// dtype for f32/f64. The result is rounded once from A to the output dtype.
#include <cmath>

#include "compiler/faults/faults.h"
#include "compiler/passes/legalize/lowering.h"

namespace difftest::passes {

// Test faults of this file (docs/faults.md): off unless switched on.

const faults::Fault kGroupNormChannelsStrided({
    .name = "group-norm-channels-strided",
    .pass = "LegalizeOps",
    .description = "The group_norm lowering puts channel c in group c % G instead of c / (C / G), so each group "
        "normalizes channels spread across the tensor with one another's statistics; right for G = 1 and for one "
        "channel per group (instance_norm): a channel-to-group mapping written for the other layout",
    .models = "channels grouped in the wrong layout (tensorflow/addons#751, GroupNorm channels-last)",
    .held_out = true,
});

const faults::Fault kRmsNormEpsOutsideSqrt({
    .name = "rms-norm-eps-outside-sqrt",
    .pass = "LegalizeOps",
    .description = "The rms_norm lowering divides by sqrt(mean(x^2)) + eps instead of sqrt(mean(x^2) + eps): off by "
        "about eps / rms relative, so it shows on rows of small magnitude or with a large eps; RMSNorm written as x "
        "/ (rms + eps)",
    .models = "RMSNorm written as `x / (rms + eps)` (allenai/OLMo#281, EleutherAI/gpt-neox#1342)",
    .held_out = true,
});

namespace {

using loop::Expr;
using loop::Stmt;

// The positions of one row: nested extents, and for a position r the flat index into x and y
// and the index into the per-position vectors (weight, gamma, beta).
struct Row {
  std::vector<Expr> extents;
  std::function<Expr(const std::vector<Expr>&)> at;
  std::function<Expr(const std::vector<Expr>&)> channel;

  Expr count() const {
    Expr n = extents[0];
    for (size_t d = 1; d < extents.size(); ++d) n = n * extents[d];
    return n;
  }
};

// Every row along `axis` of a tensor of `shape`: the other axes are looped over.
Stmt for_each_axis_row(LowerContext& c, const std::vector<Expr>& shape, int axis,
                       const std::function<Stmt(const Row&)>& body) {
  std::vector<Expr> others = shape;
  others.erase(others.begin() + axis);
  return loop_nest(c, others, [&](const std::vector<Expr>& o) {
    const auto at = [o, shape, axis](const std::vector<Expr>& r) {
      std::vector<Expr> idx = o;
      idx.insert(idx.begin() + axis, r[0]);
      return flat_index(idx, shape);
    };
    return body(Row{{shape[static_cast<size_t>(axis)]}, at, [](const std::vector<Expr>& r) { return r[0]; }});
  });
}

// Every (n, group) block of x: [N, C, spatial...] with `groups` groups of consecutive channels.
// A block is contiguous: channels of the group, then the flattened spatial positions.
Stmt for_each_channel_block(LowerContext& c, const std::vector<Expr>& shape, const Expr& groups,
                            const std::function<Stmt(const Row&)>& body) {
  const Expr& channels = shape[1];
  const Expr per_group = floordiv(channels, groups);
  Expr spatial = 1;
  for (size_t d = 2; d < shape.size(); ++d) spatial = spatial * shape[d];
  return loop_nest(c, {shape[0], groups}, [&](const std::vector<Expr>& ng) {
    const Expr first_channel = ng[1] * per_group;
    const Expr n = ng[0];
    const bool strided = c.compile.fault(kGroupNormChannelsStrided);
    const Expr group = ng[1];
    const auto channel = [first_channel, strided, group, groups](const std::vector<Expr>& r) {
      return strided ? r[0] * groups + group : first_channel + r[0];
    };
    const auto at = [n, channels, spatial, channel](const std::vector<Expr>& r) {
      return (n * channels + channel(r)) * spatial + r[1];
    };
    return body(Row{{per_group, spatial}, at, channel});
  });
}

// The statements of one row, all in the accumulator dtype.
class RowOps {
 public:
  RowOps(LowerContext& c, DType acc) : c_(c), acc_(acc) {}

  DType acc() const { return acc_; }
  Expr imm(double v) const { return loop::imm(v, acc_); }

  // Operand `i` at index `index`, widened to the accumulator.
  Expr load(size_t i, const Expr& index) const { return loop::cast(acc_, c_.in[i][index]); }
  Expr x(const Row& row, const std::vector<Expr>& r) const { return load(0, row.at(r)); }

  // then(init folded with step over the row) with a local scalar accumulator.
  Stmt fold(const Row& row, const Expr& init, const std::function<Expr(const Expr&, const std::vector<Expr>&)>& step,
            const std::function<Stmt(const Expr&)>& then) {
    const loop::Buffer a = c_.scratch("acc", acc_);
    const Stmt body = Stmt::seq({
        Stmt::store(a, 0, init),
        loop_nest(c_, row.extents, [&](const std::vector<Expr>& r) { return Stmt::store(a, 0, step(a[0], r)); }),
        then(a[0]),
    });
    return Stmt::allocate(a, loop::Scope::Local, body);
  }

  Stmt sum(const Row& row, const std::function<Expr(const std::vector<Expr>&)>& term,
           const std::function<Stmt(const Expr&)>& then) {
    return fold(row, imm(0), [&](const Expr& s, const std::vector<Expr>& r) { return s + term(r); }, then);
  }

  // body(v) with `value` computed once into a local scalar.
  Stmt let(const Expr& value, const std::function<Stmt(const Expr&)>& body) {
    const loop::Buffer v = c_.scratch("let", value.dtype());
    return Stmt::allocate(v, loop::Scope::Local, Stmt::seq({Stmt::store(v, 0, value), body(v[0])}));
  }

  // sum / count rounded once to the accumulator: the division is in f64, where the count is
  // exact (a bf16 count of 257 is not) and so is the quotient of an accumulator value.
  Expr mean(const Expr& sum, const Row& row) const {
    return loop::cast(acc_, loop::cast(DType::f64, sum) / loop::cast(DType::f64, row.count()));
  }

  // v + c rounded once to the accumulator, with the constant exact (eps, weight offsets).
  Expr plus_exact(const Expr& v, double constant) const {
    return loop::cast(acc_, loop::cast(DType::f64, v) + loop::imm(constant, DType::f64));
  }

  // 1 / sqrt(var + eps).
  Expr inv_std(const Expr& var, double eps) const {
    return imm(1) / Expr::call("sqrt", {plus_exact(var, eps)});
  }

  // y[r] = value(r), rounded once to the output dtype, over the row.
  Stmt store_each(const Row& row, const std::function<Expr(const std::vector<Expr>&)>& value) {
    return loop_nest(c_, row.extents, [&](const std::vector<Expr>& r) {
      return Stmt::store(c_.out[0], row.at(r), loop::cast(c_.out_dtype(), value(r)));
    });
  }

  // then(mu, inverse standard deviation) of the row: mean first, then the biased variance
  // about it (two passes, no cancellation of E[x^2] - E[x]^2).
  Stmt moments(const Row& row, double eps, const std::function<Stmt(const Expr& mu, const Expr& inv)>& then) {
    return sum(row, [&](const std::vector<Expr>& r) { return x(row, r); }, [&](const Expr& s) {
      return let(mean(s, row), [&](const Expr& mu) {
        const auto square = [&](const std::vector<Expr>& r) { return (x(row, r) - mu) * (x(row, r) - mu); };
        return sum(row, square, [&](const Expr& q) {
          return let(inv_std(mean(q, row), eps), [&](const Expr& inv) { return then(mu, inv); });
        });
      });
    });
  }

 private:
  LowerContext& c_;
  DType acc_;
};

// The accumulator: declared, or f32 for the narrow floats, else the operand dtype.
DType accumulator(const LowerContext& c) {
  const DType t = c.in_dtype(0);
  return c.acc((t == DType::f16 || t == DType::bf16) ? DType::f32 : t);
}

int axis_attr(const LowerContext& c) { return normalized_axis(c.attrs().get_int("axis"), c.in_shape(0).size()); }

// softmax: exp(x - m) / sum exp(x - m); log_softmax: (x - m) - log(sum exp(x - m)).
Lowering softmax_lowering(bool log) {
  return [log](LowerContext& c) {
    RowOps ops(c, accumulator(c));
    return for_each_axis_row(c, c.in_shape(0), axis_attr(c), [&](const Row& row) {
      const auto max_step = [&](const Expr& m, const std::vector<Expr>& r) { return loop::max(m, ops.x(row, r)); };
      return ops.fold(row, ops.imm(-INFINITY), max_step, [&](const Expr& m) {
        const auto shifted = [&](const std::vector<Expr>& r) { return ops.x(row, r) - m; };
        const auto e = [&](const std::vector<Expr>& r) { return Expr::call("exp", {shifted(r)}); };
        return ops.sum(row, e, [&](const Expr& s) {
          if (!log) return ops.store_each(row, [&](const std::vector<Expr>& r) { return e(r) / s; });
          return ops.let(Expr::call("log", {s}), [&](const Expr& log_s) {
            return ops.store_each(row, [&](const std::vector<Expr>& r) { return shifted(r) - log_s; });
          });
        });
      });
    });
  };
}

// y = x * (1 / sqrt(mean(x^2) + eps)) * (weight + weight_offset).
Stmt rms_norm(LowerContext& c) {
  RowOps ops(c, accumulator(c));
  const double eps = c.attrs().get_float("eps"), offset = c.attrs().get_float("weight_offset");
  const auto weight = [&](const Row& row, const std::vector<Expr>& r) {
    const Expr w = ops.load(1, row.channel(r));
    return offset == 0 ? w : ops.plus_exact(w, offset);
  };
  return for_each_axis_row(c, c.in_shape(0), axis_attr(c), [&](const Row& row) {
    const auto square = [&](const std::vector<Expr>& r) { return ops.x(row, r) * ops.x(row, r); };
    return ops.sum(row, square, [&](const Expr& ss) {
      const Expr inv_rms = c.compile.fault(kRmsNormEpsOutsideSqrt)
                               ? ops.imm(1) / (Expr::call("sqrt", {ops.mean(ss, row)}) + ops.imm(eps))
                               : ops.inv_std(ops.mean(ss, row), eps);
      return ops.let(inv_rms, [&](const Expr& inv) {
        return ops.store_each(row, [&](const std::vector<Expr>& r) { return ops.x(row, r) * inv * weight(row, r); });
      });
    });
  });
}

// y = (x - mu) * inv_std * gamma + beta, for the rows `each_row` visits.
Stmt centered_norm(LowerContext& c, const std::function<Stmt(const std::function<Stmt(const Row&)>&)>& each_row) {
  RowOps ops(c, accumulator(c));
  const double eps = c.attrs().get_float("eps");
  return each_row([&](const Row& row) {
    return ops.moments(row, eps, [&](const Expr& mu, const Expr& inv) {
      return ops.store_each(row, [&](const std::vector<Expr>& r) {
        const Expr ch = row.channel(r);
        return (ops.x(row, r) - mu) * inv * ops.load(1, ch) + ops.load(2, ch);
      });
    });
  });
}

Stmt layer_norm(LowerContext& c) {
  return centered_norm(c, [&](const std::function<Stmt(const Row&)>& body) {
    return for_each_axis_row(c, c.in_shape(0), axis_attr(c), body);
  });
}

Stmt group_norm(LowerContext& c) {
  const Expr groups = c.attrs().get_int("num_groups");
  return centered_norm(c, [&](const std::function<Stmt(const Row&)>& body) {
    return for_each_channel_block(c, c.in_shape(0), groups, body);
  });
}

// One group per channel.
Stmt instance_norm(LowerContext& c) {
  return centered_norm(c, [&](const std::function<Stmt(const Row&)>& body) {
    return for_each_channel_block(c, c.in_shape(0), c.in_shape(0)[1], body);
  });
}

}  // namespace

void register_normalization_lowerings(LoweringTable& t) {
  t.add("softmax", softmax_lowering(false));
  t.add("log_softmax", softmax_lowering(true));
  t.add("rms_norm", rms_norm);
  t.add("layer_norm", layer_norm);
  t.add("group_norm", group_norm);
  t.add("instance_norm", instance_norm);
}

}  // namespace difftest::passes
