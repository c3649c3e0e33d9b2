// Properties of the reference that hold for every input (RapidCheck).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <fmt/format.h>

#include <cmath>

#include "tests/support/eval_util.h"

namespace difftest {
namespace {

using reference::Mode;
using testing::eval_ir;
using testing::tensor;

std::vector<double> ints_in(int64_t n, int lo, int hi) {
  return *rc::gen::container<std::vector<double>>(static_cast<size_t>(n), rc::gen::map(rc::gen::inRange(lo, hi + 1), [](int v) {
    return static_cast<double>(v);
  }));
}

RC_GTEST_PROP(ReferenceProperty, SoftmaxRowsSumToOneWithinTheirBound, ()) {
  const int64_t rows = *rc::gen::inRange<int64_t>(1, 4), len = *rc::gen::inRange<int64_t>(1, 64);
  std::vector<double> x = ints_in(rows * len, -800, 800);
  for (auto& v : x) v /= 80;  // values in [-10, 10]
  const Mode mode = *rc::gen::element(Mode::F64, Mode::Native);
  const auto r = eval_ir("", fmt::format("  %x: f32[{0}, {1}] = param\n  %r: f32[{0}, {1}] = softmax(%x, acc=f32)", rows, len),
                         mode, {}, {{"x", tensor(DType::f32, {rows, len}, x)}});
  // Sequential f32 sums of len terms err by at most len * 2^-24 relative; each weight carries
  // two more roundings (exp, division) and the result one more.
  const double u = mode == Mode::F64 ? 0x1p-52 : 0x1p-24;
  for (int64_t i = 0; i < rows; ++i) {
    double s = 0;
    for (int64_t j = 0; j < len; ++j) s += r.values[static_cast<size_t>(i * len + j)];
    RC_ASSERT(std::fabs(s - 1) <= (static_cast<double>(len) + 4) * u * 2);
  }
}

RC_GTEST_PROP(ReferenceProperty, RmsNormIsScaleInvariant, ()) {
  const int64_t len = *rc::gen::inRange<int64_t>(1, 32);
  std::vector<double> x = ints_in(len, -100, 100);
  x[0] = 7;  // not all zero
  const double c = *rc::gen::inRange<int>(1, 1000) / 16.0;
  std::vector<double> cx = x;
  for (auto& v : cx) v *= c;
  const std::string body = fmt::format(
      "  %x: f64[{0}] = param\n  %w: f64[{0}] = param\n  %r: f64[{0}] = rms_norm(%x, %w, eps=0)", len);
  const Tensor w = tensor(DType::f64, {len}, ints_in(len, -3, 3));
  const auto a = eval_ir("", body, Mode::F64, {}, {{"x", tensor(DType::f64, {len}, x)}, {"w", w}});
  const auto b = eval_ir("", body, Mode::F64, {}, {{"x", tensor(DType::f64, {len}, cx)}, {"w", w}});
  for (size_t i = 0; i < a.values.size(); ++i) RC_ASSERT(std::fabs(a.values[i] - b.values[i]) <= 1e-13 * (1 + std::fabs(a.values[i])));
}

RC_GTEST_PROP(ReferenceProperty, MatmulEqualsANaiveTripleLoopOnIntegers, ()) {
  const int64_t m = *rc::gen::inRange<int64_t>(1, 9), n = *rc::gen::inRange<int64_t>(1, 9),
                k = *rc::gen::inRange<int64_t>(1, 9);
  const bool ta = *rc::gen::arbitrary<bool>(), tb = *rc::gen::arbitrary<bool>();
  const std::vector<double> a = ints_in(m * k, -8, 8), b = ints_in(k * n, -8, 8);
  const auto r = eval_ir(
      "",
      fmt::format("  %a: f64[{}, {}] = param\n  %b: f64[{}, {}] = param\n"
                  "  %r: f64[{}, {}] = matmul(%a, %b, transpose_a={}, transpose_b={})",
                  ta ? k : m, ta ? m : k, tb ? n : k, tb ? k : n, m, n, ta, tb),
      Mode::F64, {}, {{"a", tensor(DType::f64, {ta ? k : m, ta ? m : k}, a)}, {"b", tensor(DType::f64, {tb ? n : k, tb ? k : n}, b)}});
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t p = 0; p < k; ++p) {
        s += a[static_cast<size_t>(ta ? p * m + i : i * k + p)] * b[static_cast<size_t>(tb ? j * k + p : p * n + j)];
      }
      RC_ASSERT(r.values[static_cast<size_t>(i * n + j)] == s);
    }
  }
}

// On small integer values every float operation below is exact in every dtype, so the two
// modes must agree bit for bit.
RC_GTEST_PROP(ReferenceProperty, NativeAndF64AgreeOnSmallIntegers, ()) {
  const DType dt = *rc::gen::element(DType::f32, DType::f16, DType::bf16);
  const std::string d = dtype_name(dt);
  const int64_t n = *rc::gen::inRange<int64_t>(1, 4), k = *rc::gen::inRange<int64_t>(1, 4);
  const std::string body = fmt::format(
      "  %a: {0}[{1}, {2}] = param\n  %b: {0}[{2}, {1}] = param\n  %c: {0}[{1}] = param\n"
      "  %m: {0}[{1}, {1}] = matmul(%a, %b)\n  %s: {0}[{1}, {1}] = add(%m, %c)\n  %t: {0}[{1}, {1}] = mul(%s, %c)\n"
      "  %u: {0}[{1}] = sum(%t, axes=[0])\n  %v: {0}[{1}] = maximum(%u, %c)\n  %w: {0}[{3}] = concat(%v, %v)\n"
      "  %x: {0}[2, {1}] = reshape(%w, shape=[2, {1}])\n  %r: {0}[2, {1}] = sub(%x, %x)",
      d, n, k, 2 * n);
  std::map<std::string, Tensor> in = {{"a", tensor(dt, {n, k}, ints_in(n * k, -2, 2))},
                                      {"b", tensor(dt, {k, n}, ints_in(k * n, -2, 2))},
                                      {"c", tensor(dt, {n}, ints_in(n, -2, 2))}};
  const Program p = testing::program_of("", body);
  const auto f64 = reference::evaluate(p, {}, in, Mode::F64);
  const auto native = reference::evaluate(p, {}, in, Mode::Native);
  for (const auto& b : p.bindings()) {
    for (const auto& v : b.results()) {
      RC_ASSERT(f64.values.at(v.get()).to_doubles() == native.values.at(v.get()).to_doubles());
    }
  }
}

}  // namespace
}  // namespace difftest
