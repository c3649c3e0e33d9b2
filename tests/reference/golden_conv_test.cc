// Golden values for convolutions and upsampling, derived by hand.
#include <gtest/gtest.h>

#include "tests/support/golden.h"

namespace difftest {
namespace {

const std::string kX = "  %x: f32[1, 1, 5] = const [[[1, 2, 3, 4, 5]]]\n  %w: f32[1, 1, 3] = const [[[1, 0, -1]]]\n";

TEST(GoldenConv, Conv1dPaddingStrideDilation) {
  // y[l] = x[l - 1] - x[l + 1] with zero padding.
  EXPECT_GOLDEN({kX + "  %r: f32[1, 1, 5] = conv1d(%x, %w, padding=1)", {1, 1, 5}, {-2, -2, -2, -2, 4}});
  EXPECT_GOLDEN({kX + "  %r: f32[1, 1, 3] = conv1d(%x, %w, stride=2, padding=1)", {1, 1, 3}, {-2, -2, 4}});
  // Dilation 2 reads x[0] and x[4]: 1 - 5.
  EXPECT_GOLDEN({kX + "  %r: f32[1, 1, 1] = conv1d(%x, %w, dilation=2)", {1, 1, 1}, {-4}});
  EXPECT_GOLDEN({kX + "  %r: f32[1, 1, 3] = conv1d(%x, %w)", {1, 1, 3}, {-2, -2, -2}});
}

TEST(GoldenConv, Conv1dGroupsAndBias) {
  // Output channel 0 reads input channel 0 only, channel 1 reads channel 1.
  EXPECT_GOLDEN({"  %x: f32[1, 2, 2] = const [[[1, 2], [3, 4]]]\n  %w: f32[2, 1, 1] = const [[[10]], [[100]]]\n"
         "  %b: f32[2] = const [1, 2]\n  %r: f32[1, 2, 2] = conv1d(%x, %w, %b, groups=2)",
         {1, 2, 2}, {11, 21, 302, 402}});
  // Without groups every output channel sums both input channels.
  EXPECT_GOLDEN({"  %x: f32[1, 2, 2] = const [[[1, 2], [3, 4]]]\n  %w: f32[1, 2, 1] = const [[[10], [100]]]\n"
         "  %r: f32[1, 1, 2] = conv1d(%x, %w)",
         {1, 1, 2}, {310, 420}});
}

TEST(GoldenConv, Conv2d) {
  const std::string x = "  %x: f32[1, 1, 3, 3] = const [[[[1, 2, 3], [4, 5, 6], [7, 8, 9]]]]\n";
  // The diagonal kernel adds x[h, w] and x[h + 1, w + 1].
  EXPECT_GOLDEN({x + "  %w: f32[1, 1, 2, 2] = const [[[[1, 0], [0, 1]]]]\n  %r: f32[1, 1, 2, 2] = conv2d(%x, %w)", {1, 1, 2, 2},
         {6, 8, 12, 14}});
  // Padding 1 on H only, stride 2 on W: rows -1..3 clipped, columns 0 and 2.
  EXPECT_GOLDEN({x + "  %w: f32[1, 1, 3, 1] = const [[[[1], [1], [1]]]]\n"
             "  %r: f32[1, 1, 3, 2] = conv2d(%x, %w, stride=[1, 2], padding=[1, 0])",
         {1, 1, 3, 2}, {5, 9, 12, 18, 11, 15}});
}

TEST(GoldenConv, TransposedConvAndUpsample) {
  // Input j scatters to j*2 + k: 1 -> 0, 1, 2; 2 -> 2, 3, 4.
  const std::string t = "  %x: f32[1, 1, 2] = const [[[1, 2]]]\n  %w: f32[1, 1, 3] = const [[[1, 1, 1]]]\n";
  EXPECT_GOLDEN({t + "  %r: f32[1, 1, 5] = conv_transpose1d(%x, %w, stride=2)", {1, 1, 5}, {1, 1, 3, 2, 2}});
  EXPECT_GOLDEN({t + "  %r: f32[1, 1, 3] = conv_transpose1d(%x, %w, stride=2, padding=1)", {1, 1, 3}, {1, 3, 2}});
  EXPECT_GOLDEN({t + "  %r: f32[1, 1, 6] = conv_transpose1d(%x, %w, stride=2, output_padding=1)", {1, 1, 6}, {1, 1, 3, 2, 2, 0}});
  // Two output channels (w's second dim) with different weights.
  EXPECT_GOLDEN({"  %x: f32[1, 1, 2] = const [[[1, 2]]]\n  %w: f32[1, 2, 1] = const [[[1], [-1]]]\n"
         "  %r: f32[1, 2, 2] = conv_transpose1d(%x, %w)",
         {1, 2, 2}, {1, 2, -1, -2}});
  EXPECT_GOLDEN({"  %x: f32[1, 1, 2] = const [[[1, 2]]]\n  %r: f32[1, 1, 6] = upsample_nearest1d(%x, scale=3)", {1, 1, 6},
         {1, 1, 1, 2, 2, 2}});
}

}  // namespace
}  // namespace difftest
