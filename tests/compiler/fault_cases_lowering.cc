#include "tests/compiler/fault_cases.h"

namespace difftest::testing {

std::vector<FaultCase> lowering_fault_cases() {
  return {
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
  };
}

const std::vector<FaultCase>& all_fault_cases() {
  static const std::vector<FaultCase> cases = [] {
    std::vector<FaultCase> v;
    for (auto part : {lowering_fault_cases, graph_fault_cases, schedule_fault_cases, quantization_fault_cases}) {
      for (auto& c : part()) v.push_back(c);
    }
    return v;
  }();
  return cases;
}

}  // namespace difftest::testing
