#include "tests/compiler/fault_cases.h"

namespace difftest::testing {

std::vector<FaultCase> graph_fault_cases() {
  return {
    // Folded at n = 1, arange(n) is [0]; clipping stretches it to [0, 0, 0]: rows 1 and 2 are off.
    {"fold-constant-symbolic-shape",
     R"(program @positions(n: 1..8) {
  %a: f32[n, 4] = param
  %pos: f32[n] = arange(end=n, dtype=f32)
  %col: f32[n, 1] = expand_dims(%pos, axis=1)
  %y: f32[n, 4] = add(%a, %col)
  return %y
}
)",
     oracle::VerdictKind::Mismatch, "compare",
     // A uniform fill of symbolic shape is folded all the same, but every element is right.
     R"(program @uniform(n: 1..8) {
  %a: f32[n, 4] = param
  %half: f32[n, 4] = full(shape=[n, 4], value=0.5)
  %pos: f32[4] = arange(end=4, dtype=f32)
  %s: f32[n, 4] = mul(%a, %half)
  %y: f32[n, 4] = add(%s, %pos)
  return %y
}
)",
     "O2", "8 of 12 elements"},
    // With window 2, query 2 (n = 3) sees keys 1 and 2; the fault also admits key 0.
    {"decompose-window-off-by-one",
     R"(program @local_attention(n: 1..16) {
  %q: f32[1, n, 2, 8] = param
  %k: f32[1, n, 2, 8] = param
  %v: f32[1, n, 2, 8] = param
  %y: f32[1, n, 2, 8] = attention(%q, %k, %v, window=2)
  return %y
}
)",
     oracle::VerdictKind::Mismatch, "compare",
     R"(program @global_attention(n: 1..16) {
  %q: f32[1, n, 2, 8] = param
  %k: f32[1, n, 2, 8] = param
  %v: f32[1, n, 2, 8] = param
  %y: f32[1, n, 2, 8] = attention(%q, %k, %v, causal=true)
  return %y
}
)",
     "O2", "16 of 48 elements"},
    // Floored, -7 // 2, 7 // -2, -8 // 2, 9 // 4 are -4, -4, -4, 2; truncated through double the
    // first two fold to -3: columns 0 and 1 of every row are one too high.
    {"fold-constant-int-div-double",
     R"(program @int_div(n: 1..8) {
  %a: i64[n, 4] = param
  %c: i64[4] = const [-7, 7, -8, 9]
  %d: i64[4] = const [2, -2, 2, 4]
  %q: i64[4] = floor_divide(%c, %d)
  %y: i64[n, 4] = add(%a, %q)
  return %y
}
)",
     oracle::VerdictKind::Mismatch, "compare",
     // Not folded (a param operand); folded where truncating is flooring (non-negative
     // operands); a float floor_mod.
     R"(program @int_div_at_run_time(n: 1..8) {
  %a: i64[n, 4] = param
  %d: i64[4] = const [2, -2, 2, 4]
  %q: i64[n, 4] = floor_divide(%a, %d)
  %c: i64[2] = const [7, 9]
  %e: i64[2] = const [2, 4]
  %m: i64[2] = floor_mod(%c, %e)
  %f: f32[4] = const [-7, 7, -8, 9]
  %g: f32[4] = const [2, -2, 2, 4]
  %r: f32[4] = floor_mod(%f, %g)
  return %q, %m, %r
}
)",
     "O1", "6 of 12 elements"},
    // x @ W and x @ W^T merged: y = 2 (x @ W) instead of x @ W + x @ W^T, everywhere.
    {"cse-ignores-transpose-flags",
     R"(program @twin_matmuls(n: 1..8) {
  %x: f32[n, 4] = param
  %w: f32[4, 4] = param
  %p: f32[n, 4] = matmul(%x, %w)
  %q: f32[n, 4] = matmul(%x, %w, transpose_b=true)
  %y: f32[n, 4] = add(%p, %q)
  return %y
}
)",
     oracle::VerdictKind::Mismatch, "compare",
     // Identical matmuls merge rightly; different operands do not merge.
     R"(program @true_twins(n: 1..8) {
  %x: f32[n, 4] = param
  %w: f32[4, 4] = param
  %v: f32[4, 4] = param
  %p: f32[n, 4] = matmul(%x, %w, transpose_b=true)
  %q: f32[n, 4] = matmul(%x, %w, transpose_b=true)
  %r: f32[n, 4] = matmul(%x, %v, transpose_b=true)
  %s: f32[n, 4] = add(%p, %q)
  %y: f32[n, 4] = add(%s, %r)
  return %y
}
)",
     "O1", "12 of 12 elements"},
    // Logits of about 100 overflow exp in f32: every row is inf / inf without the max subtracted.
    {"softmax-no-max-subtraction",
     R"(program @large_logits(n: 1..8) {
  %a: f32[n, 4] = param
  %c: f32[] = const 100
  %s: f32[n, 4] = add(%a, %c)
  %y: f32[n, 4] = softmax(%s, axis=1)
  return %y
}
)",
     oracle::VerdictKind::Mismatch, "compare",
     // Small logits: the unstable formula is as accurate.
     R"(program @small_logits(n: 1..8) {
  %a: f32[n, 4] = param
  %y: f32[n, 4] = softmax(%a, axis=1)
  return %y
}
)",
     "O2", "12 of 12 elements"},
  };
}

}  // namespace difftest::testing
