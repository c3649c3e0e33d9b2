// Integer overflow wraps in difftest's IR but is undefined in ONNX (ONNX Runtime saturated an
// int32 product to 2147483647 where the IR wraps: seed 20 of `fuzz --backend ort`, an export
// artefact reported as ORT's). With Options::integer_overflow_wraps off, every integer element
// whose exact value leaves its dtype is uncertain, and only those; with it on (the builtin
// compiler) they are compared, wrapped. Expected flags are written out by hand.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "tests/support/ir_util.h"
#include "tolerance/bounds.h"

namespace difftest::tolerance {
namespace {

constexpr const char* kIntegers = R"(program @ints() {
  %a: i32[3] = param
  %b: i32[3] = param
  %m: i32[3] = mul(%a, %b)
  %s: i32[3] = add(%a, %b)
  %d: i32[3] = sub(%b, %a)
  %n: i32[3] = neg(%b)
  %t: i32[] = sum(%a, axes=[0])
  %p: i32[] = prod(%b, axes=[0])
  %c: i8[3] = cast(%a, dtype=i8)
  %k: i32[3] = add(%m, %a)
  return %m, %s, %d, %n, %t, %p, %c, %k
}
)";

std::vector<std::vector<int>> uncertain_flags(bool wraps) {
  const Program p = testing::verified_program(kIntegers, "ints.ir");
  std::map<std::string, Tensor> inputs;
  inputs["a"] = Tensor::from_ints(DType::i32, {3}, {65536, 3, 2000000000});
  inputs["b"] = Tensor::from_ints(DType::i32, {3}, {65536, -4, -2147483648});
  Options opt;
  opt.integer_overflow_wraps = wraps;
  const BoundedProgram b = bound_program(p, {}, inputs, opt);
  EXPECT_FALSE(b.invalid) << b.invalid_reason;
  std::vector<std::vector<int>> out;
  for (const Bounded* o : b.outputs) out.emplace_back(o->uncertain.begin(), o->uncertain.end());
  return out;
}

// a = [65536, 3, 2e9], b = [65536, -4, -2^31].
TEST(IntegerOverflow, WhereOverflowIsUndefinedTheElementsThatOverflowAreUncertain) {
  const std::vector<std::pair<std::string, std::vector<int>>> want = {
      {"mul: 2^32 and -4.3e18 overflow, -12 fits", {1, 0, 1}},
      {"add: 131072, -1 and -147483648 fit", {0, 0, 0}},
      {"sub: -2^31 - 2e9 overflows", {0, 0, 1}},
      {"neg: -(-2^31) overflows", {0, 0, 1}},
      {"sum: 2000065539 fits below 2^31", {0}},
      {"prod: 2^49 overflows", {1}},
      {"cast to i8: 65536 and 2e9 do not fit, 3 does", {1, 0, 1}},
      {"add after mul: uncertain where the product was; -9 fits", {1, 0, 1}},
  };
  const std::vector<std::vector<int>> got = uncertain_flags(false);
  ASSERT_EQ(got.size(), want.size());
  for (size_t o = 0; o < want.size(); ++o) EXPECT_EQ(got[o], want[o].second) << want[o].first;
}

TEST(IntegerOverflow, WhereItWrapsEveryElementIsCompared) {
  for (const auto& flags : uncertain_flags(true)) {
    for (int f : flags) EXPECT_EQ(f, 0);
  }
}


// An integer quotient by zero is 0 in the IR; C, LLVM IR and ONNX leave it undefined (TVM's code
// traps with SIGFPE): where overflow does not wrap, such a case is invalid, naming the quotient.
TEST(IntegerOverflow, WhereOverflowIsUndefinedAnIntegerDivisionByZeroMakesTheCaseInvalid) {
  const Program p = testing::verified_program(R"(program @q() {
  %a: i32[3] = param
  %b: i32[3] = param
  %f: f32[3] = param
  %q: i32[3] = floor_divide(%a, %b)
  %r: f32[3] = div(%f, %f)
  return %q, %r
}
)",
                                              "q.ir");
  std::map<std::string, Tensor> inputs;
  inputs["a"] = Tensor::from_ints(DType::i32, {3}, {7, 8, 9});
  inputs["f"] = Tensor::from_doubles(DType::f32, {3}, {1, 2, 3});
  for (const bool wraps : {false, true}) {
    Options opt;
    opt.integer_overflow_wraps = wraps;
    inputs["b"] = Tensor::from_ints(DType::i32, {3}, {2, 0, 3});
    const BoundedProgram zero = bound_program(p, {}, inputs, opt);
    EXPECT_EQ(zero.invalid, !wraps);
    if (!wraps) {
      EXPECT_EQ(zero.invalid_reason,
                "%q divides an integer by zero (element 1 of %b), which C and ONNX leave undefined");
    }
    inputs["b"] = Tensor::from_ints(DType::i32, {3}, {2, -1, 3});
    EXPECT_FALSE(bound_program(p, {}, inputs, opt).invalid) << "no zero divisor";
  }
}


// A float cast to an integer saturates in the IR; C, LLVM and ONNX leave a value past the range
// undefined (TVM answered 4294967295 for u32(-1.37)): uncertain where overflow does not wrap.
TEST(IntegerOverflow, WhereOverflowIsUndefinedAFloatCastPastTheIntegersRangeIsUncertain) {
  const Program p = testing::verified_program(R"(program @c() {
  %f: f32[4] = param
  %u: u32[4] = cast(%f, dtype=u32)
  %i: i8[4] = cast(%f, dtype=i8)
  return %u, %i
}
)",
                                              "c.ir");
  std::map<std::string, Tensor> inputs;
  inputs["f"] = Tensor::from_doubles(DType::f32, {4}, {0.625, -1.375, -0.5, 300.0});
  for (const bool wraps : {false, true}) {
    Options opt;
    opt.integer_overflow_wraps = wraps;
    const BoundedProgram b = bound_program(p, {}, inputs, opt);
    ASSERT_FALSE(b.invalid) << b.invalid_reason;
    const std::vector<uint8_t> u(b.outputs[0]->uncertain.begin(), b.outputs[0]->uncertain.end());
    const std::vector<uint8_t> i(b.outputs[1]->uncertain.begin(), b.outputs[1]->uncertain.end());
    if (wraps) {
      EXPECT_EQ(u, (std::vector<uint8_t>{0, 0, 0, 0}));
      EXPECT_EQ(i, (std::vector<uint8_t>{0, 0, 0, 0}));
    } else {
      EXPECT_EQ(u, (std::vector<uint8_t>{0, 1, 0, 0})) << "u32: -1 is past the range, -0.5 truncates to 0";
      EXPECT_EQ(i, (std::vector<uint8_t>{0, 0, 0, 1})) << "i8: 300 is past the range";
    }
  }
}

}  // namespace
}  // namespace difftest::tolerance
