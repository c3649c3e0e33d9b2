// LegalizeOps: every call binding of a graph program becomes a PrimFunc written from the op's
// semantics (compiler/passes/legalize/<family>.cc), and the program a straight-line sequence
// of calls. Symbolic extents are preserved: one module serves every binding of the dims.
//
// PrimFunc `<op>_<k>` (k counts call bindings) takes the operands' buffers, then the results',
// named after the graph values, and every dim variable of the program.
#pragma once

#include "compiler/context/compile_context.h"
#include "compiler/ir/ir.h"
#include "compiler/loop/ir.h"

namespace difftest::passes {

loop::Module legalize_ops(const Program& p, const CompileContext& compile);

// The loop IR buffer name of graph value `v` ("%0" -> "v0": names must not start with a digit).
std::string buffer_name(const Value& v);

}  // namespace difftest::passes
