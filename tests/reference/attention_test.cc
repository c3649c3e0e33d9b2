// Masks, attention and rope: hand-derived values and the sliding-window conventions.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <fmt/format.h>

#include <cmath>

#include "tests/support/golden.h"

namespace difftest {
namespace {

using reference::Mode;
using testing::eval_ir;
using testing::tensor;

std::vector<double> mask(int64_t q, int64_t kv, const std::string& call) {
  return eval_ir("", fmt::format("  %r: bool[{}, {}] = {}", q, kv, call)).values;
}

TEST(GoldenAttention, CausalMask) {
  EXPECT_GOLDEN({"  %r: bool[3, 3] = causal_mask(q_len=3, kv_len=3)", {3, 3}, {1, 0, 0, 1, 1, 0, 1, 1, 1}});
  // Decoding one token against a cache of 4: position 3 sees every key.
  EXPECT_GOLDEN({"  %r: bool[1, 4] = causal_mask(q_len=1, kv_len=4, offset=3)", {1, 4}, {1, 1, 1, 1}});
}

TEST(GoldenAttention, SlidingWindowWithSink) {
  // window 2, sink 1: row p admits p-1, p and key 0.
  EXPECT_GOLDEN({"  %r: bool[6, 6] = sliding_window_mask(q_len=6, kv_len=6, window=2, sink=1)",
         {6, 6},
         {1, 0, 0, 0, 0, 0,  //
          1, 1, 0, 0, 0, 0,  //
          1, 1, 1, 0, 0, 0,  //
          1, 0, 1, 1, 0, 0,  //
          1, 0, 0, 1, 1, 0,  //
          1, 0, 0, 0, 1, 1}});
}

// For query position p and window W: exactly min(W, p + 1) keys of the window plus the sink keys
// before the window, and W >= the sequence length gives the causal mask.
RC_GTEST_PROP(SlidingWindow, RowCountsFollowTheDocumentedConvention, ()) {
  const int64_t q = *rc::gen::inRange<int64_t>(1, 12);
  const int64_t kv = q + *rc::gen::inRange<int64_t>(0, 6);
  const int64_t offset = kv - q;
  const int64_t w = *rc::gen::inRange<int64_t>(1, 20);
  const int64_t sink = *rc::gen::inRange<int64_t>(0, 4);
  const auto m = mask(q, kv, fmt::format("sliding_window_mask(q_len={}, kv_len={}, window={}, sink={}, offset={})", q, kv,
                                  w, sink, offset));
  const auto causal = mask(q, kv, fmt::format("causal_mask(q_len={}, kv_len={}, offset={})", q, kv, offset));
  for (int64_t i = 0; i < q; ++i) {
    const int64_t p = offset + i;
    int64_t count = 0;
    for (int64_t j = 0; j < kv; ++j) {
      const bool on = m[static_cast<size_t>(i * kv + j)] != 0;
      count += on;
      RC_ASSERT(on == (j <= p && (j > p - w || j < sink)));
    }
    const int64_t window_keys = std::min(w, p + 1);
    const int64_t sinks_before_window = std::max<int64_t>(0, std::min(sink, p - w + 1));
    RC_ASSERT(count == window_keys + sinks_before_window);
  }
  if (w >= kv) RC_ASSERT(m == causal);
}

TEST(GoldenAttention, SoftmaxWeightsByHand) {
  // One query, two keys: scores 0 and ln 3 -> weights 1/4 and 3/4 -> 1/4*4 + 3/4*8 = 7.
  EXPECT_GOLDEN({"  %q: f64[1, 1, 1, 1] = const [[[[1]]]]\n  %k: f64[1, 2, 1, 1] = const [[[[0]], [[1.0986122886681098]]]]\n"
         "  %v: f64[1, 2, 1, 1] = const [[[[4]], [[8]]]]\n  %r: f64[1, 1, 1, 1] = attention(%q, %k, %v, scale=1)",
         {1, 1, 1, 1}, {7}, 1e-14});
  // Causal: query 0 sees only key 0 (value 4); query 1 sees both.
  EXPECT_GOLDEN({"  %q: f64[1, 2, 1, 1] = const [[[[1]], [[1]]]]\n  %k: f64[1, 2, 1, 1] = const [[[[0]], [[1.0986122886681098]]]]\n"
         "  %v: f64[1, 2, 1, 1] = const [[[[4]], [[8]]]]\n  %r: f64[1, 2, 1, 1] = attention(%q, %k, %v, scale=1, causal=true)",
         {1, 2, 1, 1}, {4, 7}, 1e-14});
  // Softcap 1 turns score ln 3 into tanh(ln 3) = 0.8: weights 1 : e^0.8.
  const double e = std::exp(0.8);
  EXPECT_GOLDEN({"  %q: f64[1, 1, 1, 1] = const [[[[1]]]]\n  %k: f64[1, 2, 1, 1] = const [[[[0]], [[1.0986122886681098]]]]\n"
         "  %v: f64[1, 2, 1, 1] = const [[[[4]], [[8]]]]\n  %r: f64[1, 1, 1, 1] = attention(%q, %k, %v, scale=1, softcap=1)",
         {1, 1, 1, 1}, {(4 + 8 * e) / (1 + e)}, 1e-14});
  // Default scale 1/sqrt(D) with D = 4: q.k = 4 -> score 2 for key 1, 0 for key 0.
  const double w1 = std::exp(2.0) / (1 + std::exp(2.0));
  EXPECT_GOLDEN({"  %q: f64[1, 1, 1, 4] = const [[[[1, 1, 1, 1]]]]\n"
         "  %k: f64[1, 2, 1, 4] = const [[[[0, 0, 0, 0]], [[1, 1, 1, 1]]]]\n"
         "  %v: f64[1, 2, 1, 1] = const [[[[0]], [[1]]]]\n  %r: f64[1, 1, 1, 1] = attention(%q, %k, %v)",
         {1, 1, 1, 1}, {w1}, 1e-14});
}

TEST(GoldenAttention, GroupedQueryHeadsShareKvHeads) {
  // Hq = 4, Hkv = 2: heads 0, 1 read kv head 0 (value 10); heads 2, 3 read kv head 1 (value 20).
  EXPECT_GOLDEN({"  %q: f32[1, 1, 4, 1] = const [[[[1], [2], [3], [4]]]]\n  %k: f32[1, 1, 2, 1] = const [[[[1], [1]]]]\n"
         "  %v: f32[1, 1, 2, 1] = const [[[[10], [20]]]]\n  %r: f32[1, 1, 4, 1] = attention(%q, %k, %v)",
         {1, 1, 4, 1}, {10, 10, 20, 20}});
  // A row with no admitted key is 0: an all-false mask.
  EXPECT_GOLDEN({"  %q: f32[1, 1, 1, 1] = const [[[[1]]]]\n  %k: f32[1, 1, 1, 1] = const [[[[1]]]]\n"
         "  %v: f32[1, 1, 1, 1] = const [[[[5]]]]\n  %m: bool[1, 1] = const [[false]]\n"
         "  %r: f32[1, 1, 1, 1] = attention(%q, %k, %v, %m)",
         {1, 1, 1, 1}, {0}});
}

RC_GTEST_PROP(SlidingWindow, AttentionWindowEqualsAnExplicitMask, ()) {
  const int64_t s = *rc::gen::inRange<int64_t>(1, 10);
  const int64_t w = *rc::gen::inRange<int64_t>(1, 6);
  const int64_t sink = *rc::gen::inRange<int64_t>(0, 3);
  const Mode mode = *rc::gen::element(Mode::F64, Mode::Native);
  const std::string header = fmt::format(
      "  %q: f32[1, {0}, 2, 4] = param\n  %k: f32[1, {0}, 1, 4] = param\n  %v: f32[1, {0}, 1, 4] = param\n", s);
  const auto by_attrs = eval_ir("", header + fmt::format("  %r: f32[1, {}, 2, 4] = attention(%q, %k, %v, window={}, "
                                                          "sink={}, acc=f32)",
                                                          s, w, sink),
                                mode);
  const auto by_mask = eval_ir(
      "", header + fmt::format("  %m: bool[{0}, {0}] = sliding_window_mask(q_len={0}, kv_len={0}, window={1}, sink={2})\n"
                               "  %r: f32[1, {0}, 2, 4] = attention(%q, %k, %v, %m, acc=f32)",
                               s, w, sink),
      mode);
  RC_ASSERT(by_attrs.values == by_mask.values);
}

TEST(GoldenRope, PairsAndFrequencies) {
  // D = 2, position 1 (offset 1): angle 1 -> (cos 1, sin 1).
  EXPECT_GOLDEN({"  %x: f64[1, 1, 1, 2] = const [[[[1, 0]]]]\n  %r: f64[1, 1, 1, 2] = rope(%x, offset=1)", {1, 1, 1, 2},
         {std::cos(1.0), std::sin(1.0)}, 1e-15});
  // D = 4, theta 100: frequencies 1 and 100^(-1/2) = 0.1. neox pairs (0, 2) and (1, 3).
  EXPECT_GOLDEN({"  %x: f64[1, 1, 1, 4] = const [[[[1, 1, 0, 0]]]]\n  %r: f64[1, 1, 1, 4] = rope(%x, theta=100, offset=1)",
         {1, 1, 1, 4}, {std::cos(1.0), std::cos(0.1), std::sin(1.0), std::sin(0.1)}, 1e-15});
  // interleaved pairs (0, 1) and (2, 3).
  EXPECT_GOLDEN({"  %x: f64[1, 1, 1, 4] = const [[[[1, 1, 0, 0]]]]\n"
         "  %r: f64[1, 1, 1, 4] = rope(%x, theta=100, offset=1, style=\"interleaved\")",
         {1, 1, 1, 4}, {std::cos(1.0) - std::sin(1.0), std::sin(1.0) + std::cos(1.0), 0, 0}, 1e-15});
  // Position 0 is the identity; token s sits at offset + s.
  EXPECT_GOLDEN({"  %x: f64[1, 2, 1, 2] = const [[[[3, 4]], [[1, 0]]]]\n  %r: f64[1, 2, 1, 2] = rope(%x)", {1, 2, 1, 2},
         {3, 4, std::cos(1.0), std::sin(1.0)}, 1e-15});
}

}  // namespace
}  // namespace difftest
