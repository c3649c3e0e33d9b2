// Error rules of the elementwise family (scalar rules in error_model.cc).
#include <cmath>

#include "compiler/tensor/float_format.h"
#include "compiler/tensor/indexing.h"
#include "tolerance/bounds.h"

namespace difftest::tolerance {

namespace {

// A decision's outcomes (ScalarBound::choices) where the decision alone, not an uncertain
// operand, made element i uncertain.
void keep_choices(Bounded& out, size_t i, bool operand_uncertain, const ScalarBound& s) {
  if (s.uncertain && !operand_uncertain && !s.choices.empty()) out.choices[i] = s.choices;
}

void unary(RuleContext& c) {
  const Bounded& a = *c.in[0];
  Bounded& out = c.out[0];
  const std::string& op = c.binding.op().name;
  const double alpha = op == "leaky_relu" ? c.attrs().get_float("alpha") : 0.0;
  const double lo = op == "clip" ? c.attrs().get_float("min") : -INFINITY;
  const double hi = op == "clip" ? c.attrs().get_float("max") : INFINITY;
  const std::optional<UnaryRule> rule = unary_rule(op);
  DT_CHECK(rule.has_value() || !is_float(out.dtype), fmt::format("no unary error rule for '{}'", op));
  const bool neg = op == "neg", abs = op == "abs";
  for (size_t i = 0; i < out.ref.size(); ++i) {
    out.uncertain[i] = a.uncertain[i];
    if (!is_float(out.dtype)) {
      if (neg || abs) mark_integer_overflow(c, out, i, neg ? -a.ref[i] : std::fabs(a.ref[i]));
      continue;
    }
    const ScalarBound s = unary_bound(*rule, a.ref[i], a.err[i], out.ref[i], out.dtype, alpha, lo, hi);
    out.err[i] = s.err;
    out.uncertain[i] = out.uncertain[i] || s.uncertain;
    keep_choices(out, i, a.uncertain[i], s);
    if (quadrature(c.opt) && a.err[i] > 0) {
      const double inherited = s.err - unary_bound(*rule, a.ref[i], 0, out.ref[i], out.dtype, alpha, lo, hi).err;
      set_spread(c, out, i, inherited * spread(a, i) / a.err[i], inherited);
    }
  }
}

// The share of a binary op's bound at one element that one operand's error causes, and that
// share scaled to the operand's sd.
struct OperandShare {
  double bound = 0, sd = 0;
};

OperandShare operand_share(BinaryRule op, const Bounded& a, size_t j, const Bounded& b, size_t k, bool of_a,
                           double r, DType out) {
  const Bounded& own = of_a ? a : b;
  const size_t at = of_a ? j : k;
  if (own.err[at] <= 0) return {};
  const double with = binary_bound(op, a.ref[j], of_a ? a.err[j] : 0, b.ref[k], of_a ? 0 : b.err[k], r, out).err;
  const double without = binary_bound(op, a.ref[j], 0, b.ref[k], 0, r, out).err;
  const double share = std::max(0.0, with - without);
  return {share, share * spread(own, at) / own.err[at]};
}

// `op(x, x)` at element i, both operands the same value (RuleContext::same_args): its one error
// cancels where the op takes x's difference from itself, so the result is exact and certain
// whatever x's bound (x < x is false, x - x is 0, integer x / x is 1 for x != 0) — bounding the
// two as independent made it uncertain. A float quotient keeps two roundings: division by the
// reciprocal, x * (1 / x), is a legitimate form (docs/tolerance.md) and gives 1 - ulp for some
// x (OpenVINO's CPU plugin does: floor_divide(x, x) was 0 there), so x / x is 1 within them and
// floor_divide(x, x) is 0 or 1. False where the rule for distinct operands applies.
bool same_operand_result(const RuleContext& c, std::optional<BinaryRule> op, const Bounded& x, size_t i,
                         Bounded& out) {
  const bool nonzero = !x.uncertain[i] && std::fabs(x.ref[i]) > x.err[i];
  const bool quotient = op == BinaryRule::Div || op == BinaryRule::FloorDivide || op == BinaryRule::FloorMod;
  if (quotient && nonzero && is_float(out.dtype)) {
    const ScalarBound s = binary_bound(*op, x.ref[i], 0, x.ref[i], 0, out.ref[i], out.dtype);
    out.err[i] = s.err;
    out.uncertain[i] = s.uncertain;
    keep_choices(out, i, false, s);
    set_spread(c, out, i, 0, 0);
    return true;
  }
  // The binary ops with a bool result are the comparisons.
  if (out.dtype == DType::boolean || op == BinaryRule::Sub || (quotient && nonzero)) {
    out.err[i] = 0;
    out.uncertain[i] = 0;
    if (is_float(out.dtype)) set_spread(c, out, i, 0, 0);
    return true;
  }
  return false;
}

void binary(RuleContext& c) {
  const Bounded &a = *c.in[0], &b = *c.in[1];
  Bounded& out = c.out[0];
  const std::string& name = c.binding.op().name;
  const std::optional<BinaryRule> op = binary_rule(name);  // nullopt: a comparison
  const auto ia = broadcast_index(a.shape(), out.shape()), ib = broadcast_index(b.shape(), out.shape());
  const bool float_operands = is_float(c.binding.args()[0].type().dtype);
  const bool compare = out.dtype == DType::boolean && float_operands;
  DT_CHECK(op.has_value() || compare || !float_operands, fmt::format("no binary error rule for '{}'", name));
  const bool same = c.same_args(0, 1);
  for (size_t i = 0; i < out.ref.size(); ++i) {
    const auto j = static_cast<size_t>(ia[i]), k = static_cast<size_t>(ib[i]);
    if (same && same_operand_result(c, op, a, j, out)) continue;
    out.uncertain[i] = a.uncertain[j] || b.uncertain[k];
    if (compare) {
      out.uncertain[i] = out.uncertain[i] || comparison_uncertain(a.ref[j], a.err[j], b.ref[k], b.err[k]);
    } else if (!float_operands && (op == BinaryRule::Add || op == BinaryRule::Sub || op == BinaryRule::Mul)) {
      const double x = a.ref[j], y = b.ref[k];
      mark_integer_overflow(c, out, i, op == BinaryRule::Add ? x + y : op == BinaryRule::Sub ? x - y : x * y);
    } else if (float_operands) {
      const ScalarBound s = binary_bound(*op, a.ref[j], a.err[j], b.ref[k], b.err[k], out.ref[i], out.dtype);
      out.err[i] = s.err;
      out.uncertain[i] = out.uncertain[i] || s.uncertain;
      keep_choices(out, i, a.uncertain[j] || b.uncertain[k], s);
      if (!quadrature(c.opt)) continue;
      // The operands' shares add linearly (a and b may carry the same error: add(x, x)). A
      // broadcast operand's error is shared by every element it reaches, and a later sum over
      // them adds it coherently: it keeps no independent share (a uniform worst case).
      OperandShare sum;
      for (const bool of_a : {true, false}) {
        if ((of_a ? a : b).shape() != out.shape()) continue;
        const OperandShare share = operand_share(*op, a, j, b, k, of_a, out.ref[i], out.dtype);
        sum.bound += share.bound;
        sum.sd += share.sd;
      }
      set_spread(c, out, i, sum.sd, sum.bound);
    }
  }
}

// where(cond, x, y): an uncertain condition does not exclude the element; it may take either
// branch, so its bound covers both: |x - y| + max(e_x, e_y).
void where(RuleContext& c) {
  const Bounded &cond = *c.in[0], &x = *c.in[1], &y = *c.in[2];
  Bounded& out = c.out[0];
  const auto ic = broadcast_index(cond.shape(), out.shape());
  const auto ix = broadcast_index(x.shape(), out.shape()), iy = broadcast_index(y.shape(), out.shape());
  for (size_t i = 0; i < out.ref.size(); ++i) {
    const auto k = static_cast<size_t>(ic[i]), j = static_cast<size_t>(ix[i]), l = static_cast<size_t>(iy[i]);
    const bool take_x = cond.ref[k] != 0;
    if (!cond.uncertain[k]) {
      out.err[i] = take_x ? x.err[j] : y.err[l];
      out.uncertain[i] = take_x ? x.uncertain[j] : y.uncertain[l];
      const auto& outcomes = take_x ? x.choices : y.choices;  // a selected decision keeps its outcomes
      if (const auto it = outcomes.find(take_x ? j : l); it != outcomes.end()) out.choices[i] = it->second;
      if (is_float(out.dtype)) {
        const double sd = take_x ? spread(x, j) : spread(y, l);
        set_spread(c, out, i, sd, out.err[i]);
      }
    } else if (is_float(out.dtype)) {
      out.err[i] = std::fabs(x.ref[j] - y.ref[l]) + std::max(x.err[j], y.err[l]);
      out.uncertain[i] = x.uncertain[j] || y.uncertain[l];
    } else {
      out.uncertain[i] = x.ref[j] != y.ref[l] || x.uncertain[j] || y.uncertain[l];
    }
  }
}

void cast(RuleContext& c) {
  const Bounded& a = *c.in[0];
  Bounded& out = c.out[0];
  const DType from = c.binding.args()[0].type().dtype, to = out.dtype;
  for (size_t i = 0; i < out.ref.size(); ++i) {
    out.uncertain[i] = a.uncertain[i];
    const double r = a.ref[i], e = a.err[i];
    if (is_float(to)) {
      // An exact value the target holds converts exactly (a bool or small integer to bf16).
      const bool exact = e == 0 && round_to_float_dtype(r, to) == r;
      out.err[i] = exact ? 0 : e + rounding_error(std::fabs(out.ref[i]) + e, to);
      if (is_float(from)) set_spread(c, out, i, spread(a, i), e);
    } else if (!is_float(from)) {
      mark_integer_overflow(c, out, i, r);  // a narrowing integer cast keeps the low bits here
    } else {
      // A float past the integer's range saturates here; C, LLVM (fptosi/fptoui: poison) and ONNX
      // leave it undefined (TVM answered 4294967295 for u32(-1.37)). Truncation is monotone: the
      // interval's ends decide.
      if (to != DType::boolean) {
        for (const double x : {r - e, r + e}) mark_integer_overflow(c, out, i, std::trunc(x));
      }
      if (e <= 0) continue;
      // Truncation (or != 0 for bool) flips somewhere inside [r - e, r + e]?
      const bool flips = to == DType::boolean ? (r - e <= 0 && r + e >= 0)
                                              : float_to_int_dtype(r - e, to) != float_to_int_dtype(r + e, to);
      if (flips && !out.uncertain[i] && to != DType::boolean) {
        // Truncation is monotone: every integer between the two ends (a bool's two values would
        // say nothing).
        ScalarBound s;
        s.uncertain = true;
        const int64_t lo = float_to_int_dtype(r - e, to), hi = float_to_int_dtype(r + e, to);
        const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
        if (hi >= lo && span < kMaxChoices) {
          for (uint64_t d = 0; d <= span; ++d) s.choices.push_back(static_cast<double>(lo + static_cast<int64_t>(d)));
        }
        keep_choices(out, i, false, s);
      }
      out.uncertain[i] = out.uncertain[i] || flips;
    }
  }
}

void propagate_only(RuleContext& c) {  // exact integer / bool ops: uncertainty flows through
  Bounded& out = c.out[0];
  // b xor b is false whatever b is.
  if (c.binding.op().name == "logical_xor" && c.same_args(0, 1)) return;
  for (const Bounded* a : c.in) {
    const auto idx = broadcast_index(a->shape(), out.shape());
    for (size_t i = 0; i < out.ref.size(); ++i) out.uncertain[i] |= a->uncertain[static_cast<size_t>(idx[i])];
  }
}

}  // namespace

void register_elementwise_rules(RuleTable& t) {
  for (const char* op : {"exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "silu", "gelu", "erf", "sin", "cos",
                         "floor", "round", "neg", "abs", "relu", "leaky_relu", "clip"}) {
    t.add(op, unary);
  }
  for (const char* op : {"add", "sub", "mul", "div", "pow", "maximum", "minimum", "floor_divide", "floor_mod",
                         "atan2", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal"}) {
    t.add(op, binary);
  }
  for (const char* op : {"logical_and", "logical_or", "logical_xor", "logical_not"}) t.add(op, propagate_only);
  t.add("where", where);
  t.add("cast", cast);
}

}  // namespace difftest::tolerance
