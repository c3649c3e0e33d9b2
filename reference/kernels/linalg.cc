// Reference matmul and linear, from compiler/ops/linalg.cc, on OpenBLAS:
//   F64 mode, or acc=f64      cblas_dgemm on the exact operand values
//   Native mode with acc=f32  cblas_sgemm (f16/bf16 operands are exact in f32)
//   Native mode, narrow acc   a sequential loop rounding to the accumulator after every
//                             product and sum (f16 accumulating in f16, as declared)
// A perturbed evaluation (an ensemble member) sums the products in its SumOrder: an f32
// accumulator sequentially (in index order, reversed or permuted) or in sgemm's blocks; a
// fused member contracts each product with its sum (FMA), as a contracting compiler does.
// OpenBLAS runs single-threaded here so results do not depend on the machine's core count.
#include <cblas.h>

#include <cmath>
#include <mutex>

#include "reference/kernel.h"
#include "reference/kernels/gemm.h"

namespace difftest::reference {

namespace {

// A and B as row-major m x k and k x n with the reduced index in the order `perm`.
void permuted_operands(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const double* a, const double* b,
                       const std::vector<int64_t>& perm, std::vector<float>& pa, std::vector<float>& pb) {
  pa.resize(static_cast<size_t>(m * k));
  pb.resize(static_cast<size_t>(k * n));
  for (int64_t p = 0; p < k; ++p) {
    const int64_t q = perm[static_cast<size_t>(p)];
    for (int64_t i = 0; i < m; ++i)
      pa[static_cast<size_t>(i * k + p)] = static_cast<float>(ta ? a[q * m + i] : a[i * k + q]);
    for (int64_t j = 0; j < n; ++j)
      pb[static_cast<size_t>(p * n + j)] = static_cast<float>(tb ? b[j * k + q] : b[q * n + j]);
  }
}

// row[j] += x * b[j] for j < n with one rounding per step. The FMA instruction where the host
// has it (every AVX2 host does); std::fma is exact everywhere, only slower.
__attribute__((target("fma"))) void fused_row_update_fma(float* row, float x, const float* b, int64_t n) {
  for (int64_t j = 0; j < n; ++j) row[j] = std::fma(x, b[j], row[j]);
}

void fused_row_update(float* row, float x, const float* b, int64_t n) {
  static const bool has_fma = __builtin_cpu_supports("fma");
  if (has_fma) return fused_row_update_fma(row, x, b, n);
  for (int64_t j = 0; j < n; ++j) row[j] = std::fma(x, b[j], row[j]);
}

}  // namespace

void gemm(const KernelContext& c, DType acc, bool ta, bool tb, int64_t m, int64_t n, int64_t k, const double* a,
          const double* b, double* out) {
  static std::once_flag single_thread;
  std::call_once(single_thread, [] { openblas_set_num_threads(1); });
  const auto lda = static_cast<int>(ta ? m : k), ldb = static_cast<int>(tb ? k : n);
  const auto tra = ta ? CblasTrans : CblasNoTrans, trb = tb ? CblasTrans : CblasNoTrans;
  const auto M = static_cast<int>(m), N = static_cast<int>(n), K = static_cast<int>(k);
  if (c.mode == Mode::F64 || acc == DType::f64) {
    cblas_dgemm(CblasRowMajor, tra, trb, M, N, K, 1.0, a, lda, b, ldb, 0.0, out, N);
    return;
  }
  // An ensemble member sums the K products in its order.
  std::vector<int64_t> perm;
  if (c.perturbation != nullptr) perm = c.perturbation->summation_order(k);
  if (acc == DType::f32) {
    std::vector<float> fa, fb, fc(static_cast<size_t>(m * n));
    if (perm.empty() || c.perturbation->sum_order() == SumOrder::Blocked) {
      fa.assign(a, a + m * k);
      fb.assign(b, b + k * n);
      cblas_sgemm(CblasRowMajor, tra, trb, M, N, K, 1.0f, fa.data(), lda, fb.data(), ldb, 0.0f, fc.data(), N);
    } else {
      // Sequentially, each product and sum rounded to nearest, which is what a plain loop
      // compiles to: its error (about u sqrt(sum of squared partial sums)) is several times a
      // blocked sgemm's, and an ensemble of sgemm calls missed it (a K = 64 dot product 10 ulps
      // off on the clean compiler). The loop runs across a row of results, so it vectorizes.
      permuted_operands(ta, tb, m, n, k, a, b, perm, fa, fb);
      const bool fused = c.perturbation->fused();
      for (int64_t i = 0; i < m; ++i) {
        float* row = fc.data() + i * n;
        for (int64_t p = 0; p < k; ++p) {
          const float x = fa[static_cast<size_t>(i * k + p)];
          const float* b_row = fb.data() + p * n;
          if (fused) {
            fused_row_update(row, x, b_row, n);
          } else {
            for (int64_t j = 0; j < n; ++j) row[j] += x * b_row[j];
          }
        }
      }
    }
    for (size_t i = 0; i < fc.size(); ++i) {
      out[i] = c.perturbation != nullptr ? c.perturbation->jitter(fc[i], DType::f32) : fc[i];
    }
    return;
  }
  const Rounder rd = c.rounder(acc);
  const bool fused = c.perturbation != nullptr && c.perturbation->fused();
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t t = 0; t < k; ++t) {
        const int64_t p = perm.empty() ? t : perm[static_cast<size_t>(t)];
        const double x = ta ? a[p * m + i] : a[i * k + p];
        const double y = tb ? b[j * k + p] : b[p * n + j];
        s = fused ? rd(s + x * y) : rd(s + rd(x * y));  // x * y of f32 or narrower operands is exact in f64
      }
      out[i * n + j] = s;
    }
  }
}

namespace {

std::vector<Tensor> matmul(const KernelContext& c) {
  const Tensor &a = c.arg(0), &b = c.arg(1);
  const bool ta = c.attrs().get_bool("transpose_a"), tb = c.attrs().get_bool("transpose_b");
  const auto& as = a.shape();
  const auto& bs = b.shape();
  const int64_t m = ta ? as[as.size() - 1] : as[as.size() - 2];
  const int64_t k = ta ? as[as.size() - 2] : as[as.size() - 1];
  const int64_t n = tb ? bs[bs.size() - 2] : bs[bs.size() - 1];
  DT_CHECK(k == (tb ? bs[bs.size() - 1] : bs[bs.size() - 2]), "matmul K mismatch");
  const std::vector<int64_t> a_batch(as.begin(), as.end() - 2), b_batch(bs.begin(), bs.end() - 2);
  std::vector<int64_t> batch = broadcast_shape(a_batch, b_batch);
  const auto ia = broadcast_index(a_batch, batch), ib = broadcast_index(b_batch, batch);
  const std::vector<double> x = a.to_doubles(), y = b.to_doubles();
  std::vector<double> out(ia.size() * static_cast<size_t>(m * n));
  const DType acc = c.acc(c.declared());
  for (size_t t = 0; t < ia.size(); ++t) {
    gemm(c, acc, ta, tb, m, n, k, x.data() + ia[t] * m * k, y.data() + ib[t] * k * n,
         out.data() + static_cast<int64_t>(t) * m * n);
  }
  batch.push_back(m);
  batch.push_back(n);
  return {c.floats(0, batch, out)};
}

std::vector<Tensor> linear(const KernelContext& c) {
  const Tensor &x = c.arg(0), &w = c.arg(1);
  const int64_t k = x.shape().back(), n = w.shape()[0];
  const int64_t rows = x.numel() / k;
  const std::vector<double> xv = x.to_doubles(), wv = w.to_doubles();
  std::vector<double> out(static_cast<size_t>(rows * n));
  const DType acc = c.acc(c.declared());
  gemm(c, acc, false, true, rows, n, k, xv.data(), wv.data(), out.data());
  if (c.has_arg(2)) {
    const std::vector<double> bias = c.arg(2).to_doubles();
    const Rounder rd = c.rounder(acc);
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t j = 0; j < n; ++j) out[static_cast<size_t>(r * n + j)] = rd(out[static_cast<size_t>(r * n + j)] + bias[static_cast<size_t>(j)]);
    }
  }
  std::vector<int64_t> shape(x.shape().begin(), x.shape().end() - 1);
  shape.push_back(n);
  return {c.floats(0, shape, out)};
}

}  // namespace

void register_linalg_kernels(KernelTable& t) {
  t.add("matmul", matmul);
  t.add("linear", linear);
}

}  // namespace difftest::reference
