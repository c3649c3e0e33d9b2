// The JIT's LLVM IR passes (codegen/llvm_passes.h) on loop IR text: what each level does to the
// emitted IR, read from optimized_llvm_text, and that the results stay the reference's.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/codegen/codegen.h"
#include "compiler/codegen/jit.h"
#include "compiler/loop/parser.h"
#include "compiler/tensor/tensor.h"
#include "tests/support/jit_util.h"

namespace difftest::codegen {
namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

std::string optimized(const std::string& loop_text, int level) {
  const loop::Module m = loop::parse_module(loop_text, "llvm_passes.loop");
  return optimized_llvm_text(m, JitOptions{level, false}, "t_");
}

// q4 unpacking indexes with floor divisions and modulos of a loop index; an index counting up
// from 0 is never negative, so each is a shift or a mask once LLVM knows it.
const char* kUnpack = R"(func @unpack(W: u32[4], Y: i32[32]) dims() {
  for (i, 0, 32) serial {
    Y[i] = (cast<i32>(((W[(i // 8)] >> cast<u32>((4 * (i % 8)))) & 15:u32)) - 7:i32)
  }
}
)";

TEST(LlvmPasses, FloorDivisionsOfACountingIndexBecomeShifts) {
  const std::string emitted = emit_llvm_text(loop::parse_module(kUnpack, "unpack.loop"), "t_");
  ASSERT_GT(count(emitted, "sdiv") + count(emitted, "srem"), 0u) << emitted;
  EXPECT_GT(count(optimized(kUnpack, 0), "sdiv"), 0u) << "level 0 runs no IR pass";
  for (int level : {1, 2, 3}) {
    const std::string ir = optimized(kUnpack, level);
    EXPECT_EQ(count(ir, "sdiv") + count(ir, "srem"), 0u) << "level " << level << ":\n" << ir;
    EXPECT_GT(count(ir, "lshr"), 0u) << ir;
  }
  std::vector<uint32_t> words = {0x76543210u, 0xFEDCBA98u, 0x01234567u, 0x89ABCDEFu};
  Tensor w(DType::u32, {4}), y(DType::i32, {32});
  for (int i = 0; i < 4; ++i) w.set(i, words[i]);
  for (int level : {0, 1, 3}) {
    testing::run_kernel(kUnpack, "unpack", {&w, &y}, {}, level);
    for (int i = 0; i < 32; ++i) {
      ASSERT_EQ(y.get(i), static_cast<double>(static_cast<int>((words[i / 8] >> (4 * (i % 8))) & 15) - 7))
          << "level " << level << " element " << i;
    }
  }
}

// A register tile: accumulators in a local buffer, indexed with constants by the unrolled copies.
const char* kTile = R"(func @tile(A: f32[4, 8], B: f32[8, 16], C: f32[4, 16]) dims() {
  alloc acc: f32[64] local {
    for (r, 0, 4) unrolled {
      for (j, 0, 16) vectorized {
        acc[((16 * r) + j)] = 0.0:f32
      }
    }
    for (k, 0, 8) serial {
      for (r, 0, 4) unrolled {
        for (j, 0, 16) vectorized {
          acc[((16 * r) + j)] = (acc[((16 * r) + j)] + (A[((8 * r) + k)] * B[((16 * k) + j)]))
        }
      }
    }
    for (r, 0, 4) unrolled {
      for (j, 0, 16) vectorized {
        C[((16 * r) + j)] = acc[((16 * r) + j)]
      }
    }
  }
}
)";

TEST(LlvmPasses, ARegisterTilesAccumulatorsLiveInRegistersFromLevelOne) {
  EXPECT_EQ(count(optimized(kTile, 0), "alloca"), 1u) << optimized(kTile, 0);
  for (int level : {1, 2, 3}) {
    const std::string ir = optimized(kTile, level);
    EXPECT_EQ(count(ir, "alloca"), 0u) << "level " << level << ":\n" << ir;
    EXPECT_EQ(count(ir, "llvm.loop.unroll.full"), 0u) << "every unrolled loop is unrolled:\n" << ir;
  }
  Tensor a(DType::f32, {4, 8}), b(DType::f32, {8, 16}), c(DType::f32, {4, 16});
  for (int i = 0; i < 32; ++i) a.set(i, (i % 5) - 2);
  for (int i = 0; i < 128; ++i) b.set(i, (i % 7) * 0.5);
  for (int level : {0, 2, 3}) {
    testing::run_kernel(kTile, "tile", {&a, &b, &c}, {}, level);
    for (int r = 0; r < 4; ++r) {
      for (int j = 0; j < 16; ++j) {
        double sum = 0;  // small integers and halves: exact in f32 in any order
        for (int k = 0; k < 8; ++k) sum += a.get(8 * r + k) * b.get(16 * k + j);
        ASSERT_EQ(c.get(16 * r + j), sum) << "level " << level << " C[" << r << "," << j << "]";
      }
    }
  }
}

TEST(LlvmPasses, OnlyTheLoopsTheScheduleMarksAreVectorized) {
  // 80 lanes are more than codegen's own vector form takes (vector_loop.h): LLVM vectorizes the
  // marked loop; the serial one, which LLVM could vectorize as well, stays scalar.
  const std::string marked = R"(func @marked(X: f32[80], Y: f32[80]) dims() {
  for (i, 0, 80) vectorized {
    Y[i] = (X[i] * 3.0:f32)
  }
}
)";
  const std::string serial = R"(func @serial(X: f32[80], Y: f32[80]) dims() {
  for (i, 0, 80) serial {
    Y[i] = (X[i] * 3.0:f32)
  }
}
)";
  for (int level : {1, 2, 3}) {
    EXPECT_GT(count(optimized(marked, level), "fmul <8 x float>"), 0u) << optimized(marked, level);
    EXPECT_EQ(count(optimized(serial, level), "x float>"), 0u) << optimized(serial, level);
  }
}

}  // namespace
}  // namespace difftest::codegen
