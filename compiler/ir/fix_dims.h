// A program with some of its dims fixed to one value each: what a binding's shape-specialized
// compile starts from (SpecializeShapes then folds the fixed dims away) and what a reproducer
// of such a compile holds. An IR utility, not a pass: it changes only the dims' ranges.
#pragma once

#include "compiler/ir/ir.h"
#include "compiler/sym/sym.h"

namespace difftest {

// The dims named in `values` get the range v..v. UserError (Usage) for a name that is not a
// dim of p, or (NegativeDim) for a value outside the dim's range. p itself when nothing narrows.
Program fix_dims(const Program& p, const sym::Env& values);

}  // namespace difftest
