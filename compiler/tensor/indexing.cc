#include "compiler/tensor/indexing.h"

#include <fmt/format.h>

#include <algorithm>

#include "compiler/support/diagnostics.h"
#include "compiler/tensor/tensor.h"

namespace difftest {

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

}  // namespace difftest
