// Sensitivity of the oracle: the numeric faults of the catalog (TOLERANCE.md, "Checks the
// tolerance module itself needs") must be detected, on programs where they matter, in both
// the deterministic and the probabilistic bound mode — and the same programs computed
// correctly must pass.
//
// Every faulty candidate is computed here, independently of the reference interpreter, by a
// function with a switch that injects the fault. The same function with the switch off must
// pass too, so a detection is due to the fault and not to some other difference between this
// file's arithmetic and the reference. The reference in native mode is the second correct
// implementation.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "compiler/ir/parser.h"
#include "compiler/ir/verifier.h"
#include "compiler/tensor/float_format.h"
#include "reference/inputs.h"
#include "reference/reference.h"
#include "tolerance/compare.h"

namespace difftest {
namespace {

using tolerance::BoundMode;
using tolerance::Comparison;

constexpr BoundMode kModes[] = {BoundMode::Deterministic, BoundMode::Probabilistic};

// A program with its binding and generated inputs.
struct Subject {
  Program program;
  sym::Env env;
  std::map<std::string, Tensor> inputs;

  const Tensor& input(const std::string& name) const { return inputs.at(name); }
};

Subject subject_of(const Program& p, uint64_t seed = 1) {
  verify(p);
  const sym::Env env = reference::resolve_binding(p, {}, nullptr);
  return Subject{p, env, reference::generate_inputs(p, env, seed)};
}

Subject subject(const std::string& text, uint64_t seed = 1) {
  return subject_of(parse_program(text, "sensitivity.ir"), seed);
}

int64_t failing(const Comparison& c) {
  int64_t n = 0;
  for (const auto& o : c.outputs) n += o.failing;
  return n;
}

int64_t compared(const Comparison& c) {
  int64_t n = 0;
  for (const auto& o : c.outputs) n += o.compared;
  return n;
}

// Judges the native reference, a correct and a faulty candidate against one bound per mode:
// the first two must pass with no failing element in every mode, the fault must fail somewhere
// in each mode of `must_detect` (and is reported in all).
void expect_fault_detected(const std::string& what, const Subject& s, const std::vector<Tensor>& correct,
                           const std::vector<Tensor>& faulty,
                           const std::vector<BoundMode>& must_detect = {std::begin(kModes), std::end(kModes)}) {
  const auto native = reference::evaluate(s.program, s.env, s.inputs, reference::Mode::Native).outputs;
  for (BoundMode mode : kModes) {
    SCOPED_TRACE(bound_mode_name(mode));
    tolerance::Options opt;
    opt.mode = mode;
    const auto bp = tolerance::bound_program(s.program, s.env, s.inputs, opt);
    ASSERT_FALSE(bp.invalid) << bp.invalid_reason;
    const Comparison by_native = tolerance::compare_outputs(s.program, bp, native, opt);
    const Comparison by_correct = tolerance::compare_outputs(s.program, bp, correct, opt);
    const Comparison by_fault = tolerance::compare_outputs(s.program, bp, faulty, opt);
    EXPECT_GT(compared(by_fault), 0) << "everything is uncertain: nothing was compared";
    EXPECT_EQ(failing(by_native), 0) << "the native reference fails, worst ratio " << by_native.worst_ratio();
    EXPECT_EQ(failing(by_correct), 0) << "the fault-free candidate fails, worst ratio " << by_correct.worst_ratio();
    if (std::find(must_detect.begin(), must_detect.end(), mode) != must_detect.end()) {
      EXPECT_GT(failing(by_fault), 0) << "the fault is not detected, worst ratio " << by_fault.worst_ratio();
    }
    fmt::print("[{}, {}] correct: worst ratio native {:.3g}, own {:.3g}; fault: {} of {} elements failing, "
               "worst ratio {:.3g}\n",
               what, bound_mode_name(mode), by_native.worst_ratio(), by_correct.worst_ratio(), failing(by_fault),
               compared(by_fault), by_fault.worst_ratio());
  }
}

double round_to(double v, DType t) { return round_to_float_dtype(v, t); }

// ---- 1 and 2: matrix products --------------------------------------------------------------

// y[i, j] = sum_k a[i, k] b[k, j] for a: [M, K], b: [K, N], summed sequentially with every
// product and partial sum rounded to `acc`, the term k = skip left out (-1: none), the result
// rounded to `out`.
Tensor sequential_matmul(const Tensor& a, const Tensor& b, DType acc, DType out, int64_t skip = -1) {
  const int64_t M = a.shape()[0], K = a.shape()[1], N = b.shape()[1];
  std::vector<double> y(static_cast<size_t>(M * N));
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < N; ++j) {
      double sum = 0;
      for (int64_t k = 0; k < K; ++k) {
        if (k == skip) continue;
        sum = round_to(sum + round_to(a.get(i * K + k) * b.get(k * N + j), acc), acc);
      }
      y[static_cast<size_t>(i * N + j)] = sum;
    }
  }
  return Tensor::from_doubles(out, {M, N}, y);
}

class SensitivityDroppedTerm : public ::testing::TestWithParam<int64_t> {};

TEST_P(SensitivityDroppedTerm, MatmulMissingTheLastKTermIsDetected) {
  const int64_t K = GetParam();
  const Subject s = subject(fmt::format("program @dropped_term() {{\n"
                                        "  %a: f32[8, {0}] = param\n"
                                        "  %b: f32[{0}, 16] = param\n"
                                        "  %y: f32[8, 16] = matmul(%a, %b)\n"
                                        "  return %y\n}}\n",
                                        K));
  const Tensor &a = s.input("a"), &b = s.input("b");
  expect_fault_detected(fmt::format("matmul without k = K - 1, K = {}", K), s,
                        {sequential_matmul(a, b, DType::f32, DType::f32)},
                        {sequential_matmul(a, b, DType::f32, DType::f32, K - 1)});
}

INSTANTIATE_TEST_SUITE_P(Sensitivity, SensitivityDroppedTerm, ::testing::Values(64, 4096));

// The magnitudes of generated values, for operands whose products all have one sign (sums of
// squares, probabilities times nonnegative values): partial sums grow, and an f16 accumulator
// stalls (its spacing reaches 2 above 2048, so terms below 1 are rounded away).
Tensor magnitudes(const Tensor& t) {
  std::vector<double> v = t.to_doubles();
  for (double& x : v) x = std::fabs(x);
  return Tensor::from_doubles(t.dtype(), t.shape(), v);
}

const char* const kF16AccumulationProgram =
    "program @f16_accumulation() {\n"
    "  %a: f16[4, 4096] = param\n"
    "  %b: f16[4096, 32] = param\n"
    "  %y: f16[4, 32] = matmul(%a, %b, acc=f32)\n"
    "  return %y\n}\n";

TEST(SensitivityAccumulator, F16AccumulationWhereF32IsDeclaredIsDetectedOnZeroMeanData) {
  const Subject s = subject(kF16AccumulationProgram);
  const Tensor &a = s.input("a"), &b = s.input("b");
  // With products of random sign the f16 partial sums random-walk to ~sqrt(K) and the fault's
  // error is a random walk of their roundings, ~u16 sqrt(K) |s|. The deterministic bound
  // K u32 sum|a||b| is about as large at K = 4096, so only the probabilistic bound
  // (6 sqrt(K) u32 sum|a||b|) is required to catch it here; the deterministic detection rate
  // is printed.
  expect_fault_detected("f16 accumulation, acc=f32 declared, K = 4096, zero-mean products", s,
                        {sequential_matmul(a, b, DType::f32, DType::f16)},
                        {sequential_matmul(a, b, DType::f16, DType::f16)}, {BoundMode::Probabilistic});
}

TEST(SensitivityAccumulator, F16AccumulationWhereF32IsDeclaredIsDetectedOnSameSignProducts) {
  Subject s = subject(kF16AccumulationProgram);
  for (const char* name : {"a", "b"}) s.inputs[name] = magnitudes(s.input(name));
  const Tensor &a = s.input("a"), &b = s.input("b");
  expect_fault_detected("f16 accumulation, acc=f32 declared, K = 4096, nonnegative products", s,
                        {sequential_matmul(a, b, DType::f32, DType::f16)},
                        {sequential_matmul(a, b, DType::f16, DType::f16)});
}

// ---- 3: q4 zero points ----------------------------------------------------------------------

// MLC q4f16_1 / q4f32_1: row r holds K / 8 u32 words; element i is nibble i % 8 (bits
// [4 (i % 8), 4 (i % 8) + 4)) of word i / 8 and decodes to (q - zero_point) * scale[r, i / group].
Tensor decode_mlc(const Tensor& packed, const Tensor& scales, int64_t group, int64_t zero_point, DType out) {
  const int64_t rows = packed.shape()[0], words = packed.shape()[1], groups = scales.shape()[1];
  const int64_t K = words * 8;
  std::vector<double> w(static_cast<size_t>(rows * K));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t i = 0; i < K; ++i) {
      const int64_t q = (packed.get_int(r * words + i / 8) >> (4 * (i % 8))) & 0xF;
      w[static_cast<size_t>(r * K + i)] = static_cast<double>(q - zero_point) * scales.get(r * groups + i / group);
    }
  }
  return Tensor::from_doubles(out, {rows, K}, w);
}

// GGML q4_0: blocks of 32 elements in 16 bytes; byte j of a block holds element j in its low
// nibble and element j + 16 in its high nibble; (q - zero_point) * scale[r, block].
Tensor decode_q4_0(const Tensor& packed, const Tensor& scales, int64_t zero_point, DType out) {
  const int64_t rows = packed.shape()[0], bytes = packed.shape()[1], blocks = scales.shape()[1];
  const int64_t K = blocks * 32;
  std::vector<double> w(static_cast<size_t>(rows * K));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t i = 0; i < K; ++i) {
      const int64_t block = i / 32, j = i % 32;
      const int64_t byte = packed.get_int(r * bytes + block * 16 + j % 16);
      const int64_t q = j < 16 ? (byte & 0xF) : (byte >> 4);
      w[static_cast<size_t>(r * K + i)] = static_cast<double>(q - zero_point) * scales.get(r * blocks + block);
    }
  }
  return Tensor::from_doubles(out, {rows, K}, w);
}

// y[m, n] = sum_k x[m, k] w[n, k] (w in nn.Linear layout) summed in double, rounded to `out`:
// more accurate than any declared accumulator, so a correct implementation.
Tensor matmul_transposed_b(const Tensor& x, const Tensor& w, DType out) {
  const int64_t M = x.shape()[0], K = x.shape()[1], N = w.shape()[0];
  std::vector<double> y(static_cast<size_t>(M * N));
  for (int64_t m = 0; m < M; ++m) {
    for (int64_t n = 0; n < N; ++n) {
      double sum = 0;
      for (int64_t k = 0; k < K; ++k) sum += x.get(m * K + k) * w.get(n * K + k);
      y[static_cast<size_t>(m * N + n)] = sum;
    }
  }
  return Tensor::from_doubles(out, {M, N}, y);
}

TEST(SensitivityZeroPoint, Q4f16_1ZeroPointEightInsteadOfSevenIsDetected) {
  // The corpus GEMV that FuseDequantizeMatmul targets: the weights are an intermediate, so the
  // fault is visible only through the matmul output.
  const Subject s = subject_of(parse_program_file(DIFFTEST_SOURCE_DIR "/corpus/q4f16_1_gemv.ir"));
  const Tensor &x = s.input("x"), &w = s.input("w"), &scales = s.input("s");
  ASSERT_EQ(s.program.outputs().size(), 1u);
  auto candidate = [&](int64_t zero_point) {
    return std::vector<Tensor>{matmul_transposed_b(x, decode_mlc(w, scales, 32, zero_point, DType::f16), DType::f16)};
  };
  expect_fault_detected("q4f16_1 zero point 8 instead of 7", s, candidate(7), candidate(8));
}

TEST(SensitivityZeroPoint, Q4f16_1ZeroPointOffByOneIsDetectedOnTheDequantizedWeights) {
  // Every weight moves by one scale step: the bound (one f16 rounding) must catch every element
  // whose scale is not zero.
  const Subject s = subject(
      "program @q4f16_1_weights() {\n"
      "  %w: u32[16, 8] = param\n"
      "  %s: f16[16, 2] = param\n"
      "  %wf: f16[16, 64] = dequantize(%w, %s, format=\"q4f16_1\", group=32)\n"
      "  return %wf\n}\n");
  const Tensor &w = s.input("w"), &scales = s.input("s");
  expect_fault_detected("q4f16_1 weights, zero point 8 instead of 7", s,
                        {decode_mlc(w, scales, 32, 7, DType::f16)}, {decode_mlc(w, scales, 32, 8, DType::f16)});
}

TEST(SensitivityZeroPoint, Q4_0ZeroPointSevenInsteadOfEightIsDetected) {
  const Subject s = subject(
      "program @q4_0_linear() {\n"
      "  %x: f32[2, 64] = param\n"
      "  %q: u8[16, 32] = param\n"
      "  %s: f16[16, 2] = param\n"
      "  %d: f32[16, 64] = dequantize(%q, %s, format=\"q4_0\", group=32)\n"
      "  %y: f32[2, 16] = linear(%x, %d)\n"
      "  return %y\n}\n");
  const Tensor &x = s.input("x"), &q = s.input("q"), &scales = s.input("s");
  auto candidate = [&](int64_t zero_point) {
    return std::vector<Tensor>{matmul_transposed_b(x, decode_q4_0(q, scales, zero_point, DType::f32), DType::f32)};
  };
  expect_fault_detected("q4_0 zero point 7 instead of 8", s, candidate(8), candidate(7));
}

// ---- 4: the sliding window ------------------------------------------------------------------

// Attention over q: [1, Sq, Hq, D], k, v: [1, Skv, Hkv, D] in double, query row i at position
// p = offset + i admitting keys j <= p with j > p - window - extra_keys (extra_keys = 1 is the
// off-by-one window), the result rounded to `out`.
Tensor windowed_attention(const Tensor& q, const Tensor& k, const Tensor& v, double scale, int64_t window,
                          int64_t offset, int64_t extra_keys, DType out) {
  const int64_t Sq = q.shape()[1], Hq = q.shape()[2], D = q.shape()[3];
  const int64_t Skv = k.shape()[1], Hkv = k.shape()[2];
  std::vector<double> o(static_cast<size_t>(Sq * Hq * D));
  for (int64_t h = 0; h < Hq; ++h) {
    const int64_t g = h / (Hq / Hkv);
    for (int64_t i = 0; i < Sq; ++i) {
      const int64_t p = offset + i;
      std::vector<int64_t> keys;
      std::vector<double> scores;
      for (int64_t j = 0; j < Skv; ++j) {
        if (j > p || j <= p - window - extra_keys) continue;
        double dot = 0;
        for (int64_t d = 0; d < D; ++d) dot += q.get((i * Hq + h) * D + d) * k.get((j * Hkv + g) * D + d);
        keys.push_back(j);
        scores.push_back(scale * dot);
      }
      double max = -INFINITY, total = 0;
      for (double sc : scores) max = std::max(max, sc);
      for (double& sc : scores) total += (sc = std::exp(sc - max));
      for (int64_t d = 0; d < D; ++d) {
        double acc = 0;
        for (size_t t = 0; t < keys.size(); ++t) acc += scores[t] / total * v.get((keys[t] * Hkv + g) * D + d);
        o[static_cast<size_t>((i * Hq + h) * D + d)] = acc;
      }
    }
  }
  return Tensor::from_doubles(out, {1, Sq, Hq, D}, o);
}

struct WindowCase {
  std::string dtype;  // of q, k, v and the result
  int64_t q_len, kv_len, window;
};

class SensitivityWindow : public ::testing::TestWithParam<WindowCase> {};

TEST_P(SensitivityWindow, SlidingWindowAdmittingOneKeyTooManyIsDetected) {
  const WindowCase& w = GetParam();
  // Rows at positions p >= window have a key p - window that the off-by-one admits; a decode
  // step (q_len 1) sits at the last position.
  ASSERT_GT(w.kv_len, w.window) << "the window must cut in for the fault to matter";
  const int64_t offset = w.kv_len - w.q_len;
  const std::string acc = w.dtype == "f32" ? "" : ", acc=f32";
  const Subject s = subject(fmt::format(
      "program @window() {{\n"
      "  %q: {0}[1, {1}, 4, 16] = param\n"
      "  %k: {0}[1, {2}, 2, 16] = param\n"
      "  %v: {0}[1, {2}, 2, 16] = param\n"
      "  %o: {0}[1, {1}, 4, 16] = attention(%q, %k, %v, scale=0.25, causal=true, window={3}, offset={4}{5})\n"
      "  return %o\n}}\n",
      w.dtype, w.q_len, w.kv_len, w.window, offset, acc));
  const DType out = *parse_dtype(w.dtype);
  const Tensor &q = s.input("q"), &k = s.input("k"), &v = s.input("v");
  expect_fault_detected(fmt::format("{} window {} off by one, q_len {}, kv_len {}", w.dtype, w.window, w.q_len,
                                    w.kv_len),
                        s, {windowed_attention(q, k, v, 0.25, w.window, offset, 0, out)},
                        {windowed_attention(q, k, v, 0.25, w.window, offset, 1, out)});
}

INSTANTIATE_TEST_SUITE_P(Sensitivity, SensitivityWindow,
                         ::testing::Values(WindowCase{"f32", 24, 24, 8},   // prefill
                                           WindowCase{"f16", 24, 24, 8},   // prefill, f16 with acc=f32
                                           WindowCase{"f32", 1, 40, 16},   // decode step against a cache
                                           WindowCase{"f16", 520, 520, 512}),  // Gemma-3 local window and length
                         [](const auto& info) {
                           return fmt::format("{}_q{}_kv{}_w{}", info.param.dtype, info.param.q_len,
                                              info.param.kv_len, info.param.window);
                         });

// GGML's code trunc(x * id + 8.5) contracted into an FMA rounds once: for a block whose largest
// weight is -1.875 (d = 0.234375, id = f32(1 / d) = 4.26666689), x = -1.0546875 gives
// x * id = -4.50000023, code 4 unfused and 3 fused. The clean compiler's O3 does fuse it
// (seed 1000536 of the clean campaign), so that code's byte is uncertain, while the byte of
// weights far from a boundary (0 and -1.875: codes 8 and 0 either way) is compared.
TEST(QuantizeRule, AGgmlCodeAnFmaWouldChangeIsUncertain) {
  const Program p = parse_program(
      "program @q() {\n"
      "  %w: bf16[1, 32] = param\n"
      "  %q: u8[1, 16], %s: f16[1, 1] = quantize(%w, format=\"q4_0\", group=32)\n"
      "  return %q\n}\n",
      "q.ir");
  verify(p);
  std::vector<double> w(32, 0.0);
  w[0] = -1.875;
  w[7] = -1.0546875;  // byte 7 holds elements 7 and 23
  std::map<std::string, Tensor> inputs{{"w", Tensor::from_doubles(DType::bf16, {1, 32}, w)}};
  tolerance::Options opt;
  opt.mode = tolerance::BoundMode::Probabilistic;
  const tolerance::BoundedProgram bp = tolerance::bound_program(p, {}, inputs, opt);
  const tolerance::Bounded& q = *bp.outputs[0];
  EXPECT_TRUE(q.uncertain[7]) << "x * id + 8.5 = 3.99999977 (fused) or 4 (unfused)";
  EXPECT_FALSE(q.uncertain[0]);
  EXPECT_EQ(q.uncertain_count(), 1u);
}

}  // namespace
}  // namespace difftest
