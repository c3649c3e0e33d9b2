#include "reference/kernel.h"

#include <fmt/format.h>

#include <algorithm>

#include "compiler/ir/diagnostics.h"

namespace difftest::reference {

DType KernelContext::acc(DType operand) const {
  const AttrValue& v = attrs().get("acc");
  if (std::holds_alternative<DType>(v)) return std::get<DType>(v);
  return operand;
}

int64_t KernelContext::eval(const sym::Expr& e) const { return sym::eval(e, env); }

const KernelTable& KernelTable::get() {
  static const KernelTable* table = [] {
    auto* t = new KernelTable();
    register_elementwise_kernels(*t);
    register_reduction_kernels(*t);
    register_linalg_kernels(*t);
    register_normalization_kernels(*t);
    register_shape_kernels(*t);
    register_creation_kernels(*t);
    register_attention_kernels(*t);
    register_quantization_kernels(*t);
    register_conv_kernels(*t);
    return t;
  }();
  return *table;
}

const Kernel* KernelTable::find(const std::string& op) const {
  for (const auto& [name, k] : kernels_) {
    if (name == op) return &k;
  }
  return nullptr;
}

void KernelTable::add(const std::string& op, Kernel k) {
  DT_CHECK(find(op) == nullptr, fmt::format("reference kernel '{}' registered twice", op));
  kernels_.emplace_back(op, k);
}

std::vector<std::string> KernelTable::names() const {
  std::vector<std::string> out;
  for (const auto& [name, k] : kernels_) out.push_back(name);
  return out;
}

double rounded_sum(const double* x, int64_t n, int64_t stride, const Rounder& r) {
  double s = 0;
  for (int64_t i = 0; i < n; ++i) s = r(s + x[i * stride]);
  return s;
}

}  // namespace difftest::reference
