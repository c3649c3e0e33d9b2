// Which `vectorized` loops codegen emits as vector operations (Halide's way) instead of
// leaving them to LLVM's loop vectorizer, whose cost model turns down loops such as the
// nibble decoding of 4-bit weights, and fully unrolls short loops before it ever sees them.
//
// Such a loop has a constant extent of 2..64 lanes and a body of stores only. The vector form
// runs each store for all lanes before the next one, so it computes what the scalar loop
// computes only when no lane touches an element another lane writes: every store and every
// load of a buffer the loop writes use one and the same index, moving one element per lane.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compiler/loop/ir.h"

namespace difftest::codegen {

inline constexpr int64_t kMaxVectorLanes = 64;

// The stores of a loop codegen may emit as vectors (in program order), or nullopt.
std::optional<std::vector<loop::Stmt>> vector_loop_stores(const loop::StmtNode& for_loop);

// How many elements `index` moves when `var` grows by one: nullopt unless index is affine in
// var with constant coefficients (sums, differences and products by constants).
std::optional<int64_t> lane_stride(const loop::Expr& index, const std::string& var);

}  // namespace difftest::codegen
