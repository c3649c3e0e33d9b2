// The values of constant bindings. This is part of the IR's meaning, so the reference and the
// compiled code both call it and get the same bytes on every machine.
//
// Generated constants are counter-based: element i depends only on (seed, i), through
// SplitMix64 (Steele, Lea, Flood 2014), so any shape — symbolic ones included — gets a prefix
// of the same stream:
//   u(k)                 = (splitmix64(seed, k) >> 11) * 2^-53            uniform in [0, 1)
//   uniform, float dtype  x_i = lo + (hi - lo) * u(i), rounded to the dtype
//   uniform, integer      x_i = lo + floor(u(i) * (hi - lo + 1))
//   normal               x_i = mean + std * (u(12i) + ... + u(12i + 11) - 6), rounded
// (normal is the Irwin-Hall approximation: no libm call, so no platform differences).
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/tensor/tensor.h"

namespace difftest {

uint64_t splitmix64(uint64_t seed, uint64_t counter);

Tensor materialize_constant(const ConstantInit& c, DType dtype, const std::vector<int64_t>& shape);

}  // namespace difftest
