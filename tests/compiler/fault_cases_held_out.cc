// Cases of the held-out faults (compiler/faults/catalog_held_out.cc): like the other areas', a
// program each fault must fail and one it must leave alone. Inputs are the reference's generated
// values (multiples of 1/8 in [-2, 2]), so programs make the values a fault needs (ties,
// subnormals, large magnitudes, inexact quotients) from them.
#include "tests/compiler/fault_cases.h"

namespace difftest::testing {

std::vector<FaultCase> held_out_fault_cases() {
  return {
    // Exact ties (a computed tie is uncertain: its rounding error may cross it): 2.5 and -0.5
    // round to 2 and -0, away from zero to 3 and -1.
    {"round-ties-away-from-zero",
     R"(program @ties(n: 1..8) {
  %a: f32[n, 4] = full(shape=[n, 4], value=2.5)
  %b: f32[n, 4] = full(shape=[n, 4], value=-0.5)
  %t: f32[n, 8] = concat(%a, %b, axis=1)
  %y: f32[n, 8] = round(%t)
  return %y
}
)",
     oracle::VerdictKind::Mismatch, "compare",
     R"(program @no_round(n: 1..8) {
  %a: f32[n, 8] = param
  %y: f32[n, 8] = floor(%a)
  return %y
}
)"},
    // 1536 f16 quotients in a loop ScheduleElementwise vectorizes at O3 (a rank-1 nest): about
    // half round away from zero and come out one ulp short, all toward zero: inside the
    // per-element bound, past the statistical tier's bias check.
    {"f16-vector-round-truncates",
     R"(program @quotients(n: 1..8) {
  %a: f16[512 * n] = param
  %b: f16[512 * n] = param
  %y: f16[512 * n] = div(%a, %b)
  return %y
}
)",
     oracle::VerdictKind::Outlier, "compare",
     R"(program @f32_quotients(n: 1..8) {
  %a: f32[512 * n] = param
  %b: f32[512 * n] = param
  %y: f32[512 * n] = div(%a, %b)
  return %y
}
)",
     "O3"},
    // a * 1e-39 is subnormal (or zero) in f32 and is scaled back up by 1e30; O0 stores and
    // loads it between the two kernels. (A subnormal result flushed is within `tiny`.)
    {"subnormal-loads-flushed",
     R"(program @tiny(n: 1..8) {
  %a: f32[n, 4] = param
  %s: f32[1] = full(shape=[1], value=1e-39)
  %t: f32[n, 4] = mul(%a, %s)
  %l: f32[1] = full(shape=[1], value=1e30)
  %y: f32[n, 4] = mul(%t, %l)
  return %y
}
)",
     oracle::VerdictKind::Mismatch, "compare",
     R"(program @normal(n: 1..8) {
  %a: f32[n, 4] = param
  %s: f32[1] = full(shape=[1], value=1e-30)
  %t: f32[n, 4] = mul(%a, %s)
  %l: f32[1] = full(shape=[1], value=1e30)
  %y: f32[n, 4] = mul(%t, %l)
  return %y
}
)"},
    // Exact arguments near 80 (a computed one carries its own rounding, which exp's bound
    // scales by |x|): x log2(e) near 115 rounds by up to 2^-18, moving exp by up to 44 ulps.
    {"exp-via-exp2-rounded-product",
     R"(program @large_exp(n: 1..8) {
  %a: f32[n, 2] = full(shape=[n, 2], value=70.3)
  %b: f32[n, 2] = full(shape=[n, 2], value=75.7)
  %c: f32[n, 2] = full(shape=[n, 2], value=80.1)
  %d: f32[n, 2] = full(shape=[n, 2], value=85.9)
  %x: f32[n, 8] = concat(%a, %b, %c, %d, axis=1)
  %y: f32[n, 8] = exp(%x)
  return %y
}
)",
     oracle::VerdictKind::Mismatch, "compare",
     R"(program @no_exp(n: 1..8) {
  %a: f32[n, 8] = param
  %s: f32[1] = full(shape=[1], value=40)
  %x: f32[n, 8] = mul(%a, %s)
  %y: f32[n, 8] = tanh(%x)
  return %y
}
)"},
    // floor(a) takes five values over 16 elements: every row's maximum is tied.
    {"argmax-ties-pick-last",
     R"(program @tied(n: 1..8) {
  %a: f32[n, 16] = param
  %f: f32[n, 16] = floor(%a)
  %y: i64[n] = argmax(%f, axis=1)
  return %y
}
)",
     oracle::VerdictKind::Mismatch, "compare",
     R"(program @max_only(n: 1..8) {
  %a: f32[n, 16] = param
  %f: f32[n, 16] = floor(%a)
  %y: f32[n] = max(%f, axes=[1])
  return %y
}
)"},
    {"broadcast-both-sides-flat-modulo",
     R"(program @outer(n: 1..8) {
  %a: f32[n, 1] = param
  %b: f32[1, 4] = param
  %y: f32[n, 4] = sub(%a, %b)
  return %y
}
)",
     oracle::VerdictKind::Mismatch, "compare",
     R"(program @one_side(n: 1..8) {
  %a: f32[n, 4] = param
  %b: f32[4] = param
  %y: f32[n, 4] = sub(%a, %b)
  return %y
}
)"},
    {"matmul-rhs-batch-follows-lhs",
     R"(program @shared_lhs(n: 1..8) {
  %a: f32[1, n, 4] = param
  %b: f32[2, 4, 5] = param
  %y: f32[2, n, 5] = matmul(%a, %b)
  return %y
}
)",
     oracle::VerdictKind::Mismatch, "compare",
     R"(program @equal_batches(n: 1..8) {
  %a: f32[2, n, 4] = param
  %b: f32[2, 4, 5] = param
  %y: f32[2, n, 5] = matmul(%a, %b)
  return %y
}
)"},
    {"group-norm-channels-strided",
     R"(program @two_groups(n: 1..8) {
  %a: f32[n, 4, 3] = param
  %g: f32[4] = param
  %b: f32[4] = param
  %y: f32[n, 4, 3] = group_norm(%a, %g, %b, num_groups=2)
  return %y
}
)",
     oracle::VerdictKind::Mismatch, "compare",
     R"(program @one_group(n: 1..8) {
  %a: f32[n, 4, 3] = param
  %g: f32[4] = param
  %b: f32[4] = param
  %y: f32[n, 4, 3] = group_norm(%a, %g, %b, num_groups=1)
  return %y
}
)"},
    // eps = 0.01 next to a mean square of about 1.3: half a percent off.
    {"rms-norm-eps-outside-sqrt",
     R"(program @rms(n: 1..8) {
  %a: f32[n, 8] = param
  %w: f32[8] = param
  %y: f32[n, 8] = rms_norm(%a, %w, eps=0.01)
  return %y
}
)",
     oracle::VerdictKind::Mismatch, "compare",
     R"(program @layer(n: 1..8) {
  %a: f32[n, 8] = param
  %w: f32[8] = param
  %b: f32[8] = param
  %y: f32[n, 8] = layer_norm(%a, %w, %b, eps=0.01)
  return %y
}
)"},
    {"gqa-kv-head-modulo",
     R"(program @gqa(n: 1..8) {
  %q: f32[1, n, 4, 8] = param
  %k: f32[1, n, 2, 8] = param
  %v: f32[1, n, 2, 8] = param
  %y: f32[1, n, 4, 8] = attention(%q, %k, %v, causal=true)
  return %y
}
)",
     oracle::VerdictKind::Mismatch, "compare",
     R"(program @mha(n: 1..8) {
  %q: f32[1, n, 2, 8] = param
  %k: f32[1, n, 2, 8] = param
  %v: f32[1, n, 2, 8] = param
  %y: f32[1, n, 2, 8] = attention(%q, %k, %v, causal=true)
  return %y
}
)"},
    // Rows sit at positions 2 + i: window 1 admits key 2 + i only; the fault also admits i + 1.
    {"window-start-ignores-offset",
     R"(program @cached(n: 1..8) {
  %m: bool[n, n + 2] = sliding_window_mask(q_len=n, kv_len=n + 2, window=1, sink=0, offset=2)
  %y: i32[n, n + 2] = cast(%m, dtype=i32)
  return %y
}
)",
     oracle::VerdictKind::Mismatch, "compare",
     R"(program @no_cache(n: 1..8) {
  %m: bool[n, n] = sliding_window_mask(q_len=n, kv_len=n, window=1, sink=0)
  %y: i32[n, n] = cast(%m, dtype=i32)
  return %y
}
)"},
    // softcap 1 next to scores of about 2: tanh squeezes them hard.
    {"decompose-softcap-dropped",
     R"(program @capped(n: 1..8) {
  %q: f32[1, n, 2, 8] = param
  %k: f32[1, n, 2, 8] = param
  %v: f32[1, n, 2, 8] = param
  %y: f32[1, n, 2, 8] = attention(%q, %k, %v, causal=true, softcap=1)
  return %y
}
)",
     oracle::VerdictKind::Mismatch, "compare",
     R"(program @uncapped(n: 1..8) {
  %q: f32[1, n, 2, 8] = param
  %k: f32[1, n, 2, 8] = param
  %v: f32[1, n, 2, 8] = param
  %y: f32[1, n, 2, 8] = attention(%q, %k, %v, causal=true)
  return %y
}
)",
     "O2"},
    // 2048 copies of f16(1/3) ahead of the inputs: each lane adds the same inexact value to a
    // partial sum near 40, rounding the same way every time (with inputs alone the lanes' errors
    // stay mostly inside the f16 result's own rounding).
    {"reduction-lane-partials-narrow",
     R"(program @long_rows(n: 1..8) {
  %a: f16[n, 2048] = param
  %c: f16[n, 2048] = full(shape=[n, 2048], value=0.3333, dtype=f16)
  %b: f16[n, 4096] = concat(%c, %a, axis=1)
  %y: f16[n] = sum(%b, axes=[1], acc=f32)
  return %y, %b
}
)",
     oracle::VerdictKind::Mismatch, "compare",
     R"(program @same_width(n: 1..8) {
  %a: f16[n, 2048] = param
  %c: f16[n, 2048] = full(shape=[n, 2048], value=0.3333, dtype=f16)
  %b: f16[n, 4096] = concat(%c, %a, axis=1)
  %y: f16[n] = sum(%b, axes=[1])
  return %y, %b
}
)",
     "O3"},
    // [1, 0, 2] then [0, 2, 1] is [1, 2, 0]; composed backwards it is [2, 0, 1].
    {"simplify-permute-composed-backwards",
     R"(program @two_permutes(n: 1..8) {
  %a: f32[4, 4, 4] = param
  %t: f32[4, 4, 4] = permute_dims(%a, axes=[1, 0, 2])
  %y: f32[4, 4, 4] = permute_dims(%t, axes=[0, 2, 1])
  return %y
}
)",
     oracle::VerdictKind::Mismatch, "compare",
     R"(program @transpose_twice(n: 1..8) {
  %a: f32[4, 4, 4] = param
  %t: f32[4, 4, 4] = permute_dims(%a, axes=[1, 0, 2])
  %y: f32[4, 4, 4] = permute_dims(%t, axes=[1, 0, 2])
  return %y
}
)",
     "O1"},
  };
}

}  // namespace difftest::testing
