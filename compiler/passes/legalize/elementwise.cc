// Lowerings of the elementwise family: one loop nest over the result, operands read through
// NumPy broadcasting. Composite float functions (sigmoid, silu, gelu, rsqrt) on f16/bf16 are
// computed in f32 and rounded once, as their single-op semantics require; basic arithmetic
// rounds in the dtype after each operation.
#include <cmath>
#include <map>

#include "compiler/faults/faults.h"
#include "compiler/passes/legalize/lowering.h"

namespace difftest::passes {

// Test faults of this file (docs/faults.md): off unless switched on.

const faults::Fault kBroadcastBothSidesFlatModulo({
    .name = "broadcast-both-sides-flat-modulo",
    .pass = "LegalizeOps",
    .description = "When both operands of an elementwise binary op are broadcast, the lowering reads each at the "
        "flat output index modulo its element count, the fast path that is right only for an operand whose shape is "
        "a suffix of the result's ([n, 1] + [1, m] reads the first operand wrongly): a broadcast kernel with a "
        "wrong index rule for two-sided broadcasting",
    .models = "two-sided broadcasting miscomputed by a compiled kernel (pytorch/pytorch#170360, `a[:, None] - "
        "b[None, :]` under Inductor)",
    .held_out = true,
});

const faults::Fault kExpViaExp2RoundedProduct({
    .name = "exp-via-exp2-rounded-product",
    .pass = "LegalizeOps",
    .description = "The exp lowering computes exp(x) as pow(2, x * log2(e)) with the product rounded in x's dtype: "
        "a relative error of about |x| ulps, inside the bound for small |x| and outside it for large ones; an exp "
        "built on exp2 whose argument loses its low bits",
    .models = "a fast `exp` losing accuracy (apache/tvm#19546: TIR `exp` lowered to the fast-math `__expf`)",
    .held_out = true,
});

const faults::Fault kLegalizeNullDeref({
    .name = "legalize-null-deref",
    .pass = "LegalizeOps",
    .description = "LegalizeOps writes through a null pointer when lowering an elementwise binary arithmetic op "
        "(add, sub, mul, div, maximum, minimum, floor_divide, floor_mod, logical_and, logical_or): a pass crashing "
        "on a pattern it did not expect",
    .models = "a pass crashing on a pattern it did not expect",
});

const faults::Fault kMulDropsTail({
    .name = "mul-drops-tail",
    .pass = "LegalizeOps",
    .description = "the mul lowering writes a*0 instead of a*b to the last element of the innermost output axis "
        "when that axis is longer than 1: a vector-tail bug",
    .models = "a vector loop whose scalar tail is lost",
});

namespace {

using loop::Expr;

// The dtype a composite function is evaluated in.
DType compute_type(DType t) { return (t == DType::f16 || t == DType::bf16) ? DType::f32 : t; }

// Whether operand i's shape differs from the result's (it is broadcast).
bool broadcast(const LowerContext& c, size_t i) {
  return !(c.binding.args().at(i).type().shape == c.binding.result().type().shape);
}

// Fault broadcast-both-sides-flat-modulo: with two broadcast operands, each is read at the flat
// result index modulo its size (the suffix-broadcast fast path applied where it does not hold).
bool flat_modulo_broadcast(const LowerContext& c) {
  return c.in.size() == 2 && c.compile.fault(kBroadcastBothSidesFlatModulo) && broadcast(c, 0) && broadcast(c, 1);
}

Expr element_count(const std::vector<Expr>& shape) {
  Expr n = 1;
  for (const auto& d : shape) n = n * d;
  return n;
}

// Loads every operand at the broadcast position of the result index `idx`, stores
// f(operands, idx).
Lowering elementwise_at(
    std::function<Expr(const LowerContext&, const std::vector<Expr>&, const std::vector<Expr>& idx)> f) {
  return [f = std::move(f)](LowerContext& c) {
    const bool modulo = flat_modulo_broadcast(c);
    return loop_nest(c, c.out_shape(), [&](const std::vector<Expr>& idx) {
      std::vector<Expr> args;
      for (size_t i = 0; i < c.in.size(); ++i) {
        if (modulo) {
          args.push_back(c.in[i][floormod(flat_index(idx, c.out_shape()), element_count(c.in_shape(i)))]);
          continue;
        }
        args.push_back(c.in[i][flat_index(broadcast_index(idx, c.in_shape(i)), c.in_shape(i))]);
      }
      return loop::Stmt::store(c.out[0], flat_index(idx, c.out_shape()), f(c, args, idx));
    });
  };
}

// Loads every operand at the broadcast position of the result index, stores f(operands).
Lowering elementwise(std::function<Expr(const LowerContext&, const std::vector<Expr>&)> f) {
  return elementwise_at([f = std::move(f)](const LowerContext& c, const std::vector<Expr>& a,
                                           const std::vector<Expr>&) { return f(c, a); });
}

// f evaluated in compute_type(dtype of x) and rounded once to that dtype.
Lowering composite(Expr (*f)(const Expr&)) {
  return elementwise([f](const LowerContext&, const std::vector<Expr>& a) {
    const DType t = a[0].dtype();
    return loop::cast(t, f(loop::cast(compute_type(t), a[0])));
  });
}

Lowering intrinsic(const std::string& name) {
  return elementwise([name](const LowerContext& c, const std::vector<Expr>& a) {
    if (name == "exp" && c.compile.fault(kExpViaExp2RoundedProduct)) {
      // exp(x) = 2^(x log2 e), the product rounded in x's dtype: its rounding error times
      // ln 2 is the result's relative error, about |x| ulps.
      return Expr::call("pow", {loop::imm(2, a[0].dtype()), a[0] * loop::imm(M_LOG2E, a[0].dtype())});
    }
    return Expr::call(name, a);
  });
}

Expr one(const Expr& x) { return loop::imm(1, x.dtype()); }
Expr sigmoid(const Expr& x) { return one(x) / (one(x) + Expr::call("exp", {-x})); }
Expr silu(const Expr& x) { return x / (one(x) + Expr::call("exp", {-x})); }
Expr rsqrt(const Expr& x) { return one(x) / Expr::call("sqrt", {x}); }
Expr gelu_erf(const Expr& x) {
  return x * loop::imm(0.5, x.dtype()) * (one(x) + Expr::call("erf", {x * loop::imm(M_SQRT1_2, x.dtype())}));
}
Expr gelu_tanh(const Expr& x) {
  const Expr inner = loop::imm(std::sqrt(2 / M_PI), x.dtype()) * (x + loop::imm(0.044715, x.dtype()) * x * x * x);
  return x * loop::imm(0.5, x.dtype()) * (one(x) + Expr::call("tanh", {inner}));
}

Expr abs_value(const Expr& x) {
  if (is_float(x.dtype())) return Expr::call("fabs", {x});
  return loop::select(x < 0, -x, x);  // wraps at the minimum, as the op defines
}

// Fault legalize-null-deref: a genuine write through a null pointer. The pointer is volatile, so
// the compiler can neither see that it is null nor drop the store; UBSan's null check is off
// here (GCC honours only the whole "undefined" group, and only on a function it does not inline)
// so the sanitizer build gets the same SIGSEGV rather than a slow report of its own.
__attribute__((noinline, no_sanitize_undefined)) void write_through_null() {
  volatile int* volatile p = nullptr;
  *p = 1;
}

// Fault mul-drops-tail: the last element of the innermost axis, when that axis is longer than 1,
// gets a*0 instead of a*b (a vector loop whose scalar tail is lost).
Expr mul_dropping_tail(const LowerContext& c, const std::vector<Expr>& a, const std::vector<Expr>& idx) {
  const Expr product = a[0] * a[1];
  if (idx.empty()) return product;
  const Expr& n = c.out_shape().back();
  return loop::select(idx.back() == n - 1 && n > 1, a[0] * loop::imm(0, a[0].dtype()), product);
}

Lowering binary(loop::BinOp op) {
  return elementwise_at([op](const LowerContext& c, const std::vector<Expr>& a, const std::vector<Expr>& idx) {
    if (c.compile.fault(kLegalizeNullDeref)) write_through_null();
    if (op == loop::BinOp::Mul && c.compile.fault(kMulDropsTail)) return mul_dropping_tail(c, a, idx);
    return Expr::binary(op, a[0], a[1]);
  });
}

Lowering comparison(loop::CmpOp op) {
  return elementwise([op](const LowerContext&, const std::vector<Expr>& a) { return Expr::compare(op, a[0], a[1]); });
}

}  // namespace

void register_elementwise_lowerings(LoweringTable& t) {
  for (const char* f : {"exp", "log", "sqrt", "tanh", "erf", "sin", "cos", "floor", "round"}) t.add(f, intrinsic(f));
  t.add("rsqrt", composite(rsqrt));
  t.add("sigmoid", composite(sigmoid));
  t.add("silu", composite(silu));
  t.add("gelu", elementwise([](const LowerContext& c, const std::vector<Expr>& a) {
          const DType t = a[0].dtype();
          const Expr x = loop::cast(compute_type(t), a[0]);
          return loop::cast(t, c.attrs().get_string("approximate") == "tanh" ? gelu_tanh(x) : gelu_erf(x));
        }));
  t.add("neg", elementwise([](const LowerContext&, const std::vector<Expr>& a) { return -a[0]; }));
  t.add("abs", elementwise([](const LowerContext&, const std::vector<Expr>& a) { return abs_value(a[0]); }));
  t.add("relu", elementwise([](const LowerContext&, const std::vector<Expr>& a) {
          return loop::max(a[0], loop::imm(0, a[0].dtype()));
        }));
  t.add("leaky_relu", elementwise([](const LowerContext& c, const std::vector<Expr>& a) {
          const Expr alpha = loop::imm(c.attrs().get_float("alpha"), a[0].dtype());
          return loop::select(a[0] >= loop::imm(0, a[0].dtype()), a[0], alpha * a[0]);
        }));
  t.add("clip", elementwise([](const LowerContext& c, const std::vector<Expr>& a) {
          const DType t = a[0].dtype();
          return loop::min(loop::max(a[0], loop::imm(c.attrs().get_float("min"), t)),
                           loop::imm(c.attrs().get_float("max"), t));
        }));
  const std::map<std::string, loop::BinOp> binaries = {
      {"add", loop::BinOp::Add},          {"sub", loop::BinOp::Sub},          {"mul", loop::BinOp::Mul},
      {"div", loop::BinOp::Div},          {"maximum", loop::BinOp::Max},      {"minimum", loop::BinOp::Min},
      {"floor_divide", loop::BinOp::FloorDiv}, {"floor_mod", loop::BinOp::FloorMod}, {"logical_and", loop::BinOp::And},
      {"logical_or", loop::BinOp::Or}};
  for (const auto& [name, op] : binaries) t.add(name, binary(op));
  t.add("pow", elementwise([](const LowerContext&, const std::vector<Expr>& a) { return Expr::call("pow", a); }));
  t.add("atan2", elementwise([](const LowerContext&, const std::vector<Expr>& a) { return Expr::call("atan2", a); }));
  const std::map<std::string, loop::CmpOp> comparisons = {
      {"equal", loop::CmpOp::EQ}, {"not_equal", loop::CmpOp::NE},   {"less", loop::CmpOp::LT},
      {"less_equal", loop::CmpOp::LE}, {"greater", loop::CmpOp::GT}, {"greater_equal", loop::CmpOp::GE},
      {"logical_xor", loop::CmpOp::NE}};
  for (const auto& [name, op] : comparisons) t.add(name, comparison(op));
  t.add("logical_not", elementwise([](const LowerContext&, const std::vector<Expr>& a) { return !a[0]; }));
  t.add("where",
        elementwise([](const LowerContext&, const std::vector<Expr>& a) { return Expr::select(a[0], a[1], a[2]); }));
  t.add("cast",
        elementwise([](const LowerContext& c, const std::vector<Expr>& a) { return loop::cast(c.out_dtype(), a[0]); }));
}

}  // namespace difftest::passes
