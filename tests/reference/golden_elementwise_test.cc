// Golden values for the elementwise family, derived by hand from compiler/ops/elementwise.cc.
#include <gtest/gtest.h>

#include "tests/support/golden.h"

namespace difftest {
namespace {

using testing::Golden;
using reference::Mode;

TEST(GoldenElementwise, BroadcastingOfUnitAndMissingDims) {
  EXPECT_GOLDEN({"  %a: f32[2, 1] = const [[1], [2]]\n  %b: f32[3] = const [10, 20, 30]\n  %r: f32[2, 3] = add(%a, %b)",
         {2, 3}, {11, 21, 31, 12, 22, 32}});
  EXPECT_GOLDEN({"  %a: f32[2, 2] = const [[5, 6], [7, 8]]\n  %b: f32[] = const 1\n  %r: f32[2, 2] = sub(%a, %b)",
         {2, 2}, {4, 5, 6, 7}});
  EXPECT_GOLDEN({"  %a: i32[1, 3] = const [[1, 2, 3]]\n  %b: i32[2, 1] = const [[10], [100]]\n  %r: i32[2, 3] = mul(%a, %b)",
         {2, 3}, {10, 20, 30, 100, 200, 300}});
}

TEST(GoldenElementwise, IntegerArithmeticWraps) {
  // 100 * 2 = 200 -> 200 - 256 = -56;  -128 * -1 = 128 -> -128.
  EXPECT_GOLDEN({"  %a: i8[2] = const [100, -128]\n  %b: i8[2] = const [2, -1]\n  %r: i8[2] = mul(%a, %b)", {2}, {-56, -128}});
  EXPECT_GOLDEN({"  %a: u8[2] = const [250, 3]\n  %b: u8[2] = const [10, 5]\n  %r: u8[2] = sub(%a, %b)", {2}, {240, 254}});
  EXPECT_GOLDEN({"  %a: i8[1] = const [-128]\n  %r: i8[1] = abs(%a)", {1}, {-128}});
  EXPECT_GOLDEN({"  %a: i32[2] = const [-2147483648, 5]\n  %r: i32[2] = neg(%a)", {2}, {-2147483648.0, -5}});
}

TEST(GoldenElementwise, FloorDivisionAndModulo) {
  // Python: -7//2=-4, 7//-2=-4, -7//-2=3, 5//0 -> 0 (difftest), min//-1 wraps.
  EXPECT_GOLDEN({"  %a: i32[5] = const [-7, 7, -7, 5, -2147483648]\n  %b: i32[5] = const [2, -2, -2, 0, -1]\n"
         "  %r: i32[5] = floor_divide(%a, %b)",
         {5}, {-4, -4, 3, 0, -2147483648.0}});
  EXPECT_GOLDEN({"  %a: i32[4] = const [-7, 7, -7, 5]\n  %b: i32[4] = const [2, -2, -2, 0]\n  %r: i32[4] = floor_mod(%a, %b)",
         {4}, {1, -1, -1, 0}});
  // NumPy: np.floor_divide(-7.5, 2) = -4, np.mod(-7.5, 2) = 0.5, np.mod(7, -2) = -1.
  EXPECT_GOLDEN({"  %a: f32[2] = const [-7.5, 7]\n  %b: f32[2] = const [2, -2]\n  %r: f32[2] = floor_divide(%a, %b)", {2}, {-4, -4}});
  EXPECT_GOLDEN({"  %a: f32[2] = const [-7.5, 7]\n  %b: f32[2] = const [2, -2]\n  %r: f32[2] = floor_mod(%a, %b)", {2}, {0.5, -1}});
}

TEST(GoldenElementwise, FloatBinaryOps) {
  EXPECT_GOLDEN({"  %a: f32[2] = const [1, -3]\n  %b: f32[2] = const [4, 2]\n  %r: f32[2] = div(%a, %b)", {2}, {0.25, -1.5}});
  EXPECT_GOLDEN({"  %a: f32[2] = const [2, 4]\n  %b: f32[2] = const [3, 0.5]\n  %r: f32[2] = pow(%a, %b)", {2}, {8, 2}});
  EXPECT_GOLDEN({"  %a: f32[2] = const [1, -2]\n  %b: f32[] = const 0\n  %r: f32[2] = maximum(%a, %b)", {2}, {1, 0}});
  EXPECT_GOLDEN({"  %a: f32[2] = const [1, -2]\n  %b: f32[] = const 0\n  %r: f32[2] = minimum(%a, %b)", {2}, {0, -2}});
  EXPECT_GOLDEN({"  %a: f64[3] = const [1, 0, 0]\n  %b: f64[3] = const [1, 0, -1]\n  %r: f64[3] = atan2(%a, %b)",
         {3}, {M_PI / 4, 0, M_PI}});
}

TEST(GoldenElementwise, UnaryMath) {
  EXPECT_GOLDEN({"  %a: f64[3] = const [0, 1, 2]\n  %r: f64[3] = exp(%a)", {3}, {1, M_E, M_E * M_E}, 1e-15});
  EXPECT_GOLDEN({"  %a: f64[2] = const [1, 4]\n  %r: f64[2] = log(%a)", {2}, {0, 2 * M_LN2}, 1e-15});
  EXPECT_GOLDEN({"  %a: f32[2] = const [4, 0.25]\n  %r: f32[2] = sqrt(%a)", {2}, {2, 0.5}});
  EXPECT_GOLDEN({"  %a: f32[2] = const [4, 0.25]\n  %r: f32[2] = rsqrt(%a)", {2}, {0.5, 2}});
  EXPECT_GOLDEN({"  %a: f64[2] = const [0, 1]\n  %r: f64[2] = sigmoid(%a)", {2}, {0.5, 0.7310585786300049}, 1e-15});
  EXPECT_GOLDEN({"  %a: f64[2] = const [0, 1]\n  %r: f64[2] = silu(%a)", {2}, {0, 0.7310585786300049}, 1e-15});
  EXPECT_GOLDEN({"  %a: f64[2] = const [0, 1]\n  %r: f64[2] = gelu(%a)", {2}, {0, 0.8413447460685429}, 1e-15});
  EXPECT_GOLDEN({"  %a: f64[2] = const [0, 1]\n  %r: f64[2] = gelu(%a, approximate=\"tanh\")", {2}, {0, 0.8411919906082768}, 1e-15});
  EXPECT_GOLDEN({"  %a: f64[3] = const [0, 1, -1]\n  %r: f64[3] = tanh(%a)", {3}, {0, 0.7615941559557649, -0.7615941559557649}, 1e-15});
  EXPECT_GOLDEN({"  %a: f64[2] = const [0, 1]\n  %r: f64[2] = erf(%a)", {2}, {0, 0.8427007929497149}, 1e-15});
  EXPECT_GOLDEN({"  %a: f64[2] = const [0, 1.5707963267948966]\n  %r: f64[2] = sin(%a)", {2}, {0, 1}, 1e-15});
  EXPECT_GOLDEN({"  %a: f64[2] = const [0, 3.141592653589793]\n  %r: f64[2] = cos(%a)", {2}, {1, -1}, 1e-15});
  EXPECT_GOLDEN({"  %a: f32[3] = const [-1.5, 1.5, 2]\n  %r: f32[3] = floor(%a)", {3}, {-2, 1, 2}});
  EXPECT_GOLDEN({"  %a: f32[5] = const [0.5, 1.5, -2.5, 2.4, -0.6]\n  %r: f32[5] = round(%a)", {5}, {0, 2, -2, 2, -1}});
  EXPECT_GOLDEN({"  %a: f32[2] = const [-1, 2]\n  %r: f32[2] = relu(%a)", {2}, {0, 2}});
  EXPECT_GOLDEN({"  %a: f32[2] = const [-2, 3]\n  %r: f32[2] = leaky_relu(%a, alpha=0.25)", {2}, {-0.5, 3}});
  EXPECT_GOLDEN({"  %a: f32[3] = const [-5, 0.5, 5]\n  %r: f32[3] = clip(%a, min=-1, max=1)", {3}, {-1, 0.5, 1}});
  EXPECT_GOLDEN({"  %a: i8[3] = const [-100, 3, 100]\n  %r: i8[3] = clip(%a, min=-8, max=8)", {3}, {-8, 3, 8}});
}

TEST(GoldenElementwise, ComparisonsLogicAndWhere) {
  EXPECT_GOLDEN({"  %a: f32[3] = const [1, 2, 3]\n  %b: f32[] = const 2\n  %r: bool[3] = less(%a, %b)", {3}, {1, 0, 0}});
  EXPECT_GOLDEN({"  %a: f32[3] = const [1, 2, 3]\n  %b: f32[] = const 2\n  %r: bool[3] = greater_equal(%a, %b)", {3}, {0, 1, 1}});
  EXPECT_GOLDEN({"  %a: i32[3] = const [1, 2, 3]\n  %b: i32[3] = const [1, 0, 3]\n  %r: bool[3] = equal(%a, %b)", {3}, {1, 0, 1}});
  EXPECT_GOLDEN({"  %a: i32[3] = const [1, 2, 3]\n  %b: i32[3] = const [1, 0, 3]\n  %r: bool[3] = not_equal(%a, %b)", {3}, {0, 1, 0}});
  EXPECT_GOLDEN({"  %a: u8[2] = const [1, 9]\n  %b: u8[2] = const [1, 2]\n  %r: bool[2] = less_equal(%a, %b)", {2}, {1, 0}});
  EXPECT_GOLDEN({"  %a: u32[2] = const [7, 9]\n  %b: u32[] = const 8\n  %r: bool[2] = greater(%a, %b)", {2}, {0, 1}});
  const std::string tt = "  %a: bool[4] = const [false, false, true, true]\n  %b: bool[4] = const [false, true, false, true]\n";
  EXPECT_GOLDEN({tt + "  %r: bool[4] = logical_and(%a, %b)", {4}, {0, 0, 0, 1}});
  EXPECT_GOLDEN({tt + "  %r: bool[4] = logical_or(%a, %b)", {4}, {0, 1, 1, 1}});
  EXPECT_GOLDEN({tt + "  %r: bool[4] = logical_xor(%a, %b)", {4}, {0, 1, 1, 0}});
  EXPECT_GOLDEN({tt + "  %r: bool[4] = logical_not(%a)", {4}, {1, 1, 0, 0}});
  EXPECT_GOLDEN({"  %c: bool[2] = const [true, false]\n  %a: f32[2, 2] = const [[1, 2], [3, 4]]\n  %b: f32[] = const 0\n"
         "  %r: f32[2, 2] = where(%c, %a, %b)",
         {2, 2}, {1, 0, 3, 0}});
}

TEST(GoldenElementwise, CastsFollowTheDocumentedRules) {
  // float -> int: toward zero, saturating, NaN -> 0.
  EXPECT_GOLDEN({"  %a: f32[5] = const [1.5, -1.5, 10000000000, -10000000000, nan]\n  %r: i8[5] = cast(%a, dtype=i8)",
         {5}, {1, -1, 127, -128, 0}});
  // int -> int keeps the low bits: 300 -> 44 in u8, -1 -> 4294967295 in u32.
  EXPECT_GOLDEN({"  %a: i32[2] = const [300, -1]\n  %r: u8[2] = cast(%a, dtype=u8)", {2}, {44, 255}});
  EXPECT_GOLDEN({"  %a: i32[1] = const [-1]\n  %r: u32[1] = cast(%a, dtype=u32)", {1}, {4294967295.0}});
  EXPECT_GOLDEN({"  %a: f32[3] = const [0, 2, -0.5]\n  %r: bool[3] = cast(%a, dtype=bool)", {3}, {0, 1, 1}});
  // f32 -> f16 rounds to nearest even in native mode: 2049 is a tie between 2048 and 2050.
  EXPECT_GOLDEN({"  %a: f32[3] = const [2049, 2051, 65520]\n  %r: f16[3] = cast(%a, dtype=f16)", {3}, {2048, 2052, INFINITY},
         0, Mode::Native});
  // In f64 mode no floating operation rounds, casts included.
  EXPECT_GOLDEN({"  %a: f32[1] = const [2049]\n  %r: f16[1] = cast(%a, dtype=f16)", {1}, {2049}});
  // bf16 keeps 8 significant bits: 257 -> 256, 259 -> 260.
  EXPECT_GOLDEN({"  %a: i32[2] = const [257, 259]\n  %r: bf16[2] = cast(%a, dtype=bf16)", {2}, {256, 260}, 0, Mode::Native});
}

TEST(GoldenElementwise, NativeModeRoundsEveryOperation) {
  // In f16, 2048 + 1 rounds back to 2048 (a tie to even); f64 mode keeps 2049.
  const std::string body = "  %a: f16[1] = const [2048]\n  %b: f16[1] = const [1]\n  %r: f16[1] = add(%a, %b)";
  EXPECT_GOLDEN({body, {1}, {2048}, 0, Mode::Native});
  EXPECT_GOLDEN({body, {1}, {2049}, 0, Mode::F64});
  // bf16: 1 + 2^-8 is a tie between 1 and 1 + 2^-7 and rounds to 1.
  EXPECT_GOLDEN({"  %a: bf16[1] = const [1]\n  %b: bf16[1] = const [0.00390625]\n  %r: bf16[1] = add(%a, %b)", {1}, {1}, 0,
         Mode::Native});
}

}  // namespace
}  // namespace difftest
