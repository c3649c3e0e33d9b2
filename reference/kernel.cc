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

int normalize_axis(int64_t axis, int rank) {
  DT_CHECK(axis >= -rank && axis < std::max(rank, 1), fmt::format("axis {} out of range for rank {}", axis, rank));
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

std::vector<int64_t> broadcast_shape(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    const int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    DT_CHECK(da == db || da == 1 || db == 1,
             fmt::format("shapes {} and {} do not broadcast", shape_str(a), shape_str(b)));
    out[rank - 1 - i] = da == 1 ? db : da;
  }
  return out;
}

std::vector<int64_t> broadcast_index(const std::vector<int64_t>& in, const std::vector<int64_t>& out) {
  DT_CHECK(in.size() <= out.size(), "broadcast_index to a lower rank");
  const size_t lead = out.size() - in.size();
  const std::vector<int64_t> in_strides = row_major_strides(in);
  std::vector<int64_t> stride(out.size(), 0);
  for (size_t i = 0; i < in.size(); ++i) stride[lead + i] = in[i] == 1 ? 0 : in_strides[i];
  const int64_t n = shape_numel(out);
  std::vector<int64_t> idx(static_cast<size_t>(n));
  std::vector<int64_t> coord(out.size(), 0);
  int64_t flat_in = 0;
  for (int64_t k = 0; k < n; ++k) {
    idx[static_cast<size_t>(k)] = flat_in;
    for (size_t d = out.size(); d-- > 0;) {  // odometer increment
      ++coord[d];
      flat_in += stride[d];
      if (coord[d] < out[d]) break;
      flat_in -= stride[d] * coord[d];
      coord[d] = 0;
    }
  }
  return idx;
}

AxisSplit split_at(const std::vector<int64_t>& shape, int axis) {
  AxisSplit s{1, shape.at(static_cast<size_t>(axis)), 1};
  for (int i = 0; i < axis; ++i) s.outer *= shape[static_cast<size_t>(i)];
  for (size_t i = static_cast<size_t>(axis) + 1; i < shape.size(); ++i) s.inner *= shape[i];
  return s;
}

double rounded_sum(const double* x, int64_t n, int64_t stride, const Rounder& r) {
  double s = 0;
  for (int64_t i = 0; i < n; ++i) s = r(s + x[i * stride]);
  return s;
}

}  // namespace difftest::reference
