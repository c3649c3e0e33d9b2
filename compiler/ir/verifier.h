// Well-formedness of a graph program. Run by `difftest check`, after parsing everywhere, and
// after every pass under --verify-each.
//
// Checks: dim variables (valid names, 1 <= lo <= hi <= 2^31 - 1); every type (rank <= 8, dims
// over declared variables only, every dim provably >= 1, element count provably <= 2^40);
// SSA (unique names, operands defined above their use); constants (static literal shapes, values
// within the dtype, valid generator parameters); calls (attribute schema, and the declared
// result types provably equal to the op's inferred types); results defined.
// The first violation is thrown as a UserError located at the offending binding.
#pragma once

#include "compiler/ir/ir.h"

namespace difftest {

void verify(const Program& p);

}  // namespace difftest
