// Lowerings of the reduction family: one loop nest over the kept axes around a nest over the
// reduced axes with a scalar accumulator. Reduced axes are dropped or kept as size-1 dims, which
// leaves the row-major flat index of the result unchanged, so both layouts index the result
// with the kept indices alone.
//
// Float sums and products accumulate in `acc` (absent: the operand dtype) and round once to the
// result dtype; integers accumulate in their own dtype, whose wrapping arithmetic is the op's.
// max/min/argmax/argmin are exact comparisons in the operand dtype.
#include <cmath>

#include "compiler/faults/faults.h"
#include "compiler/passes/legalize/lowering.h"

namespace difftest::passes {

// Test faults of this file (docs/faults.md): off unless switched on.

const faults::Fault kArgmaxTiesPickLast({
    .name = "argmax-ties-pick-last",
    .pass = "LegalizeOps",
    .description = "The argmax and argmin lowerings replace the best index on an equal value too, so a row with a "
        "tied extreme answers the last of the tied indices instead of the first: a reduction kernel whose "
        "comparison is >= where the op means >",
    .models = "Inductor's argmax/argmin kernel returning the last tied index (pytorch/pytorch#93630)",
    .held_out = true,
});

namespace {

using loop::Expr;
using loop::Stmt;

// Which axes of the operand a reduction folds.
struct AxisPlan {
  std::vector<bool> reduced;  // per operand axis

  // Operand extents of the kept (false) or the reduced (true) axes, in order.
  std::vector<Expr> extents(const std::vector<Expr>& shape, bool of_reduced) const {
    std::vector<Expr> out;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (reduced[d] == of_reduced) out.push_back(shape[d]);
    }
    return out;
  }

  // The operand index that interleaves kept and reduced indices back into axis order.
  std::vector<Expr> merge(const std::vector<Expr>& kept, const std::vector<Expr>& red) const {
    std::vector<Expr> idx;
    size_t k = 0, r = 0;
    for (const bool is_reduced : reduced) idx.push_back(is_reduced ? red[r++] : kept[k++]);
    return idx;
  }
};

// `axes` as the ops define it: negative counts from the end, an empty list means every axis.
AxisPlan plan_of(const std::vector<int64_t>& axes, size_t rank) {
  AxisPlan p{std::vector<bool>(rank, axes.empty())};
  for (const int64_t a : axes) p.reduced[static_cast<size_t>(normalized_axis(a, rank))] = true;
  return p;
}

// `acc = init; for every reduced position r: acc = step(acc, r); then(acc)` over several
// reduced axes (reduce_into's multi-axis form), with a local scalar accumulator of dtype `t`.
Stmt accumulate(LowerContext& c, DType t, const Expr& init, const std::vector<Expr>& extents,
                const std::function<Expr(const Expr& acc, const std::vector<Expr>& r)>& step,
                const std::function<Stmt(const Expr& acc)>& then) {
  const loop::Buffer acc = c.scratch("acc", t);
  const Stmt body = Stmt::seq({
      Stmt::store(acc, 0, init),
      loop_nest(c, extents, [&](const std::vector<Expr>& r) { return Stmt::store(acc, 0, step(acc[0], r)); }),
      then(acc[0]),
  });
  return Stmt::allocate(acc, loop::Scope::Local, body);
}

// What a reduction computes: the accumulator's dtype and start, one step, and the result.
struct Fold {
  DType acc;
  Expr init;
  std::function<Expr(const Expr& acc, const Expr& x)> step;                    // x already in `acc`
  std::function<Expr(const Expr& acc, const Expr& count)> finish = nullptr;  // count: i64 elements
};

// The loop nest of every axes-reduction: for each kept position, fold the reduced positions.
Lowering fold_lowering(std::function<Fold(const LowerContext&)> make_fold) {
  return [make_fold = std::move(make_fold)](LowerContext& c) {
    const Fold f = make_fold(c);
    const auto& shape = c.in_shape(0);
    const AxisPlan plan = plan_of(c.attrs().get_ints("axes"), shape.size());
    const std::vector<Expr> kept = plan.extents(shape, false), red = plan.extents(shape, true);
    Expr count = 1;
    for (const auto& e : red) count = count * e;
    return loop_nest(c, kept, [&](const std::vector<Expr>& k) {
      return accumulate(
          c, f.acc, f.init, red,
          [&](const Expr& acc, const std::vector<Expr>& r) {
            return f.step(acc, loop::cast(f.acc, c.in[0][flat_index(plan.merge(k, r), shape)]));
          },
          [&](const Expr& acc) {
            const Expr result = f.finish ? f.finish(acc, count) : acc;
            return Stmt::store(c.out[0], flat_index(k, kept), loop::cast(c.out_dtype(), result));
          });
    });
  };
}

// Floats: the declared accumulator; integers: their own (wrapping) dtype.
DType reduction_accumulator(const LowerContext& c) { return c.acc(c.in_dtype(0)); }

Fold sum_fold(const LowerContext& c) {
  const DType a = reduction_accumulator(c);
  return {a, loop::imm(0, a), [](const Expr& acc, const Expr& x) { return acc + x; }};
}

// acc / count rounded once to the accumulator: the division is done in f64, where the count is
// exact (in bf16 even a count of 257 is not) and the quotient of an accumulator value is too.
Expr divide_by_count(const Expr& sum, const Expr& count) {
  const Expr q = loop::cast(DType::f64, sum) / loop::cast(DType::f64, count);
  return loop::cast(sum.dtype(), q);
}

Fold mean_fold(const LowerContext& c) {
  Fold f = sum_fold(c);
  f.finish = divide_by_count;
  return f;
}

Fold prod_fold(const LowerContext& c) {
  const DType a = reduction_accumulator(c);
  return {a, loop::imm(1, a), [](const Expr& acc, const Expr& x) { return acc * x; }};
}

// The identity of max (lowest = true) or min: an infinity for floats, the dtype's bound for
// integers. Starting there (not at the first element) lets a NaN first element be skipped like
// any other, as the comparison-based max skips NaNs.
Expr extreme(DType t, bool lowest) {
  if (is_float(t)) return loop::imm(lowest ? -INFINITY : INFINITY, t);
  return Expr::int_imm(lowest ? int_min(t) : int_max(t), t);
}

Fold max_fold(const LowerContext& c) {
  const DType t = c.in_dtype(0);
  return {t, extreme(t, true), [](const Expr& acc, const Expr& x) { return loop::max(acc, x); }};
}

Fold min_fold(const LowerContext& c) {
  const DType t = c.in_dtype(0);
  return {t, extreme(t, false), [](const Expr& acc, const Expr& x) { return loop::min(acc, x); }};
}

// argmax/argmin along one axis: the accumulator is the best index so far, and a candidate
// replaces it only when strictly better, so ties keep the smallest index. A NaN is better than
// any number and nothing is better than a NaN: the first NaN's index, as NumPy.
Lowering arg_lowering(bool largest) {
  return [largest](LowerContext& c) {
    const auto& shape = c.in_shape(0);
    const AxisPlan plan = plan_of({c.attrs().get_int("axis")}, shape.size());
    const std::vector<Expr> kept = plan.extents(shape, false), red = plan.extents(shape, true);
    const loop::Buffer& x = c.in[0];
    return loop_nest(c, kept, [&](const std::vector<Expr>& k) {
      const auto at = [&](const Expr& i) { return x[flat_index(plan.merge(k, {i}), shape)]; };
      return reduce_into(
          c, DType::i64, 0, red[0],
          [&](const Expr& best, const Expr& i) {
            const Expr x = at(i), current = at(best);
            const bool ties_too = c.compile.fault(kArgmaxTiesPickLast);
            Expr better = largest ? (ties_too ? x >= current : x > current) : (ties_too ? x <= current : x < current);
            if (is_float(c.in_dtype(0))) better = current == current && (better || x != x);
            return loop::select(better, i, best);
          },
          [&](const Expr& best) { return Stmt::store(c.out[0], flat_index(k, kept), best); });
    });
  };
}

}  // namespace

void register_reduction_lowerings(LoweringTable& t) {
  t.add("sum", fold_lowering(sum_fold));
  t.add("mean", fold_lowering(mean_fold));
  t.add("prod", fold_lowering(prod_fold));
  t.add("max", fold_lowering(max_fold));
  t.add("min", fold_lowering(min_fold));
  t.add("argmax", arg_lowering(true));
  t.add("argmin", arg_lowering(false));
}

}  // namespace difftest::passes
