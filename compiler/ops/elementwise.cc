// Elementwise ops: unary math, binary arithmetic with NumPy broadcasting, comparisons,
// logical ops, where, clip and cast.
//
// Conventions for the whole family:
//   - binary operands must have the same dtype (no implicit promotion, as in Relax);
//   - float results are the exact mathematical result rounded once to the dtype (libm-grade
//     functions such as exp may be off by a few ulps; the tolerance module budgets that);
//   - integer arithmetic wraps modulo 2^bits (two's complement), so every input has a result.
#include <cmath>

#include "compiler/ops/infer_util.h"

namespace difftest::ops {

namespace {

enum class Accepts { Float, FloatOrSigned, Numeric, Bool, Any };

const char* accepts_text(Accepts a) {
  switch (a) {
    case Accepts::Float: return "a float dtype";
    case Accepts::FloatOrSigned: return "a float or signed integer dtype";
    case Accepts::Numeric: return "a float or integer dtype";
    case Accepts::Bool: return "bool";
    case Accepts::Any: return "any dtype";
  }
  return "?";
}

bool accepted(Accepts a, DType t) {
  switch (a) {
    case Accepts::Float: return is_float(t);
    case Accepts::FloatOrSigned: return is_float(t) || is_signed_int(t);
    case Accepts::Numeric: return is_float(t) || is_int(t);
    case Accepts::Bool: return is_bool(t);
    case Accepts::Any: return true;
  }
  return false;
}

void require_accepted(const InferContext& ctx, size_t i, Accepts a) {
  if (!accepted(a, input(ctx, i).dtype)) {
    fail(ctx, ErrorKind::TypeMismatch, "needs {}, got {}", accepts_text(a), dtype_name(input(ctx, i).dtype));
  }
}

void unary(OpRegistry& r, const std::string& name, Accepts accepts, const std::string& summary,
           const std::string& semantics, std::vector<AttrSpec> attrs = {},
           std::function<void(const InferContext&)> check_attrs = {}) {
  OpDef d;
  d.name = name;
  d.family = "elementwise";
  d.summary = summary;
  d.semantics = semantics + fmt::format(" Operand dtype: {}; the result has the operand's type.", accepts_text(accepts));
  d.inputs = {"x"};
  d.attrs = std::move(attrs);
  d.pattern = OpPattern::ElemWise;
  d.infer = [accepts, check_attrs](const InferContext& ctx) {
    require_accepted(ctx, 0, accepts);
    if (check_attrs) check_attrs(ctx);
    return std::vector<TensorType>{input(ctx, 0)};
  };
  r.add(std::move(d));
}

void binary(OpRegistry& r, const std::string& name, Accepts accepts, bool to_bool, const std::string& summary,
            const std::string& semantics) {
  OpDef d;
  d.name = name;
  d.family = "elementwise";
  d.summary = summary;
  d.semantics = semantics +
                fmt::format(" Operands: {} (the same for both), NumPy-broadcast; the result dtype is {}.",
                            accepts_text(accepts), to_bool ? "bool" : "the operand dtype");
  d.inputs = {"a", "b"};
  d.min_inputs = d.max_inputs = 2;
  d.pattern = OpPattern::Broadcast;
  d.infer = [accepts, to_bool](const InferContext& ctx) {
    require_same_dtype(ctx, 0, 1);
    require_accepted(ctx, 0, accepts);
    TensorType t{to_bool ? DType::boolean : input(ctx, 0).dtype,
                 broadcast_shapes(ctx, input(ctx, 0).shape, input(ctx, 1).shape)};
    return std::vector<TensorType>{t};
  };
  r.add(std::move(d));
}

}  // namespace

void register_elementwise_ops(OpRegistry& r) {
  // ---- unary float math
  unary(r, "exp", Accepts::Float, "e^x", "y = exp(x).");
  unary(r, "log", Accepts::Float, "natural logarithm", "y = ln(x); x <= 0 gives -inf or NaN as in IEEE.");
  unary(r, "sqrt", Accepts::Float, "square root", "y = sqrt(x), correctly rounded.");
  unary(r, "rsqrt", Accepts::Float, "reciprocal square root", "y = 1 / sqrt(x).");
  unary(r, "tanh", Accepts::Float, "hyperbolic tangent", "y = tanh(x).");
  unary(r, "sigmoid", Accepts::Float, "logistic function", "y = 1 / (1 + exp(-x)).");
  unary(r, "silu", Accepts::Float, "SiLU / swish", "y = x * sigmoid(x) = x / (1 + exp(-x)).");
  unary(r, "gelu", Accepts::Float, "GELU",
        "approximate=\"none\": y = x/2 * (1 + erf(x / sqrt(2))). approximate=\"tanh\" (Gemma's GeGLU, "
        "gelu_pytorch_tanh): y = x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))).",
        {attr_string("approximate", "none", {"none", "tanh"}, "which GELU formula")});
  unary(r, "erf", Accepts::Float, "error function", "y = erf(x).");
  unary(r, "sin", Accepts::Float, "sine", "y = sin(x), x in radians.");
  unary(r, "cos", Accepts::Float, "cosine", "y = cos(x), x in radians.");
  unary(r, "floor", Accepts::Float, "round down", "y = the largest integer <= x (exact in every float dtype).");
  unary(r, "round", Accepts::Float, "round half to even",
        "y = x rounded to the nearest integer, ties to the even one: round(0.5) = 0, round(1.5) = 2, "
        "round(-2.5) = -2.");

  // ---- unary, also on integers
  unary(r, "neg", Accepts::FloatOrSigned, "negation", "y = -x; integers wrap (neg of the minimum is itself).");
  unary(r, "abs", Accepts::FloatOrSigned, "absolute value", "y = |x|; integers wrap (abs of the minimum is itself).");
  unary(r, "relu", Accepts::FloatOrSigned, "rectifier", "y = max(x, 0).");
  unary(r, "leaky_relu", Accepts::Float, "leaky rectifier",
        "y = x if x >= 0 else alpha * x (alpha rounded to the dtype first, one rounding of the product).",
        {attr_float("alpha", 0.01, "slope for negative x")});
  unary(r, "clip", Accepts::Numeric, "clamp to [min, max]",
        "y = min(max(x, min), max), with min and max converted to the dtype first (for integer dtypes they "
        "must be integers within its range). min <= max is required.",
        {attr_float_required("min", "lower bound"), attr_float_required("max", "upper bound")}, [](const InferContext& ctx) {
          const double lo = ctx.attrs.get_float("min"), hi = ctx.attrs.get_float("max");
          if (lo > hi) fail(ctx, ErrorKind::Attribute, "min={} is greater than max={}", lo, hi);
          const DType t = input(ctx, 0).dtype;
          if (is_int(t)) {
            for (double v : {lo, hi}) {
              if (v != std::floor(v) || v < static_cast<double>(int_min(t)) || v > static_cast<double>(int_max(t))) {
                fail(ctx, ErrorKind::Attribute, "bound {} is not an integer within the range of {}", v, dtype_name(t));
              }
            }
          }
        });

  // ---- binary arithmetic
  binary(r, "add", Accepts::Numeric, false, "a + b", "y = a + b.");
  binary(r, "sub", Accepts::Numeric, false, "a - b", "y = a - b.");
  binary(r, "mul", Accepts::Numeric, false, "a * b", "y = a * b.");
  binary(r, "div", Accepts::Float, false, "true division", "y = a / b (IEEE: x/0 is +-inf or NaN).");
  binary(r, "pow", Accepts::Float, false, "power", "y = a^b as C's pow (a < 0 with a non-integer b gives NaN).");
  binary(r, "maximum", Accepts::Numeric, false, "elementwise max", "y = max(a, b).");
  binary(r, "minimum", Accepts::Numeric, false, "elementwise min", "y = min(a, b).");
  binary(r, "floor_divide", Accepts::Numeric, false, "floor division",
         "Integers: y = floor(a / b) (Python's //: -7 // 2 = -4); b = 0 gives 0 (difftest's definition; "
         "most compilers leave it undefined) and min // -1 wraps to min. Floats: y = floor(a / b) with a / b "
         "rounded to the dtype first.");
  binary(r, "floor_mod", Accepts::Numeric, false, "floor modulo",
         "Integers: y = a - floor(a / b) * b, which has the sign of b (Python's %: -7 % 2 = 1, 7 % -2 = -1); "
         "b = 0 gives 0. Floats: r = fmod(a, b) (exact), then r + b when r != 0 and r and b differ in sign.");
  binary(r, "atan2", Accepts::Float, false, "two-argument arctangent",
         "y = atan2(a, b): the angle of the point (b, a) in (-pi, pi]; atan2(0, 0) = 0.");

  // ---- comparisons and logic
  binary(r, "equal", Accepts::Any, true, "a == b", "y = (a == b).");
  binary(r, "not_equal", Accepts::Any, true, "a != b", "y = (a != b).");
  binary(r, "less", Accepts::Numeric, true, "a < b", "y = (a < b).");
  binary(r, "less_equal", Accepts::Numeric, true, "a <= b", "y = (a <= b).");
  binary(r, "greater", Accepts::Numeric, true, "a > b", "y = (a > b).");
  binary(r, "greater_equal", Accepts::Numeric, true, "a >= b", "y = (a >= b).");
  binary(r, "logical_and", Accepts::Bool, false, "a and b", "y = a && b.");
  binary(r, "logical_or", Accepts::Bool, false, "a or b", "y = a || b.");
  binary(r, "logical_xor", Accepts::Bool, false, "a xor b", "y = a != b.");
  unary(r, "logical_not", Accepts::Bool, "not x", "y = !x.");

  {
    OpDef d;
    d.name = "where";
    d.family = "elementwise";
    d.summary = "select by a condition";
    d.semantics =
        "y = a where cond else b. cond is bool; a and b share a dtype; all three are NumPy-broadcast "
        "together.";
    d.inputs = {"cond", "a", "b"};
    d.min_inputs = d.max_inputs = 3;
    d.pattern = OpPattern::Broadcast;
    d.infer = [](const InferContext& ctx) {
      require_dtype(ctx, 0, DType::boolean);
      require_same_dtype(ctx, 1, 2);
      auto shape = broadcast_shapes(ctx, input(ctx, 0).shape, input(ctx, 1).shape);
      shape = broadcast_shapes(ctx, shape, input(ctx, 2).shape);
      return std::vector<TensorType>{TensorType{input(ctx, 1).dtype, shape}};
    };
    r.add(std::move(d));
  }
  {
    OpDef d;
    d.name = "cast";
    d.family = "elementwise";
    d.summary = "convert to another dtype";
    d.semantics =
        "float -> float: round to nearest, ties to even. int/bool -> float: round to nearest. "
        "float -> int: round toward zero, saturating at the dtype's range, NaN -> 0. int -> int: keep the "
        "low bits (two's complement wrap). bool -> number: 0 or 1. number -> bool: x != 0.";
    d.inputs = {"x"};
    d.attrs = {attr_dtype("dtype", DType::f32, "target dtype")};
    d.pattern = OpPattern::ElemWise;
    d.infer = [](const InferContext& ctx) {
      TensorType t = input(ctx, 0);
      t.dtype = ctx.attrs.get_dtype("dtype");
      return std::vector<TensorType>{t};
    };
    r.add(std::move(d));
  }
}

}  // namespace difftest::ops
