#include "tests/compiler/fault_cases.h"

namespace difftest::testing {

std::vector<FaultCase> lowering_fault_cases() {
  return {
    // 3 x 512 dot products of 64 terms accumulated in f32, nearly all inexact in bf16: each
    // result within one ulp, all toward zero.
    {"bf16-round-truncates",
     R"(program @projection(n: 1..8) {
  %a: bf16[n, 64] = param
  %w: bf16[64, 512] = param
  %y: bf16[n, 512] = matmul(%a, %w, acc=f32)
  return %y
}
)",
     oracle::VerdictKind::Outlier, "compare",
     R"(program @f16_projection(n: 1..8) {
  %a: f16[n, 64] = param
  %w: f16[64, 512] = param
  %y: f16[n, 512] = matmul(%a, %w, acc=f32)
  return %y
}
)"},
    {"legalize-null-deref",
     R"(program @add(n: 1..8) {
  %a: f32[n, 4] = param
  %b: f32[4] = param
  %y: f32[n, 4] = add(%a, %b)
  return %y
}
)",
     oracle::VerdictKind::CompileCrash, "compile",
     R"(program @no_binary(n: 1..8) {
  %a: f32[n, 4] = param
  %e: f32[n, 4] = exp(%a)
  %y: f32[n] = sum(%e, axes=[1])
  return %y
}
)"},
    {"codegen-stuck-loop",
     R"(program @exp(n: 1..8) {
  %a: f32[n, 4] = param
  %b: f32[n, 4] = param
  %s: f32[n, 4] = add(%a, %b)
  %y: f32[n, 4] = exp(%s)
  return %y
}
)",
     oracle::VerdictKind::Timeout, "run",
     R"(program @no_math(n: 1..8) {
  %a: f32[n, 4] = param
  %b: f32[n, 4] = param
  %s: f32[n, 4] = mul(%a, %b)
  %y: f32[n, 4] = neg(%s)
  %z: f32[n, 4] = sigmoid(%y)
  return %z
}
)"},
    // At O3 the mul is fused into the sub's kernel, where ContractMultiplyAdds makes one fma of
    // a*b - c; a product subtracted from a value keeps its sign (the fault is on the other side).
    {"fma-contraction-drops-addend-sign",
     R"(program @residual(n: 1..8) {
  %a: f32[n, 4] = param
  %b: f32[n, 4] = param
  %c: f32[n, 4] = param
  %p: f32[n, 4] = mul(%a, %b)
  %y: f32[n, 4] = sub(%p, %c)
  return %y
}
)",
     oracle::VerdictKind::Mismatch, "compare",
     R"(program @product_subtracted(n: 1..8) {
  %a: f32[n, 4] = param
  %b: f32[n, 4] = param
  %c: f32[n, 4] = param
  %p: f32[n, 4] = mul(%a, %b)
  %y: f32[n, 4] = sub(%c, %p)
  return %y
}
)",
     "O3"},
    {"mul-drops-tail",
     R"(program @mul(n: 1..8) {
  %a: f32[n, 4] = param
  %b: f32[n, 4] = param
  %y: f32[n, 4] = mul(%a, %b)
  return %y
}
)",
     oracle::VerdictKind::Mismatch, "compare",
     R"(program @no_tail(n: 1..8) {
  %a: f32[n, 4] = param
  %b: f32[n, 1] = param
  %s: f32[n, 4] = add(%a, %a)
  %e: f32[n, 4] = exp(%s)
  %y: f32[n, 1] = mul(%b, %b)
  return %e, %y
}
)",
     "O0", "3 of 12 elements", 3},
    // Window 1, sink 1 (n = 3): row p admits key p and the sink key 0, so rows 1 and 2 see key 0
    // only through the sink; without it (1, 0) and (2, 0) are hidden.
    {"sliding-window-sink-ignored",
     R"(program @sink_mask(n: 1..8) {
  %y: bool[n, n] = sliding_window_mask(q_len=n, kv_len=n, window=1, sink=1)
  return %y
}
)",
     oracle::VerdictKind::Mismatch, "compare",
     R"(program @no_sink(n: 1..8) {
  %q: f32[1, n, 2, 8] = param
  %k: f32[1, n, 2, 8] = param
  %v: f32[1, n, 2, 8] = param
  %m: bool[n, n] = sliding_window_mask(q_len=n, kv_len=n, window=2, sink=0)
  %y: f32[1, n, 2, 8] = attention(%q, %k, %v, window=2)
  return %m, %y
}
)",
     "O0", "2 of 9 elements", 0},
    // Head dim 4: pair 0 has exponent 0 (theta does not matter), pair 1 rotates by p * theta^-1/2:
    // 1e-3 at theta 1e6, 1e-2 at the faulty 1e4; positions 1 and 2 (n = 3) differ, 2 elements each.
    {"rope-theta-local-everywhere",
     R"(program @global_rope(n: 1..8) {
  %x: f32[1, n, 1, 4] = param
  %y: f32[1, n, 1, 4] = rope(%x, theta=1000000)
  return %y
}
)",
     oracle::VerdictKind::Mismatch, "compare",
     R"(program @local_rope(n: 1..8) {
  %x: f32[1, n, 1, 4] = param
  %y: f32[1, n, 1, 4] = rope(%x, theta=10000, style="interleaved")
  return %y
}
)",
     "O0", "4 of 12 elements"},
    // Columns 6 and 7 of 8; the fault reads columns 2 and 3.
    {"strided-slice-negative-begin",
     R"(program @last_two(n: 1..8) {
  %a: f32[n, 8] = param
  %y: f32[n, 2] = strided_slice(%a, axes=[1], begin=[-2], end=[8])
  return %y
}
)",
     oracle::VerdictKind::Mismatch, "compare",
     // A non-negative begin; a backward slice from -1; -2 of a dim of 3 (the clamp hides it).
     R"(program @other_slices(n: 1..8) {
  %a: f32[n, 8] = param
  %b: f32[n, 3] = param
  %s: f32[n, 7] = strided_slice(%a, axes=[1], begin=[1], end=[8])
  %r: f32[n, 8] = strided_slice(%a, axes=[1], begin=[-1], end=[-2147483647], strides=[-1])
  %t: f32[n, 2] = strided_slice(%b, axes=[1], begin=[-2], end=[3])
  return %s, %r, %t
}
)",
     "O0", "6 of 6 elements"},
  };
}

const std::vector<FaultCase>& all_fault_cases() {
  static const std::vector<FaultCase> cases = [] {
    std::vector<FaultCase> v;
    for (auto part : {lowering_fault_cases, graph_fault_cases, schedule_fault_cases, quantization_fault_cases,
                      held_out_fault_cases}) {
      for (auto& c : part()) v.push_back(c);
    }
    return v;
  }();
  return cases;
}

}  // namespace difftest::testing
