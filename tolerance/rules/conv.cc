// Error rules of the convolutions: dot products of length (input channels per group) x (taps),
// plus one for a bias. Taps that fall into padding only make the bound more generous.
#include "tolerance/bounds.h"

namespace difftest::tolerance {

namespace {

void conv(RuleContext& c) {
  const auto& w = c.in[1]->shape();
  const std::string& op = c.binding.op().name;
  int64_t k = 1;
  if (op == "conv_transpose1d") {
    k = w[0] / c.attrs().get_int("groups") * w[2];
  } else {
    for (size_t i = 1; i < w.size(); ++i) k *= w[i];
  }
  if (c.in.size() > 2) ++k;
  dot_product_bound(c, k);
}

}  // namespace

void register_conv_rules(RuleTable& t) {
  t.add("conv1d", conv);
  t.add("conv2d", conv);
  t.add("conv_transpose1d", conv);
  t.add("upsample_nearest1d", moved_values_rule);
}

}  // namespace difftest::tolerance
