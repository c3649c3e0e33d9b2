// out[m, n] = A[m, k] * B[k, n] (A, B optionally transposed in memory), computed as the
// reference's mode and the accumulator dtype say (see linalg.cc). Shared with attention and
// conv, whose inner products are matrix products too.
#pragma once

#include "reference/kernel.h"

namespace difftest::reference {

void gemm(const KernelContext& c, DType acc, bool ta, bool tb, int64_t m, int64_t n, int64_t k, const double* a,
          const double* b, double* out);

}  // namespace difftest::reference
