// Well-formedness of loop IR: every variable is a dim parameter or an enclosing loop variable
// (and no loop rebinds one), every buffer loaded or stored is a parameter or an enclosing
// allocation, shapes use only dim parameters, and buffer names are unique. The node
// factories already enforce dtype agreement; the verifier re-checks stores and loads because
// parsed or mutated IR may pair a buffer with a foreign node of the same name.
#pragma once

#include "compiler/loop/ir.h"

namespace difftest::loop {

// Throws UserError (kind Verify) naming the function and the offending statement.
void verify(const PrimFunc& f);
void verify(const Module& m);  // every function, and every call names an existing function with matching arity

}  // namespace difftest::loop
