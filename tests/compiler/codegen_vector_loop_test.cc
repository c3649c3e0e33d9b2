// Codegen's own vector form of `vectorized` loops (compiler/codegen/vector_loop.h): which loops
// take it, how indices move per lane, and that the vector code computes what the scalar loop
// computes. Expected values come from plain C++ arithmetic on the inputs.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/codegen/codegen.h"
#include "compiler/codegen/jit.h"
#include "compiler/codegen/vector_loop.h"
#include "compiler/loop/parser.h"
#include "compiler/tensor/tensor.h"
#include "tests/support/jit_util.h"

namespace difftest::codegen {
namespace {

loop::Stmt first_loop(const std::string& body, const std::string& dims = "") {
  const loop::Module m =
      loop::parse_module(fmt::format("func @f(X: f32[64], Y: f32[64]) dims({}) {{\n{}\n}}\n", dims, body), "f.loop");
  return m.funcs.at(0).body;
}

loop::Expr index_of_first_store(const loop::Stmt& loop) {
  loop::Stmt s = loop.node().body[0];
  while (s.node().kind == loop::StmtKind::Seq) s = s.node().body[0];
  return s.node().index;
}

TEST(VectorLoop, LaneStrideOfAffineAndOtherIndices) {
  const loop::Stmt l = first_loop("  for (i, 0, 8) vectorized {\n    Y[((2 * ((i + 3) * 4)) - (7 * i))] = 0.0:f32\n  }");
  EXPECT_EQ(lane_stride(index_of_first_store(l), "i"), 1) << "2*4*i - 7*i moves one element per lane";
  EXPECT_EQ(lane_stride(index_of_first_store(l), "j"), 0) << "free of j";
  const loop::Stmt d = first_loop("  for (i, 0, 8) vectorized {\n    Y[(i // 2)] = 0.0:f32\n  }");
  EXPECT_EQ(lane_stride(index_of_first_store(d), "i"), std::nullopt) << "i // 2 is not affine";
  const loop::Stmt m = first_loop("  for (i, 0, 8) vectorized {\n    Y[(i * i)] = 0.0:f32\n  }");
  EXPECT_EQ(lane_stride(index_of_first_store(m), "i"), std::nullopt) << "i * i is not affine";
}

TEST(VectorLoop, TakesStoreOnlyLoopsWhoseLanesTouchTheirOwnElements) {
  const auto taken = [](const std::string& body) { return vector_loop_stores(first_loop(body).node()).has_value(); };
  EXPECT_TRUE(taken("  for (i, 0, 8) vectorized {\n    Y[i] = (Y[i] + X[(i * 3)])\n  }"))
      << "reads its own element of Y; X is not written";
  EXPECT_TRUE(taken("  for (i, 0, 16) vectorized {\n    Y[(i + 1)] = X[i]\n    Y[(i + 1)] = (Y[(i + 1)] * 2.0:f32)\n  }"))
      << "two stores, one index";
  EXPECT_FALSE(taken("  for (i, 0, 8) vectorized {\n    Y[(i + 1)] = (Y[i] + 1.0:f32)\n  }"))
      << "lane i reads what lane i - 1 writes";
  EXPECT_FALSE(taken("  for (i, 0, 8) vectorized {\n    Y[i] = X[i]\n    Y[(i + 8)] = X[i]\n  }"))
      << "two indices into one written buffer";
  EXPECT_FALSE(taken("  for (i, 0, 8) vectorized {\n    Y[(2 * i)] = X[i]\n  }")) << "a strided store";
  EXPECT_FALSE(taken("  for (i, 0, 8) vectorized {\n    Y[0] = (Y[0] + X[i])\n  }")) << "a reduction into one element";
  EXPECT_FALSE(taken("  for (i, 0, 65) vectorized {\n    Y[(i % 64)] = X[(i % 64)]\n  }")) << "more than 64 lanes";
  EXPECT_FALSE(taken("  for (i, 0, 8) serial {\n    Y[i] = X[i]\n  }")) << "not a vectorized loop";
  EXPECT_FALSE(taken("  for (i, 0, 8) vectorized {\n    for (j, 0, 2) serial {\n      Y[(i + j)] = X[i]\n    }\n  }"))
      << "a nested loop";
  EXPECT_FALSE(vector_loop_stores(first_loop("  for (i, 0, n) vectorized {\n    Y[i] = X[i]\n  }", "n").node()))
      << "a symbolic extent";
}

// Nibble decoding (a gather of words by i // 8, per-lane shifts), f16 rounding, a select and a
// loop that must stay scalar, each at LLVM -O0 and -O3.
TEST(VectorLoop, VectorCodeComputesWhatTheScalarLoopComputes) {
  const std::string text = R"(func @f(X: f32[16], W: u32[2], Y: f32[16], H: f16[16], S: f32[9]) dims() {
  for (i, 0, 16) vectorized {
    Y[i] = ((X[i] * 2.0:f32) + cast<f32>((cast<i32>(((W[(i // 8)] >> cast<u32>((4 * (i % 8)))) & 15:u32)) - 7:i32)))
    H[i] = cast<f16>(select((X[i] < 3.0:f32), (X[i] / 3.0:f32), Y[i]))
  }
  for (i, 0, 8) vectorized {
    S[(i + 1)] = (S[i] + 1.5:f32)
  }
}
)";
  const loop::Module m = loop::parse_module(text, "f.loop");
  const std::string ir = emit_llvm_text(m, "t_");
  EXPECT_NE(ir.find("<16 x float>"), std::string::npos) << ir;
  EXPECT_EQ(ir.find("<8 x float>"), std::string::npos) << "the prefix loop must stay scalar\n" << ir;
  const uint32_t words[2] = {0x76543210u, 0xFEDCBA98u};
  for (int level : {0, 3}) {
    SCOPED_TRACE(fmt::format("LLVM -O{}", level));
    std::vector<double> xs;
    for (int i = 0; i < 16; ++i) xs.push_back(i * 0.25 - 1);
    Tensor x = Tensor::from_doubles(DType::f32, {16}, xs), w(DType::u32, {2}), y(DType::f32, {16}), h(DType::f16, {16}),
           s(DType::f32, {9});
    std::memcpy(w.data(), words, sizeof words);
    const JitModule jit(testing::for_this_host(m), JitOptions{level});
    std::vector<void*> buffers = {x.data(), w.data(), y.data(), h.data(), s.data()};
    const int64_t no_dims = 0;
    jit.kernel("f")(buffers.data(), &no_dims);
    for (int i = 0; i < 16; ++i) {
      const float code = static_cast<float>(static_cast<int>((words[i / 8] >> (4 * (i % 8))) & 15u) - 7);
      const float want_y = static_cast<float>(xs[i]) * 2.0F + code;
      EXPECT_EQ(y.get(i), want_y) << i;
      const float chosen = xs[i] < 3.0 ? static_cast<float>(xs[i]) / 3.0F : want_y;
      EXPECT_EQ(h.get(i), Tensor::from_doubles(DType::f16, {1}, {chosen}).get(0)) << i;
    }
    for (int i = 0; i < 9; ++i) EXPECT_EQ(s.get(i), 1.5 * i) << "S[i] = S[i - 1] + 1.5 in order, at " << i;
  }
}

}  // namespace
}  // namespace difftest::codegen
