// Lowerings of the creation family: tensors made from attributes alone, over symbolic shapes.
// arange computes its values exactly in i64 and converts once (the loop IR's int -> float cast
// rounds once, also for f16/bf16); the fill ops store one immediate, rounded to the dtype at
// compile time.
#include "compiler/passes/legalize/lowering.h"

namespace difftest::passes {

namespace {

using loop::Expr;
using loop::Stmt;

// y[i] = start + i * step, where start may be a symbolic dim expression.
Stmt arange(LowerContext& c) {
  const Expr start = to_loop(c.attrs().get_sym("start"));
  const int64_t step = c.attrs().get_int("step");
  return loop_nest(c, c.out_shape(), [&](const std::vector<Expr>& i) {
    return Stmt::store(c.out[0], i[0], loop::cast(c.out_dtype(), start + i[0] * step));
  });
}

// Every element (in row-major order, whatever the rank) is `value`.
Stmt fill(LowerContext& c, double value) {
  const Expr v = loop::imm(value, c.out_dtype());
  return loop_nest(c, {c.out[0].numel()}, [&](const std::vector<Expr>& i) { return Stmt::store(c.out[0], i[0], v); });
}

}  // namespace

void register_creation_lowerings(LoweringTable& t) {
  t.add("arange", arange);
  t.add("full", [](LowerContext& c) { return fill(c, c.attrs().get_float("value")); });
  t.add("zeros", [](LowerContext& c) { return fill(c, 0); });
  t.add("ones", [](LowerContext& c) { return fill(c, 1); });
}

}  // namespace difftest::passes
