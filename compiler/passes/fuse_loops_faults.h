// The bodies of FuseLoops' test faults (docs/faults.md); their hooks, and the faults'
// declarations, stay in fuse_loops.cc, so that bisection names FuseLoops.
#pragma once

#include <set>
#include <string>

#include "compiler/loop/ir.h"

namespace difftest::passes {

// fused-dequantize-matmul-wrong-scale: in the float loads of `value` (a dequantize's scales), a
// group index v // c of one of `vars` becomes max(v // c - 1, 0): each group after the first
// takes its predecessor's scale.
loop::Expr with_stale_group_index(const loop::Expr& value, const std::set<std::string>& vars);

// fused-epilogue-twice: `body` with its loads of `from` reading `to` instead.
loop::Stmt with_loads_redirected(const loop::Stmt& body, const std::string& from, const loop::Buffer& to);

}  // namespace difftest::passes
