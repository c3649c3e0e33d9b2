// SpecializeShapes: every dim variable whose range is a single value (n: 4..4) is replaced by
// that constant everywhere — value types, symbolic attributes (Sym and SymList) and the dims
// derived from it (2*n becomes 8) — and dropped from the program's dims. Only expressions that
// mention such a variable are rewritten (and simplified); the rest stays as written. Each
// call's types are inferred again from the specialized operands and attributes and must be
// provably the specialized declared types (an internal error otherwise).
//
// fix_dims (compiler/ir/fix_dims.h) narrows dims to single values, so fix_dims +
// SpecializeShapes turns a symbolic program into the shape-specialized program of one binding
// (the oracle compares the two).
#pragma once

#include "compiler/ir/ir.h"
#include "compiler/sym/sym.h"

namespace difftest::passes {

Program specialize_shapes(const Program& p);  // p itself when no range is a single value

}  // namespace difftest::passes
