// Error rules of the shape family (ops that move values without arithmetic) and the creation
// family (values made from attributes); moved_values_rule and exact_values_rule also serve the
// upsampling (conv family) and the masks (attention family). Moved errors and uncertainty flags
// are computed by running the op's reference kernel on the error and indicator tensors.
#include <cmath>

#include "compiler/tensor/indexing.h"
#include "tolerance/bounds.h"

namespace difftest::tolerance {

namespace {

enum class Moved { errors, indicators, spreads };

// Runs the kernel with data operand i replaced by its errors (then by its indicator, and in
// probabilistic mode by its sd); the other operands keep their exact values.
void move(RuleContext& c, const std::vector<size_t>& data_operands) {
  auto substituted = [&](Moved what) {
    std::vector<Tensor> args;
    for (size_t i = 0; i < c.in.size(); ++i) {
      const bool data = std::find(data_operands.begin(), data_operands.end(), i) != data_operands.end();
      if (!data) {
        args.push_back(c.in[i]->exact);
      } else if (what == Moved::errors) {
        args.push_back(as_f64(c.in[i]->err, c.in[i]->shape()));
      } else {
        args.push_back(what == Moved::indicators ? indicator(*c.in[i]) : spreads(*c.in[i], false));
      }
    }
    return c.kernel(args);
  };
  const std::vector<Tensor> errs = substituted(Moved::errors), flags = substituted(Moved::indicators);
  // An op that copies one element to several places makes their errors one: a later sum over
  // the copies adds it coherently, so the copies keep no independent share (a uniform worst case).
  const std::string& op = c.binding.op().name;
  const bool replicates = op == "broadcast_to" || op == "repeat" || op == "upsample_nearest1d" || op == "take";
  const std::vector<Tensor> sds =
      quadrature(c.opt) && !replicates ? substituted(Moved::spreads) : std::vector<Tensor>{};
  for (size_t r = 0; r < c.out.size(); ++r) {
    Bounded& out = c.out[r];
    for (int64_t i = 0; i < out.numel(); ++i) {
      const auto at = static_cast<size_t>(i);
      out.err[at] = is_float(out.dtype) ? errs[r].get(i) : 0;
      out.uncertain[at] = flags[r].get(i) != 0;
      if (!sds.empty() && is_float(out.dtype)) set_spread(c, out, at, sds[r].get(i), out.err[at]);
    }
  }
}

// take: values move from x; an uncertain index makes its whole gathered slice uncertain.
void take(RuleContext& c) {
  move(c, {0});
  const Bounded& idx = *c.in[1];
  Bounded& out = c.out[0];
  const auto& xs = c.in[0]->shape();
  const int axis = normalize_axis(c.attrs().get_int("axis"), static_cast<int>(xs.size()));
  const AxisSplit s = split_at(xs, axis);
  const int64_t count = idx.numel();
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t q = 0; q < count; ++q) {
      if (!idx.uncertain[static_cast<size_t>(q)]) continue;
      for (int64_t in = 0; in < s.inner; ++in) out.uncertain[static_cast<size_t>((o * count + q) * s.inner + in)] = 1;
    }
  }
}

void arange(RuleContext& c) {
  Bounded& out = c.out[0];
  for (size_t i = 0; i < out.ref.size(); ++i) out.err[i] = rounding_error(out.ref[i], out.dtype);
}

}  // namespace

void moved_values_rule(RuleContext& c) {
  std::vector<size_t> all;
  for (size_t i = 0; i < c.in.size(); ++i) all.push_back(i);
  move(c, all);
}

void exact_values_rule(RuleContext&) {}

void register_shape_rules(RuleTable& t) {
  for (const char* op : {"reshape", "permute_dims", "broadcast_to", "concat", "split", "strided_slice", "squeeze",
                         "expand_dims", "slice_scatter", "repeat", "tril", "triu"}) {
    t.add(op, moved_values_rule);
  }
  t.add("take", take);
}

void register_creation_rules(RuleTable& t) {
  t.add("arange", arange);
  for (const char* op : {"full", "zeros", "ones"}) t.add(op, exact_values_rule);
}

}  // namespace difftest::tolerance
