#include "tests/compiler/fault_cases.h"

namespace difftest::testing {

std::vector<FaultCase> schedule_fault_cases() {
  return {
      // 37 = 2 * 16 + 5 (f32 lanes on avx512; 4 * 8 + 5 on avx2): every row loses a[i, 36].
      {"schedule-reduction-tail",
       R"(program @row_sum(n: 1..8) {
  %a: f32[n, 37] = param
  %y: f32[n] = sum(%a, axes=[1])
  return %y
}
)",
       oracle::VerdictKind::Mismatch, "compare",
       R"(program @lanes_divide_k(n: 1..8) {
  %a: f32[n, 32] = param
  %s: f32[n] = sum(%a, axes=[1])
  %m: f32[n] = max(%a, axes=[1])
  %y: f32[n] = add(%s, %m)
  return %y
}
)",
       "O3", "3 of 3 elements"},
      // M = 4 rows make one full row tile; N = 37 = 32 (two f32 vectors) + 5: the tile's rows
      // lose their last 5 columns, left at the output's initial zeros.
      {"matmul-vector-tail-dropped",
       R"(program @wide_matmul(n: 1..8) {
  %a: f32[4, n] = param
  %b: f32[n, 37] = param
  %y: f32[4, 37] = matmul(%a, %b)
  return %y
}
)",
       oracle::VerdictKind::Mismatch, "compare",
       R"(program @full_vectors(n: 1..8) {
  %a: f32[4, n] = param
  %b: f32[n, 32] = param
  %y: f32[4, 32] = matmul(%a, %b)
  return %y
}
)",
       "O3", "20 of 148 elements"},
      // A constant M = 3 makes the tile 3 rows by 6 columns: rows 1 and 2 add the rows above
      // (K = 7 rather than 3: with three terms of the inputs' coarse values, an element of row 0
      // sums to exactly 0 and row 1 is right there). With a symbolic M the tile has 4 rows, and
      // n = 3 rows fill none: all are in the row tail.
      {"reduction-init-per-tile",
       R"(program @small_tile(n: 1..8) {
  %a: f32[3, n + 4] = param
  %b: f32[n + 4, 6] = param
  %y: f32[3, 6] = matmul(%a, %b)
  return %y
}
)",
       oracle::VerdictKind::Mismatch, "compare",
       R"(program @rows_below_a_tile(n: 1..8) {
  %a: f32[n, 6] = param
  %b: f32[6, 6] = param
  %y: f32[n, 6] = matmul(%a, %b)
  return %y
}
)",
       "O3", "12 of 18 elements"},
      // %u takes %t's slot and is written while the same call still reads %t: from column 1 on,
      // every row of %u reads its own freshly written elements, so every row sum is wrong.
      {"plan-memory-reuses-live-buffer",
       R"(program @matmul_chain(n: 1..8) {
  %a: f32[n, 37] = param
  %b: f32[37, 37] = param
  %c: f32[37, 37] = param
  %t: f32[n, 37] = matmul(%a, %b)
  %u: f32[n, 37] = matmul(%t, %c)
  %y: f32[n] = sum(%u, axes=[1])
  return %y
}
)",
       oracle::VerdictKind::Mismatch, "compare",
       R"(program @one_intermediate(n: 1..8) {
  %a: f32[n, 37] = param
  %b: f32[37, 37] = param
  %t: f32[n, 37] = matmul(%a, %b)
  %y: f32[n] = sum(%t, axes=[1])
  return %y
}
)",
       "O2", "3 of 3 elements"},
      // An f16 row of 101 splits over 32 lanes (avx512) or 16 (avx2, avx) plus a tail of 5: the
      // combine of the partial sums, longer than the 8 iterations Unroll unrolls first, keeps only
      // the last one added to part[0], and about 90 terms of each row are lost. A row of 5 sums into a local scalar,
      // which LICM never hoists.
      {"licm-hoists-dependent-load",
       R"(program @row_sum(n: 1..8) {
  %a: f16[n, 101] = param
  %y: f16[n] = sum(%a, axes=[1])
  return %y
}
)",
       oracle::VerdictKind::Mismatch, "compare",
       R"(program @short_rows(n: 1..8) {
  %a: f32[n, 5] = param
  %y: f32[n] = sum(%a, axes=[1])
  return %y
}
)",
       "O3", "of 3 elements"},
      // [-4, -3, -2] // 3: floor gives [-2, -1, -1], truncation [-1, -1, 0].
      {"floor-div-as-trunc-div",
       R"(program @negative_dividends(n: 1..8) {
  %r: i64[n] = arange(start=-4, end=n - 4)
  %c: i64[] = const 3
  %y: i64[n] = floor_divide(%r, %c)
  return %y
}
)",
       oracle::VerdictKind::Mismatch, "compare",
       R"(program @non_negative_dividends(n: 1..8) {
  %r: i64[n] = arange(end=n)
  %c: i64[] = const 3
  %y: i64[n] = floor_divide(%r, %c)
  return %y
}
)",
       "O1", "2 of 3 elements"},
      // 7 * n = 21 = 16 + 5 (f32 lanes): the last 5 elements keep the output's initial zeros. The
      // lanes divide 16 * n at run time.
      {"split-no-guard-symbolic",
       R"(program @flat_exp(n: 1..8) {
  %a: f32[7 * n] = param
  %y: f32[7 * n] = exp(%a)
  return %y
}
)",
       oracle::VerdictKind::Mismatch, "compare",
       R"(program @lanes_divide(n: 1..8) {
  %a: f32[16 * n] = param
  %y: f32[16 * n] = exp(%a)
  return %y
}
)",
       "O3", "5 of 21 elements"},
      // The bias epilogue of the fused matmul runs twice: y = x @ w + 2b.
      {"fused-epilogue-twice",
       R"(program @matmul_bias(n: 1..8) {
  %x: f32[n, 4] = param
  %w: f32[4, 4] = param
  %b: f32[4] = param
  %m: f32[n, 4] = matmul(%x, %w)
  %y: f32[n, 4] = add(%m, %b)
  return %y
}
)",
       oracle::VerdictKind::Mismatch, "compare",
       // relu is idempotent: relu(relu(m)) = relu(m).
       R"(program @matmul_relu(n: 1..8) {
  %x: f32[n, 4] = param
  %w: f32[4, 4] = param
  %m: f32[n, 4] = matmul(%x, %w)
  %y: f32[n, 4] = relu(%m)
  return %y
}
)",
       "O2", "12 of 12 elements"},
  };
}

}  // namespace difftest::testing
