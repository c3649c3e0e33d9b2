// The bodies of FoldConstant's test faults (docs/faults.md); their hooks, and the faults'
// declarations, stay in fold_constant.cc, so that bisection names FoldConstant.
#pragma once

#include <string>
#include <unordered_set>
#include <vector>

#include "compiler/ir/ir.h"

namespace difftest::passes {

// fold-constant-int-div-double: whether the call is an integer floor_divide / floor_mod, which
// a folding engine holding constants as doubles evaluates through double.
bool truncates_through_double(const Binding& call);

// The one-op program's call replaced by cast/div/cast (and a - q * b for floor_mod), as C
// evaluates (T)((double)a / (double)b), so the fold runs the same compiler as every other one.
std::vector<Binding> through_double(const std::string& op, const std::vector<Value>& args, const Value& result);

// fold-constant-symbolic-shape: `out`, the fold of `call` with every dim at its lower bound
// (its last binding the literal), with each axis of `symbolic_axes` stretched back to its extent
// by a clipping take, so that the types still check and the program runs. `names` holds the
// program's value names and takes the fresh ones.
std::vector<Binding> stretched_to_extents(std::vector<Binding> out, const Binding& call,
                                          const std::vector<bool>& symbolic_axes, const sym::Ranges& ranges,
                                          std::unordered_set<std::string>& names);

}  // namespace difftest::passes
