// Text form of the loop IR (parsed back by loop/parser.h; print(parse(x)) == x):
//
//   func @add(A: f32[n, 4], B: f32[4], C: f32[n, 4]) dims(n) {
//     for (i, 0, (n * 4)) serial {
//       C[i] = (A[i] + B[(i % 4)])
//     }
//   }
//
// Binary nodes are fully parenthesized; immediates other than i64 and bool carry their dtype
// (`0.5:f16`, `7:u32`); casts are `cast<f16>(x)`; statements are `for (var, min, extent) kind`,
// `X[i] = v`,
// `alloc t: f32[1] local { ... }`, `if (c) { ... } else { ... }` and `eval e`.
#pragma once

#include <string>

#include "compiler/loop/ir.h"

namespace difftest::loop {

std::string print(const Expr& e);
std::string print(const Stmt& s, int indent = 0);
std::string print(const PrimFunc& f);
std::string print(const Module& m);

}  // namespace difftest::loop
