// Index arithmetic over concrete shapes, shared by everything that moves tensor elements.
#pragma once

#include <cstdint>
#include <vector>

namespace difftest {

int normalize_axis(int64_t axis, int rank);  // [-rank, rank) -> [0, rank)
std::vector<int64_t> broadcast_shape(const std::vector<int64_t>& a, const std::vector<int64_t>& b);
// For every flat index of `out`, the flat index into a tensor of shape `in` broadcast to it.
std::vector<int64_t> broadcast_index(const std::vector<int64_t>& in, const std::vector<int64_t>& out);

// A shape split around `axis` into (outer, extent, inner) element counts.
struct AxisSplit {
  int64_t outer, extent, inner;
};
AxisSplit split_at(const std::vector<int64_t>& shape, int axis);

}  // namespace difftest
