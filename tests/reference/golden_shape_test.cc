// Golden values for data-movement and creation ops, derived by hand.
#include <gtest/gtest.h>

#include "tests/support/golden.h"

namespace difftest {
namespace {

using testing::tensor;

using testing::kA;
const std::string kV = "  %v: i32[6] = const [0, 1, 2, 3, 4, 5]\n";

TEST(GoldenShape, ReshapeWithSymbolicDims) {
  EXPECT_GOLDEN({"  %x: f32[n, 4] = param\n  %r: f32[n*2, 2] = reshape(%x, shape=[n*2, 2])", {4, 2}, {0, 1, 2, 3, 4, 5, 6, 7}, 0,
         reference::Mode::F64, "n: 1..8", {{"n", 2}},
         {{"x", tensor(DType::f32, {2, 4}, {0, 1, 2, 3, 4, 5, 6, 7})}}});
  EXPECT_GOLDEN({kA + "  %r: f32[3, 2] = reshape(%a, shape=[-1, 2])", {3, 2}, {1, 2, 3, 4, 5, 6}});
}

TEST(GoldenShape, PermuteBroadcastConcatSplit) {
  EXPECT_GOLDEN({kA + "  %r: f32[3, 2] = permute_dims(%a)", {3, 2}, {1, 4, 2, 5, 3, 6}});
  EXPECT_GOLDEN({"  %a: f32[2, 1, 2] = const [[[1, 2]], [[3, 4]]]\n  %r: f32[2, 2, 1] = permute_dims(%a, axes=[0, 2, 1])",
         {2, 2, 1}, {1, 2, 3, 4}});
  EXPECT_GOLDEN({"  %a: f32[1, 2] = const [[1, 2]]\n  %r: f32[3, 2, 2] = broadcast_to(%a, shape=[3, 2, 2])", {3, 2, 2},
         {1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2}});
  EXPECT_GOLDEN({"  %a: f32[2, 1] = const [[1], [2]]\n  %b: f32[2, 2] = const [[3, 4], [5, 6]]\n"
         "  %r: f32[2, 3] = concat(%a, %b, axis=1)",
         {2, 3}, {1, 3, 4, 2, 5, 6}});
  EXPECT_GOLDEN({kA + "  %r: f32[4, 3] = concat(%a, %a)", {4, 3}, {1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6}});
  EXPECT_GOLDEN({kA + "  %r: f32[2, 1], %s: f32[2, 2] = split(%a, indices=[1], axis=1)", {2, 2}, {2, 3, 5, 6}, 0,
         reference::Mode::F64, "", {}, {}, 1});
  EXPECT_GOLDEN({kV + "  %r: i32[3], %s: i32[3] = split(%v, sections=2)", {3}, {0, 1, 2}});
}

TEST(GoldenShape, StridedSliceNegativeStepsAndOutOfRangeEnds) {
  EXPECT_GOLDEN({kV + "  %r: i32[3] = strided_slice(%v, axes=[0], begin=[-1], end=[-100], strides=[-2])", {3}, {5, 3, 1}});
  EXPECT_GOLDEN({kV + "  %r: i32[5] = strided_slice(%v, axes=[0], begin=[1], end=[100])", {5}, {1, 2, 3, 4, 5}});
  EXPECT_GOLDEN({kV + "  %r: i32[2] = strided_slice(%v, axes=[0], begin=[-2], end=[2147483647])", {2}, {4, 5}});
  EXPECT_GOLDEN({kV + "  %r: i32[6] = strided_slice(%v, axes=[0], begin=[2147483647], end=[-2147483647], strides=[-1])", {6},
         {5, 4, 3, 2, 1, 0}});
  EXPECT_GOLDEN({kA + "  %r: f32[2, 2] = strided_slice(%a, axes=[1], begin=[0], end=[3], strides=[2])", {2, 2}, {1, 3, 4, 6}});
  EXPECT_GOLDEN({"  %x: f32[n] = param\n  %r: f32[1] = strided_slice(%x, axes=[0], begin=[-1], end=[2147483647])", {1}, {7}, 0,
         reference::Mode::F64, "n: 1..8", {{"n", 3}}, {{"x", tensor(DType::f32, {3}, {5, 6, 7})}}});
}

TEST(GoldenShape, TakeSqueezeExpandScatterRepeatTriangles) {
  const std::string emb = "  %e: f32[3, 2] = const [[1, 2], [3, 4], [5, 6]]\n";
  EXPECT_GOLDEN({emb + "  %i: i32[2] = const [2, 0]\n  %r: f32[2, 2] = take(%e, %i)", {2, 2}, {5, 6, 1, 2}});
  EXPECT_GOLDEN({emb + "  %i: i64[2] = const [-1, 7]\n  %r: f32[2, 2] = take(%e, %i)", {2, 2}, {1, 2, 5, 6}});
  EXPECT_GOLDEN({emb + "  %i: i64[2] = const [-1, 4]\n  %r: f32[2, 2] = take(%e, %i, mode=\"wrap\")", {2, 2}, {5, 6, 3, 4}});
  EXPECT_GOLDEN({emb + "  %i: i32[] = const 1\n  %r: f32[3] = take(%e, %i, axis=1)", {3}, {2, 4, 6}});
  EXPECT_GOLDEN({"  %a: f32[1, 2, 1] = const [[[1], [2]]]\n  %r: f32[2] = squeeze(%a)", {2}, {1, 2}});
  EXPECT_GOLDEN({"  %a: f32[2] = const [1, 2]\n  %r: f32[2, 1] = expand_dims(%a, axis=-1)", {2, 1}, {1, 2}});
  EXPECT_GOLDEN({"  %x: f32[5] = zeros(shape=[5])\n  %s: f32[2] = const [7, 8]\n"
         "  %r: f32[5] = slice_scatter(%x, %s, begin=1, end=5, step=2)",
         {5}, {0, 7, 0, 8, 0}});
  EXPECT_GOLDEN({"  %a: i32[2] = const [1, 2]\n  %r: i32[4] = repeat(%a, repeats=2)", {4}, {1, 1, 2, 2}});
  const std::string ones = "  %o: f32[3, 3] = ones(shape=[3, 3])\n";
  EXPECT_GOLDEN({ones + "  %r: f32[3, 3] = tril(%o)", {3, 3}, {1, 0, 0, 1, 1, 0, 1, 1, 1}});
  EXPECT_GOLDEN({ones + "  %r: f32[3, 3] = triu(%o, k=1)", {3, 3}, {0, 1, 1, 0, 0, 1, 0, 0, 0}});
  EXPECT_GOLDEN({ones + "  %r: f32[3, 3] = tril(%o, k=-1)", {3, 3}, {0, 0, 0, 1, 0, 0, 1, 1, 0}});
}

TEST(GoldenCreation, ArangeFullZerosOnes) {
  EXPECT_GOLDEN({"  %r: i64[3] = arange(start=2, end=7, step=2)", {3}, {2, 4, 6}});
  EXPECT_GOLDEN({"  %r: f32[3] = arange(start=5, end=0, step=-2, dtype=f32)", {3}, {5, 3, 1}});
  EXPECT_GOLDEN({"  %r: i32[n] = arange(end=n, dtype=i32)", {4}, {0, 1, 2, 3}, 0, reference::Mode::F64, "n: 1..8", {{"n", 4}}});
  EXPECT_GOLDEN({"  %r: f16[2] = full(shape=[2], value=-1.5, dtype=f16)", {2}, {-1.5, -1.5}});
  // full rounds its value like a literal, in both modes: 0.1 in f16 is 0.0999755859375.
  EXPECT_GOLDEN({"  %r: f16[1] = full(shape=[1], value=0.1, dtype=f16)", {1}, {0.0999755859375}});
  EXPECT_GOLDEN({"  %r: u8[2] = zeros(shape=[2], dtype=u8)", {2}, {0, 0}});
  EXPECT_GOLDEN({"  %r: bool[2] = ones(shape=[2], dtype=bool)", {2}, {1, 1}});
}

}  // namespace
}  // namespace difftest
