// The builtin compiler's random pass orders: valid pass lists and subsets drawn from the
// registry, recorded in the verdict so that `difftest run FILE --passes ...` reproduces one.
// A check compiles them beside the named pipelines (CheckOptions::random_orders).
#pragma once

#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/pipeline/pipelines.h"
#include "compiler/support/rng.h"

namespace difftest::backends {

// A random pass list: graph passes (any subset, any order, repeats allowed), LegalizeOps, loop
// passes likewise, a random LLVM level and FMA setting. Every list it draws is valid: the
// registry's passes accept any program their pre-conditions admit, and the draw respects the
// ordering constraints the registry declares.
pipeline::Pipeline random_pass_order(ChoiceSource& choices, const std::string& name);

// `count` orders named order1..orderN, seeded by the program's hash (same program, same orders).
std::vector<pipeline::Pipeline> random_pass_orders(const Program& p, int count);

}  // namespace difftest::backends
