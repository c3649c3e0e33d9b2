// 64-bit integer arithmetic that never overflows silently.
// The try_* forms return nullopt on overflow (or division by zero); the plain forms throw a
// UserError of kind Overflow (or Evaluation for division by zero) naming the operation.
// Floor division and floor modulo round toward negative infinity, like Python's // and %:
//   floordiv(-7, 2) == -4, floormod(-7, 2) == 1, floormod(7, -2) == -1.
#pragma once

#include <cstdint>
#include <optional>

namespace difftest::checked {

std::optional<int64_t> try_add(int64_t a, int64_t b);
std::optional<int64_t> try_sub(int64_t a, int64_t b);
std::optional<int64_t> try_mul(int64_t a, int64_t b);
std::optional<int64_t> try_floordiv(int64_t a, int64_t b);
std::optional<int64_t> try_floormod(int64_t a, int64_t b);

int64_t add(int64_t a, int64_t b);
int64_t sub(int64_t a, int64_t b);
int64_t mul(int64_t a, int64_t b);
int64_t floordiv(int64_t a, int64_t b);
int64_t floormod(int64_t a, int64_t b);

}  // namespace difftest::checked
