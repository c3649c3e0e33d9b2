#include "compiler/support/checked.h"

#include <fmt/format.h>

#include <limits>

#include "compiler/support/diagnostics.h"

namespace difftest::checked {

std::optional<int64_t> try_add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

std::optional<int64_t> try_sub(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
  return r;
}

std::optional<int64_t> try_mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

std::optional<int64_t> try_floordiv(int64_t a, int64_t b) {
  if (b == 0) return std::nullopt;
  if (a == std::numeric_limits<int64_t>::min() && b == -1) return std::nullopt;
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

std::optional<int64_t> try_floormod(int64_t a, int64_t b) {
  if (b == 0) return std::nullopt;
  if (b == -1) return 0;  // INT64_MIN % -1 is undefined behaviour in C++
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

static int64_t or_throw(std::optional<int64_t> r, const char* op, int64_t a, int64_t b) {
  if (r) return *r;
  if (b == 0 && (op[0] == '/' || op[0] == '%')) {
    throw UserError(ErrorKind::Evaluation, fmt::format("division by zero in {} {} {}", a, op, b));
  }
  throw UserError(ErrorKind::Overflow, fmt::format("64-bit integer overflow in {} {} {}", a, op, b));
}

int64_t add(int64_t a, int64_t b) { return or_throw(try_add(a, b), "+", a, b); }
int64_t sub(int64_t a, int64_t b) { return or_throw(try_sub(a, b), "-", a, b); }
int64_t mul(int64_t a, int64_t b) { return or_throw(try_mul(a, b), "*", a, b); }
int64_t floordiv(int64_t a, int64_t b) { return or_throw(try_floordiv(a, b), "//", a, b); }
int64_t floormod(int64_t a, int64_t b) { return or_throw(try_floormod(a, b), "%", a, b); }

}  // namespace difftest::checked
