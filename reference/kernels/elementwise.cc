// Reference elementwise ops, written from the semantics in compiler/ops/elementwise.cc.
// Float math is done in double on the exact operand values; the result tensor's storage
// performs the single rounding to the dtype (none in F64 mode).
#include <Eigen/Core>
#include <cmath>
#include <functional>
#include <limits>

#include "reference/kernel.h"

namespace difftest::reference {

namespace {

using Eigen::ArrayXd;
using Eigen::Map;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// ----------------------------------------------------------------------------- unary

std::vector<double> map_floats(const Tensor& x, const std::function<double(double)>& f) {
  const std::vector<double> in = x.to_doubles();
  std::vector<double> out(in.size());
  Map<const ArrayXd> a(in.data(), static_cast<Eigen::Index>(in.size()));
  Map<ArrayXd>(out.data(), static_cast<Eigen::Index>(out.size())) = a.unaryExpr(f);
  return out;
}

template <double (*F)(double)>
std::vector<Tensor> unary_float(const KernelContext& c) {
  return {c.floats(0, c.arg(0).shape(), map_floats(c.arg(0), F))};
}

double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }
double silu(double x) { return x / (1 + std::exp(-x)); }
double rsqrt(double x) { return 1 / std::sqrt(x); }
double round_half_even(double x) { return std::nearbyint(x); }
double exp_(double x) { return std::exp(x); }
double log_(double x) { return std::log(x); }
double sqrt_(double x) { return std::sqrt(x); }
double tanh_(double x) { return std::tanh(x); }
double erf_(double x) { return std::erf(x); }
double sin_(double x) { return std::sin(x); }
double cos_(double x) { return std::cos(x); }
double floor_(double x) { return std::floor(x); }

// erf by Abramowitz and Stegun 7.1.26 (absolute error up to 1.5e-7), evaluated step by step in
// `rd`'s precision, as ML runtimes compute it in f32 (OpenVINO's CPU plugin, PopART): the form
// members in rewritten forms take (docs/tolerance.md, kErfApproximated). Near 0 its 1 - p e
// cancels, so its f32 roundings add a few 6e-8 to the approximation's error.
double erf_abramowitz_stegun(double x, const Rounder& rd) {
  const double t = rd(1 / rd(1 + rd(0.3275911 * std::fabs(x))));
  double poly = 1.061405429;
  for (const double a : {-1.453152027, 1.421413741, -0.284496736, 0.254829592}) poly = rd(rd(poly * t) + a);
  poly = rd(poly * t);
  return std::copysign(rd(1 - rd(poly * rd(std::exp(rd(-rd(x * x)))))), x);
}

std::vector<Tensor> erf(const KernelContext& c) {
  if (c.perturbation == nullptr || !c.perturbation->rewritten_forms()) return unary_float<erf_>(c);
  const DType t = c.declared();
  const Rounder rd = c.rounder(t == DType::f16 || t == DType::bf16 ? DType::f32 : t);
  return {c.floats(0, c.arg(0).shape(), map_floats(c.arg(0), [&rd](double x) { return erf_abramowitz_stegun(x, rd); }))};
}

std::vector<Tensor> gelu(const KernelContext& c) {
  const bool tanh_form = c.attrs().get_string("approximate") == "tanh";
  return {c.floats(0, c.arg(0).shape(), map_floats(c.arg(0), [tanh_form](double x) {
    if (tanh_form) return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
    return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
  }))};
}

std::vector<Tensor> leaky_relu(const KernelContext& c) {
  const double alpha = c.rounder(c.declared())(c.attrs().get_float("alpha"));
  return {c.floats(0, c.arg(0).shape(), map_floats(c.arg(0), [alpha](double x) { return x >= 0 ? x : alpha * x; }))};
}

// neg / abs / relu on floats or signed integers; integers wrap (computed on uint64).
template <int Kind>
std::vector<Tensor> signed_unary(const KernelContext& c) {
  const Tensor& x = c.arg(0);
  if (is_float(c.declared())) {
    return {c.floats(0, x.shape(), map_floats(x, [](double v) {
      if (Kind == 0) return -v;
      if (Kind == 1) return std::fabs(v);
      return v > 0 ? v : (std::isnan(v) ? v : 0.0);
    }))};
  }
  std::vector<int64_t> v = x.to_ints();
  for (auto& e : v) {
    const uint64_t neg = uint64_t{0} - static_cast<uint64_t>(e);
    if (Kind == 0) e = static_cast<int64_t>(neg);
    if (Kind == 1 && e < 0) e = static_cast<int64_t>(neg);
    if (Kind == 2 && e < 0) e = 0;
  }
  return {c.ints(0, x.shape(), v)};
}

std::vector<Tensor> clip(const KernelContext& c) {
  const Tensor& x = c.arg(0);
  double lo = c.attrs().get_float("min"), hi = c.attrs().get_float("max");
  if (is_float(c.declared())) {
    lo = c.rounder(c.declared())(lo);
    hi = c.rounder(c.declared())(hi);
    return {c.floats(0, x.shape(), map_floats(x, [lo, hi](double v) { return std::min(std::max(v, lo), hi); }))};
  }
  std::vector<int64_t> v = x.to_ints();
  for (auto& e : v) e = std::min(std::max(e, static_cast<int64_t>(lo)), static_cast<int64_t>(hi));
  return {c.ints(0, x.shape(), v)};
}

// ----------------------------------------------------------------------------- binary

struct Pair {
  std::vector<int64_t> shape;
  std::vector<int64_t> ia, ib;
};

Pair broadcast(const Tensor& a, const Tensor& b) {
  Pair p;
  p.shape = broadcast_shape(a.shape(), b.shape());
  p.ia = broadcast_index(a.shape(), p.shape);
  p.ib = broadcast_index(b.shape(), p.shape);
  return p;
}

enum class Arith { Add, Sub, Mul, Div, Pow, Max, Min, FloorDiv, FloorMod, Atan2 };

double float_arith(Arith op, double a, double b, const Rounder& rd) {
  switch (op) {
    case Arith::Add: return a + b;
    case Arith::Sub: return a - b;
    case Arith::Mul: return a * b;
    case Arith::Div: return a / b;
    case Arith::Pow: return std::pow(a, b);
    case Arith::Max: return (std::isnan(a) || std::isnan(b)) ? kNaN : std::max(a, b);
    case Arith::Min: return (std::isnan(a) || std::isnan(b)) ? kNaN : std::min(a, b);
    case Arith::FloorDiv: return std::floor(rd(a / b));
    case Arith::FloorMod: {
      double r = std::fmod(a, b);
      if (r != 0 && ((r < 0) != (b < 0))) r += b;
      return r;
    }
    case Arith::Atan2: return std::atan2(a, b);
  }
  return kNaN;
}

int64_t int_arith(Arith op, int64_t a, int64_t b) {
  const auto ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  switch (op) {
    case Arith::Add: return static_cast<int64_t>(ua + ub);
    case Arith::Sub: return static_cast<int64_t>(ua - ub);
    case Arith::Mul: return static_cast<int64_t>(ua * ub);
    case Arith::Max: return std::max(a, b);
    case Arith::Min: return std::min(a, b);
    case Arith::FloorDiv: {
      if (b == 0) return 0;
      if (a == std::numeric_limits<int64_t>::min() && b == -1) return a;
      int64_t q = a / b;
      if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
      return q;
    }
    case Arith::FloorMod: {
      if (b == 0 || b == -1) return 0;
      int64_t r = a % b;
      if (r != 0 && ((r < 0) != (b < 0))) r += b;
      return r;
    }
    default: break;
  }
  DT_CHECK(false, "integer operands for a float-only op");
  return 0;
}

template <Arith Op>
std::vector<Tensor> arith(const KernelContext& c) {
  const Tensor &a = c.arg(0), &b = c.arg(1);
  const Pair p = broadcast(a, b);
  const size_t n = p.ia.size();
  if (is_float(c.declared())) {
    const std::vector<double> x = a.to_doubles(), y = b.to_doubles();
    const Rounder rd = c.rounder(c.declared());
    // A member in rewritten forms divides by multiplying with the rounded reciprocal, and takes
    // floor_mod as a - floor(a / b) * b (TVM's lowering of a float floormod), each step rounded.
    const bool rewritten = c.perturbation != nullptr && c.perturbation->rewritten_forms();
    const bool reciprocal = Op == Arith::Div && rewritten;
    const bool through_quotient = Op == Arith::FloorMod && rewritten;
    std::vector<double> out(n);
    for (size_t i = 0; i < n; ++i) {
      const double xa = x[static_cast<size_t>(p.ia[i])], yb = y[static_cast<size_t>(p.ib[i])];
      if (reciprocal) {
        out[i] = xa * rd(1 / yb);
      } else if (through_quotient && yb != 0) {
        out[i] = xa - rd(std::floor(rd(xa / yb)) * yb);
      } else {
        out[i] = float_arith(Op, xa, yb, rd);
      }
    }
    return {c.floats(0, p.shape, out)};
  }
  const std::vector<int64_t> x = a.to_ints(), y = b.to_ints();
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = int_arith(Op, x[static_cast<size_t>(p.ia[i])], y[static_cast<size_t>(p.ib[i])]);
  return {c.ints(0, p.shape, out)};
}

enum class Cmp { EQ, NE, LT, LE, GT, GE };

template <Cmp Op, typename T>
bool compare(T a, T b) {
  switch (Op) {
    case Cmp::EQ: return a == b;
    case Cmp::NE: return a != b;
    case Cmp::LT: return a < b;
    case Cmp::LE: return a <= b;
    case Cmp::GT: return a > b;
    case Cmp::GE: return a >= b;
  }
  return false;
}

template <Cmp Op>
std::vector<Tensor> comparison(const KernelContext& c) {
  const Tensor &a = c.arg(0), &b = c.arg(1);
  const Pair p = broadcast(a, b);
  std::vector<int64_t> out(p.ia.size());
  if (is_float(c.arg_declared(0))) {
    const std::vector<double> x = a.to_doubles(), y = b.to_doubles();
    for (size_t i = 0; i < out.size(); ++i) out[i] = compare<Op>(x[static_cast<size_t>(p.ia[i])], y[static_cast<size_t>(p.ib[i])]);
  } else {
    const std::vector<int64_t> x = a.to_ints(), y = b.to_ints();
    for (size_t i = 0; i < out.size(); ++i) out[i] = compare<Op>(x[static_cast<size_t>(p.ia[i])], y[static_cast<size_t>(p.ib[i])]);
  }
  return {c.ints(0, p.shape, out)};
}

template <int Kind>  // 0 and, 1 or, 2 xor
std::vector<Tensor> logical(const KernelContext& c) {
  const Tensor &a = c.arg(0), &b = c.arg(1);
  const Pair p = broadcast(a, b);
  const std::vector<int64_t> x = a.to_ints(), y = b.to_ints();
  std::vector<int64_t> out(p.ia.size());
  for (size_t i = 0; i < out.size(); ++i) {
    const bool u = x[static_cast<size_t>(p.ia[i])] != 0, v = y[static_cast<size_t>(p.ib[i])] != 0;
    out[i] = Kind == 0 ? (u && v) : Kind == 1 ? (u || v) : (u != v);
  }
  return {c.ints(0, p.shape, out)};
}

std::vector<Tensor> logical_not(const KernelContext& c) {
  std::vector<int64_t> v = c.arg(0).to_ints();
  for (auto& e : v) e = e == 0;
  return {c.ints(0, c.arg(0).shape(), v)};
}

std::vector<Tensor> where(const KernelContext& c) {
  const Tensor &cond = c.arg(0), &a = c.arg(1), &b = c.arg(2);
  const std::vector<int64_t> shape = broadcast_shape(broadcast_shape(cond.shape(), a.shape()), b.shape());
  const auto ic = broadcast_index(cond.shape(), shape);
  const auto ia = broadcast_index(a.shape(), shape);
  const auto ib = broadcast_index(b.shape(), shape);
  const std::vector<int64_t> k = cond.to_ints();
  if (is_float(c.declared())) {
    const std::vector<double> x = a.to_doubles(), y = b.to_doubles();
    std::vector<double> out(ia.size());
    for (size_t i = 0; i < out.size(); ++i) {
      out[i] = k[static_cast<size_t>(ic[i])] ? x[static_cast<size_t>(ia[i])] : y[static_cast<size_t>(ib[i])];
    }
    return {c.floats(0, shape, out)};
  }
  const std::vector<int64_t> x = a.to_ints(), y = b.to_ints();
  std::vector<int64_t> out(ia.size());
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = k[static_cast<size_t>(ic[i])] ? x[static_cast<size_t>(ia[i])] : y[static_cast<size_t>(ib[i])];
  }
  return {c.ints(0, shape, out)};
}

std::vector<Tensor> cast(const KernelContext& c) {
  const Tensor& x = c.arg(0);
  const DType from = c.arg_declared(0), to = c.declared();
  if (is_float(to)) {
    if (is_float(from)) return {c.floats(0, x.shape(), x.to_doubles())};  // storage rounds (Native only)
    const std::vector<int64_t> v = x.to_ints();
    Tensor out(c.storage(to), x.shape());
    for (int64_t i = 0; i < out.numel(); ++i) {
      const int64_t e = v[static_cast<size_t>(i)];
      out.set(i, c.mode == Mode::Native ? round_int_to_float_dtype(e, to) : static_cast<double>(e));
    }
    return {out};
  }
  std::vector<int64_t> out(static_cast<size_t>(x.numel()));
  if (is_float(from)) {
    for (int64_t i = 0; i < x.numel(); ++i) out[static_cast<size_t>(i)] = float_to_int_dtype(x.get(i), to);
  } else {
    for (int64_t i = 0; i < x.numel(); ++i) out[static_cast<size_t>(i)] = wrap_to_int_dtype(x.get_int(i), to);
  }
  return {c.ints(0, x.shape(), out)};
}

}  // namespace

void register_elementwise_kernels(KernelTable& t) {
  t.add("exp", unary_float<exp_>);
  t.add("log", unary_float<log_>);
  t.add("sqrt", unary_float<sqrt_>);
  t.add("rsqrt", unary_float<rsqrt>);
  t.add("tanh", unary_float<tanh_>);
  t.add("sigmoid", unary_float<sigmoid>);
  t.add("silu", unary_float<silu>);
  t.add("gelu", gelu);
  t.add("erf", erf);
  t.add("sin", unary_float<sin_>);
  t.add("cos", unary_float<cos_>);
  t.add("floor", unary_float<floor_>);
  t.add("round", unary_float<round_half_even>);
  t.add("neg", signed_unary<0>);
  t.add("abs", signed_unary<1>);
  t.add("relu", signed_unary<2>);
  t.add("leaky_relu", leaky_relu);
  t.add("clip", clip);
  t.add("add", arith<Arith::Add>);
  t.add("sub", arith<Arith::Sub>);
  t.add("mul", arith<Arith::Mul>);
  t.add("div", arith<Arith::Div>);
  t.add("pow", arith<Arith::Pow>);
  t.add("maximum", arith<Arith::Max>);
  t.add("minimum", arith<Arith::Min>);
  t.add("floor_divide", arith<Arith::FloorDiv>);
  t.add("floor_mod", arith<Arith::FloorMod>);
  t.add("atan2", arith<Arith::Atan2>);
  t.add("equal", comparison<Cmp::EQ>);
  t.add("not_equal", comparison<Cmp::NE>);
  t.add("less", comparison<Cmp::LT>);
  t.add("less_equal", comparison<Cmp::LE>);
  t.add("greater", comparison<Cmp::GT>);
  t.add("greater_equal", comparison<Cmp::GE>);
  t.add("logical_and", logical<0>);
  t.add("logical_or", logical<1>);
  t.add("logical_xor", logical<2>);
  t.add("logical_not", logical_not);
  t.add("where", where);
  t.add("cast", cast);
}

}  // namespace difftest::reference
