// Softmax and normalization layers. Every op here carries its intermediate arithmetic in `acc`
// (absent: the operand dtype) and rounds the result once to the operand dtype.
#include "compiler/ops/infer_util.h"

namespace difftest::ops {

namespace {

void require_vector_of(const InferContext& ctx, size_t i, const sym::Expr& len, const std::string& what) {
  require_same_dtype(ctx, 0, i);
  require_rank(ctx, i, 1);
  require_equal_dims(ctx, input(ctx, i).shape[0], len, what);
}

AttrSpec eps_attr(double def) { return attr_float("eps", def, "added to the variance before the square root"); }

void softmax_like(OpRegistry& r, const std::string& name, const std::string& summary, const std::string& semantics) {
  OpDef d;
  d.name = name;
  d.family = "normalization";
  d.summary = summary;
  d.semantics = semantics;
  d.inputs = {"x"};
  d.attrs = {attr_int("axis", -1, "axis to normalize"), attr_acc()};
  d.pattern = OpPattern::OutEWiseFusable;
  d.infer = [](const InferContext& ctx) {
    require_float(ctx, 0);
    require_min_rank(ctx, 0, 1);
    accumulator(ctx, input(ctx, 0).dtype);
    normalize_axis(ctx, ctx.attrs.get_int("axis"), input(ctx, 0).rank(), "axis");
    return std::vector<TensorType>{input(ctx, 0)};
  };
  r.add(std::move(d));
}

// rms_norm and layer_norm: x normalized along one axis, scaled by per-position vectors.
void axis_norm(OpRegistry& r, const std::string& name, const std::string& summary, const std::string& semantics,
               const std::vector<std::string>& vectors, double eps, std::vector<AttrSpec> extra) {
  OpDef d;
  d.name = name;
  d.family = "normalization";
  d.summary = summary;
  d.semantics = semantics;
  d.inputs = {"x"};
  d.inputs.insert(d.inputs.end(), vectors.begin(), vectors.end());
  d.min_inputs = d.max_inputs = static_cast<int>(d.inputs.size());
  d.attrs = {attr_int("axis", -1, "axis to normalize"), eps_attr(eps)};
  d.attrs.insert(d.attrs.end(), extra.begin(), extra.end());
  d.attrs.push_back(attr_acc());
  d.pattern = OpPattern::OutEWiseFusable;
  d.infer = [vectors](const InferContext& ctx) {
    require_float(ctx, 0);
    require_min_rank(ctx, 0, 1);
    accumulator(ctx, input(ctx, 0).dtype);
    const int axis = normalize_axis(ctx, ctx.attrs.get_int("axis"), input(ctx, 0).rank(), "axis");
    for (size_t i = 0; i < vectors.size(); ++i) {
      require_vector_of(ctx, i + 1, input(ctx, 0).shape[axis], vectors[i] + " length and the normalized dim");
    }
    if (ctx.attrs.get_float("eps") < 0) fail(ctx, ErrorKind::Attribute, "eps must be >= 0");
    return std::vector<TensorType>{input(ctx, 0)};
  };
  r.add(std::move(d));
}

// group_norm and instance_norm: x is [N, C, spatial...] with per-channel gamma and beta.
void channel_norm(OpRegistry& r, const std::string& name, const std::string& summary, const std::string& semantics,
                  bool grouped) {
  OpDef d;
  d.name = name;
  d.family = "normalization";
  d.summary = summary;
  d.semantics = semantics;
  d.inputs = {"x", "gamma", "beta"};
  d.min_inputs = d.max_inputs = 3;
  if (grouped) d.attrs.push_back(attr_int_required("num_groups", "number of channel groups; divides C"));
  d.attrs.push_back(eps_attr(1e-5));
  d.attrs.push_back(attr_acc());
  d.pattern = OpPattern::OutEWiseFusable;
  d.infer = [grouped](const InferContext& ctx) {
    require_float(ctx, 0);
    require_min_rank(ctx, 0, grouped ? 2 : 3);
    accumulator(ctx, input(ctx, 0).dtype);
    const sym::Expr& c = input(ctx, 0).shape[1];
    require_vector_of(ctx, 1, c, "gamma length and channels C");
    require_vector_of(ctx, 2, c, "beta length and channels C");
    if (grouped) {
      const int64_t g = ctx.attrs.get_int("num_groups");
      if (g < 1) fail(ctx, ErrorKind::Attribute, "num_groups must be >= 1, got {}", g);
      if (sym::prove_divisible(c, g, ctx.ranges) != sym::Truth::True) {
        fail(ctx, ErrorKind::Shape, "channels {} are not provably divisible by num_groups={}", sym::to_string(c), g);
      }
    }
    if (ctx.attrs.get_float("eps") < 0) fail(ctx, ErrorKind::Attribute, "eps must be >= 0");
    return std::vector<TensorType>{input(ctx, 0)};
  };
  r.add(std::move(d));
}

}  // namespace

void register_normalization_ops(OpRegistry& r) {
  softmax_like(r, "softmax", "softmax along an axis",
               "y_i = exp(x_i - m) / sum_j exp(x_j - m) along `axis`, with m = max_j x_j (the max subtraction "
               "is part of the definition: it keeps exp finite). Rows sum to 1.");
  softmax_like(r, "log_softmax", "log of softmax along an axis",
               "y_i = (x_i - m) - log(sum_j exp(x_j - m)) along `axis`, m = max_j x_j.");

  axis_norm(r, "rms_norm", "root-mean-square normalization",
            "y = x / sqrt(mean(x^2 over `axis`) + eps) * (weight + weight_offset), weight: [x.shape[axis]] "
            "broadcast along the other axes. weight_offset=1 gives Gemma's (1 + weight) scaling. Computed in "
            "`acc`, rounded once.",
            {"weight"}, 1e-6, {attr_float("weight_offset", 0.0, "added to the weight (Gemma: 1)")});
  axis_norm(r, "layer_norm", "layer normalization",
            "Along `axis`: mu = mean(x), var = mean((x - mu)^2) (biased), "
            "y = (x - mu) / sqrt(var + eps) * gamma + beta with gamma, beta: [x.shape[axis]]. Computed in `acc`, "
            "rounded once.",
            {"gamma", "beta"}, 1e-5, {});
  channel_norm(r, "group_norm", "group normalization over [N, C, ...]",
               "x: [N, C, spatial...]. Channels split into num_groups consecutive groups of C / num_groups; for "
               "each (n, group): mu and biased var over the group's channels and all spatial positions; "
               "y = (x - mu) / sqrt(var + eps) * gamma[c] + beta[c].",
               true);
  channel_norm(r, "instance_norm", "instance normalization over [N, C, L...]",
               "x: [N, C, spatial...] with at least one spatial dim. For each (n, c): mu and biased var over "
               "the spatial positions; y = (x - mu) / sqrt(var + eps) * gamma[c] + beta[c] (Kokoro's AdaIN "
               "passes style-derived gamma and beta).",
               false);
}

}  // namespace difftest::ops
