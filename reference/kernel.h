// What every reference kernel sees, and the helpers they share. Internal to reference/.
#pragma once

#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/ops/op_table.h"
#include "compiler/tensor/float_format.h"
#include "compiler/tensor/indexing.h"
#include "compiler/tensor/tensor.h"
#include "reference/perturbation.h"
#include "reference/reference.h"

namespace difftest::reference {

// Rounds to a dtype in Native mode (randomly in a perturbed evaluation); the identity in
// F64 mode (and for non-float dtypes).
struct Rounder {
  DType dtype = DType::f64;
  bool active = false;
  Perturbation* perturbation = nullptr;
  double operator()(double x) const {
    if (!active) return x;
    return perturbation != nullptr ? perturbation->round(x, dtype) : round_to_float_dtype(x, dtype);
  }
  // The rounding of a libm-grade function's value (exp, log, tanh ...), with its error.
  double function(double x) const {
    if (active && perturbation != nullptr) x = perturbation->function_error(x, dtype);
    return (*this)(x);
  }
};

struct KernelContext {
  const Binding& binding;
  std::vector<const Tensor*> args;
  const sym::Env& env;
  Mode mode;
  Perturbation* perturbation = nullptr;  // Native mode only: this evaluation is an ensemble member

  const Attrs& attrs() const { return binding.attrs(); }
  const Tensor& arg(size_t i) const { return *args.at(i); }
  bool has_arg(size_t i) const { return i < args.size(); }
  DType declared(size_t result = 0) const { return binding.results().at(result).type().dtype; }
  DType arg_declared(size_t i) const { return binding.args().at(i).type().dtype; }
  DType storage(DType t) const { return storage_dtype(t, mode); }
  // The op's `acc` attribute, or the operand dtype when absent.
  DType acc(DType operand) const;
  Rounder rounder(DType t) const { return Rounder{t, mode == Mode::Native && is_float(t), perturbation}; }
  int64_t eval(const sym::Expr& e) const;

  // A result tensor of the declared dtype (stored per the mode) from doubles / integers. The
  // storage rounds to nearest; a perturbed evaluation rounds randomly first.
  Tensor floats(size_t result, std::vector<int64_t> shape, const std::vector<double>& v) const;
  Tensor ints(size_t result, std::vector<int64_t> shape, const std::vector<int64_t>& v) const {
    return Tensor::from_ints(declared(result), std::move(shape), v);
  }
};

using Kernel = std::vector<Tensor> (*)(const KernelContext&);

// The reference kernel of every op, registered per family (compiler/ops/op_table.h).
using KernelTable = OpTable<Kernel>;
const KernelTable& kernels();

void register_elementwise_kernels(KernelTable& t);
void register_reduction_kernels(KernelTable& t);
void register_linalg_kernels(KernelTable& t);
void register_normalization_kernels(KernelTable& t);
void register_shape_kernels(KernelTable& t);
void register_creation_kernels(KernelTable& t);
void register_attention_kernels(KernelTable& t);
void register_quantization_kernels(KernelTable& t);
void register_conv_kernels(KernelTable& t);

// Sequential sum with a rounding after every addition (exact in F64 mode up to double).
double rounded_sum(const double* x, int64_t n, int64_t stride, const Rounder& r);

}  // namespace difftest::reference
