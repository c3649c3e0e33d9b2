// One recipe per op: operands and attributes that suit the op, drawn from the builder.
#include "compiler/sym/sym_simplify.h"
#include "compiler/ops/op.h"
#include <tuple>

#include "fuzz/builder.h"

namespace difftest::fuzz {

namespace {

constexpr int64_t kBigEnd = kMaxDimVarValue;  // "to the end" in slices

// ------------------------------------------------------------------------- recipes

bool unary_float(Builder& g, const std::string& name) {
  ChoiceSource& c = g.choices();
  Value x = g.float_operand(0);
  AttrList attrs;
  if (name == "gelu" && c.chance(1, 2)) attrs.emplace_back("approximate", std::string("tanh"));
  if (name == "leaky_relu") attrs.emplace_back("alpha", c.pick(std::vector<double>{0.01, 0.2}));
  return g.call(name, {x}, attrs);
}

bool unary_signed(Builder& g, const std::string& name) {
  ChoiceSource& c = g.choices();
  DType dt = c.chance(1, 2) ? g.float_dtype() : c.pick(std::vector<DType>{DType::i32, DType::i64, DType::i8});
  return g.call(name, {g.typed_operand(dt, 0)}, {});
}

bool clip(Builder& g, const std::string& name) {
  ChoiceSource& c = g.choices();
  DType dt = g.numeric_dtype();
  double lo = static_cast<double>(c.range(-2, 1));
  return g.call(name, {g.typed_operand(dt, 0)}, {{"min", lo}, {"max", lo + static_cast<double>(c.range(0, 3))}});
}

bool binary(Builder& g, const std::string& name, DType dt);

bool binary_numeric(Builder& g, const std::string& name) { return binary(g, name, g.numeric_dtype()); }
bool binary_float(Builder& g, const std::string& name) { return binary(g, name, g.float_dtype()); }
bool binary_bool(Builder& g, const std::string& name) { return binary(g, name, DType::boolean); }

bool binary(Builder& g, const std::string& name, DType dt) {
  ChoiceSource& c = g.choices();
  Value a = g.typed_operand(dt, 0);
  Value b = a;
  if (c.chance(1, 4)) {
    std::tie(a, b) = g.outer_pair(a, dt);  // both operands broadcast: a[..., None, ...] op b
  } else if (!c.chance(1, 3)) {
    b = g.broadcast_partner(a.type().shape, dt);
  }
  if (c.chance(1, 2)) std::swap(a, b);
  return g.call(name, {a, b}, {});
}

bool logical_not(Builder& g, const std::string& name) { return g.call(name, {g.typed_operand(DType::boolean, 0)}, {}); }

bool where(Builder& g, const std::string& name) {
  ChoiceSource& c = g.choices();
  DType dt = g.numeric_dtype();
  Value a = g.typed_operand(dt, 0);
  Value cond = c.chance(1, 2) ? g.fresh(TensorType{DType::boolean, a.type().shape})
                               : g.broadcast_partner(a.type().shape, DType::boolean);
  Value b = g.broadcast_partner(a.type().shape, dt);
  if (c.chance(1, 4)) std::tie(a, b) = g.outer_pair(a, dt);
  return g.call(name, {cond, a, b}, {});
}

bool cast(Builder& g, const std::string& name) {
  ChoiceSource& c = g.choices();
  Value x = g.operand([](const TensorType&) { return true; }, [&] { return TensorType{g.numeric_dtype(), g.shape(g.rank())}; });
  DType to = c.chance(1, 6) ? DType::boolean : g.numeric_dtype();
  return g.call(name, {x}, {{"dtype", to}});
}

bool reduction(Builder& g, const std::string& name) {
  ChoiceSource& c = g.choices();
  const bool float_only = name == "mean";
  Value x = float_only ? g.float_operand(1)
                       : g.operand([](const TensorType& t) { return !is_bool(t.dtype) && t.rank() >= 1; },
                                 [&] { return TensorType{g.numeric_dtype(), g.shape(g.rank(1))}; });
  AttrList attrs;
  const int r = x.type().rank();
  if (name == "argmax" || name == "argmin") {
    attrs.emplace_back("axis", g.axis_of(r));
  } else {
    std::vector<sym::Expr> axes;
    for (int i = 0; i < r; ++i) {
      if (c.chance(1, 2)) axes.push_back(c.chance(1, 2) ? i : i - r);
    }
    attrs.emplace_back("axes", axes);
    if (name == "sum" || name == "mean" || name == "prod") attrs.emplace_back("acc", g.acc_for(x.type().dtype));
  }
  attrs.emplace_back("keepdims", c.chance(1, 2));
  return g.call(name, {x}, attrs);
}

bool matmul(Builder& g, const std::string& name) {
  ChoiceSource& c = g.choices();
  Value a = g.float_operand(2);
  const auto& s = a.type().shape;
  const bool ta = c.chance(1, 4), tb = c.chance(1, 2);
  const sym::Expr k = ta ? s[s.size() - 2] : s.back();
  const sym::Expr n = g.dim();
  std::vector<sym::Expr> bs = tb ? std::vector<sym::Expr>{n, k} : std::vector<sym::Expr>{k, n};
  if (c.chance(1, 2)) {
    const std::vector<sym::Expr> batch = g.batch_partner({s.begin(), s.end() - 2});
    bs.insert(bs.begin(), batch.begin(), batch.end());
  }
  Value b = g.fresh(TensorType{a.type().dtype, bs});
  return g.call(name, {a, b}, {{"transpose_a", ta}, {"transpose_b", tb}, {"acc", g.acc_for(a.type().dtype)}});
}

bool linear(Builder& g, const std::string& name) {
  ChoiceSource& c = g.choices();
  Value x = g.float_operand(1);
  const sym::Expr n = g.dim();
  Value w = g.fresh(TensorType{x.type().dtype, {n, x.type().shape.back()}});
  std::vector<Value> args = {x, w};
  if (c.chance(1, 2)) args.push_back(g.fresh(TensorType{x.type().dtype, {n}}));
  return g.call(name, args, {{"acc", g.acc_for(x.type().dtype)}});
}

bool softmax(Builder& g, const std::string& name) {
  Value x = g.float_operand(1);
  return g.call(name, {x}, {{"axis", g.axis_of(x.type().rank())}, {"acc", g.acc_for(x.type().dtype)}});
}

bool norm(Builder& g, const std::string& name) {
  ChoiceSource& c = g.choices();
  Value x = g.float_operand(1);
  const int64_t axis = g.axis_of(x.type().rank());
  const sym::Expr& d = x.type().shape[static_cast<size_t>(axis < 0 ? axis + x.type().rank() : axis)];
  std::vector<Value> args = {x, g.fresh(TensorType{x.type().dtype, {d}})};
  AttrList attrs = {{"axis", axis}, {"eps", c.pick(std::vector<double>{1e-5, 1e-6})}, {"acc", g.acc_for(x.type().dtype)}};
  if (name == "layer_norm") {
    args.push_back(g.fresh(TensorType{x.type().dtype, {d}}));
  } else {
    attrs.emplace_back("weight_offset", c.chance(1, 2) ? 0.0 : 1.0);
  }
  return g.call(name, args, attrs);
}

bool channel_norm(Builder& g, const std::string& name) {
  ChoiceSource& c = g.choices();
  const bool grouped = name == "group_norm";
  const int64_t groups = grouped ? c.pick(std::vector<int64_t>{1, 2}) : 1;
  const int64_t channels = groups * g.const_dim();
  std::vector<sym::Expr> s = {g.dim(), channels, g.dim()};
  if (c.chance(1, 3)) s.push_back(g.dim());
  Value x = g.fresh(TensorType{g.float_dtype(), s});
  AttrList attrs = {{"acc", g.acc_for(x.type().dtype)}};
  if (grouped) attrs.emplace_back("num_groups", groups);
  const DType dt = x.type().dtype;
  return g.call(name, {x, g.fresh(TensorType{dt, {channels}}), g.fresh(TensorType{dt, {channels}})}, attrs);
}

bool reshape(Builder& g, const std::string& name) {
  ChoiceSource& c = g.choices();
  Value x = g.operand([](const TensorType& t) { return t.rank() >= 1; },
                    [&] { return TensorType{g.numeric_dtype(), g.shape(g.rank(1))}; });
  const auto& s = x.type().shape;
  std::vector<sym::Expr> target;
  const int choice = static_cast<int>(c.below(4));
  if (choice == 3 && s.size() >= 2) {
    // Same rank, other shape: a factor 2 moved between two axes ([6, n] -> [3, 2 n]), or the
    // dims reversed: reshapes a simplifier must not take for identities.
    target = s;
    const size_t to = c.below(s.size());
    std::vector<size_t> from;  // constant even dims that can give a factor 2 to `to`
    for (size_t i = 0; i < s.size(); ++i) {
      if (i != to && s[i].is_const() && s[i].value() % 2 == 0) from.push_back(i);
    }
    if (!from.empty()) {
      const size_t f = c.pick(from);
      target[f] = sym::Expr(s[f].value() / 2);
      target[to] = sym::simplify(s[to] * 2, g.ranges());
    } else {
      std::reverse(target.begin(), target.end());
    }
  } else if (choice == 0 || choice == 3 || s.size() < 2) {
    target = {sym::Expr(-1)};
  } else if (choice == 1) {
    target.assign(s.begin(), s.end() - 2);
    target.push_back(sym::simplify(s[s.size() - 2] * s.back(), g.ranges()));
  } else {
    target = s;
    target.insert(target.begin() + static_cast<std::ptrdiff_t>(c.below(s.size() + 1)), sym::Expr(1));
  }
  return g.call(name, {x}, {{"shape", target}});
}

bool permute_dims(Builder& g, const std::string& name) {
  ChoiceSource& c = g.choices();
  Value x = g.operand([](const TensorType&) { return true; }, [&] { return TensorType{g.numeric_dtype(), g.shape(g.rank())}; });
  std::vector<int64_t> axes;
  if (c.chance(2, 3)) {
    for (int i = 0; i < x.type().rank(); ++i) axes.push_back(i);
    for (size_t i = axes.size(); i > 1; --i) std::swap(axes[i - 1], axes[c.below(i)]);
  }
  return g.call(name, {x}, {{"axes", axes}});
}

bool broadcast_to(Builder& g, const std::string& name) {
  ChoiceSource& c = g.choices();
  std::vector<sym::Expr> target = g.shape(g.rank(1));
  std::vector<sym::Expr> src(target.begin() + static_cast<std::ptrdiff_t>(c.below(target.size())), target.end());
  for (auto& d : src) {
    if (c.chance(1, 2)) d = 1;
  }
  return g.call(name, {g.fresh(TensorType{g.numeric_dtype(), src})}, {{"shape", target}});
}

bool concat(Builder& g, const std::string& name) {
  ChoiceSource& c = g.choices();
  Value x = g.operand([](const TensorType& t) { return t.rank() >= 1; },
                    [&] { return TensorType{g.numeric_dtype(), g.shape(g.rank(1))}; });
  const int64_t axis = g.axis_of(x.type().rank());
  std::vector<Value> args = {x};
  const int more = static_cast<int>(c.range(0, 2));
  for (int i = 0; i < more; ++i) {
    TensorType t = x.type();
    t.shape[static_cast<size_t>(axis < 0 ? axis + t.rank() : axis)] = g.dim();
    args.push_back(g.fresh(t));
  }
  return g.call(name, args, {{"axis", axis}});
}

bool split(Builder& g, const std::string& name) {
  ChoiceSource& c = g.choices();
  std::vector<sym::Expr> s = g.shape(g.rank(1));
  const size_t axis = c.below(s.size());
  const int64_t parts = c.range(1, 3);
  s[axis] = parts * g.const_dim();
  Value x = g.fresh(TensorType{g.numeric_dtype(), s});
  AttrList attrs = {{"axis", static_cast<int64_t>(axis)}};
  if (c.chance(1, 2)) {
    attrs.emplace_back("sections", parts);
  } else {
    const int64_t total = s[axis].value();
    std::vector<int64_t> idx;
    for (int64_t i = 1; i < total; ++i) {
      if (c.chance(1, 3)) idx.push_back(i);
    }
    if (idx.empty()) return false;
    attrs.emplace_back("indices", idx);
  }
  return g.call(name, {x}, attrs);
}

bool strided_slice(Builder& g, const std::string& name) {
  ChoiceSource& c = g.choices();
  Value x = g.operand([](const TensorType& t) { return t.rank() >= 1; },
                    [&] { return TensorType{g.numeric_dtype(), g.shape(g.rank(1))}; });
  const int64_t axis = c.range(0, x.type().rank() - 1);
  const int64_t step = c.pick(std::vector<int64_t>{1, 1, 2, -1});
  const int64_t begin = step > 0 ? c.pick(std::vector<int64_t>{0, 1, -2}) : c.pick(std::vector<int64_t>{-1, kBigEnd});
  const int64_t end = step > 0 ? c.pick(std::vector<int64_t>{kBigEnd, -1}) : c.pick(std::vector<int64_t>{0, -kBigEnd});
  return g.call(name, {x},
              {{"axes", std::vector<int64_t>{axis}},
               {"begin", std::vector<sym::Expr>{begin}},
               {"end", std::vector<sym::Expr>{end}},
               {"strides", std::vector<int64_t>{step}}});
}

bool squeeze(Builder& g, const std::string& name) {
  ChoiceSource& c = g.choices();
  std::vector<sym::Expr> s = g.shape(g.rank(1));
  const size_t at = c.below(s.size());
  s[at] = 1;
  Value x = g.fresh(TensorType{g.numeric_dtype(), s});
  std::vector<int64_t> axes;
  if (c.chance(1, 2)) axes.push_back(static_cast<int64_t>(at));
  return g.call(name, {x}, {{"axes", axes}});
}

bool expand_dims(Builder& g, const std::string& name) {
  ChoiceSource& c = g.choices();
  Value x = g.operand([](const TensorType& t) { return t.rank() < 8; },
                    [&] { return TensorType{g.numeric_dtype(), g.shape(g.rank())}; });
  const int r = x.type().rank() + 1;
  return g.call(name, {x}, {{"axis", c.range(-r, r - 1)}});
}

bool take(Builder& g, const std::string& name) {
  ChoiceSource& c = g.choices();
  Value x = g.operand([](const TensorType& t) { return t.rank() >= 1; },
                    [&] { return TensorType{g.numeric_dtype(), g.shape(g.rank(1))}; });
  Value idx = g.fresh(TensorType{c.chance(1, 2) ? DType::i32 : DType::i64, g.shape(g.rank(0) % 3)});
  return g.call(name, {x, idx},
              {{"axis", g.axis_of(x.type().rank())}, {"mode", std::string(c.chance(1, 2) ? "clip" : "wrap")}});
}

bool slice_scatter(Builder& g, const std::string& name) {
  ChoiceSource& c = g.choices();
  Value x = g.operand([](const TensorType& t) { return t.rank() >= 1; },
                    [&] { return TensorType{g.numeric_dtype(), g.shape(g.rank(1))}; });
  const int64_t axis = c.range(0, x.type().rank() - 1);
  const sym::Expr begin = c.pick(std::vector<int64_t>{0, 1});
  const sym::Expr end = c.pick(std::vector<int64_t>{kBigEnd, -1});
  const int64_t step = c.range(1, 2);
  // The src type is what strided_slice infers for the same slice.
  const OpDef* slice = OpRegistry::get().find("strided_slice");
  try {
    Attrs sa = make_attrs(*slice, {{"axes", std::vector<int64_t>{axis}},
                                   {"begin", std::vector<sym::Expr>{begin}},
                                   {"end", std::vector<sym::Expr>{end}},
                                   {"strides", std::vector<int64_t>{step}}});
    TensorType src = infer_types(*slice, {x.type()}, sa, g.ranges()).front();
    if (!g.small_enough(src)) return false;
    return g.call(name, {x, g.fresh(src)}, {{"axis", axis}, {"begin", begin}, {"end", end}, {"step", step}});
  } catch (const UserError&) {
    return false;
  }
}

bool repeat(Builder& g, const std::string& name) {
  ChoiceSource& c = g.choices();
  Value x = g.operand([](const TensorType& t) { return t.rank() >= 1; },
                    [&] { return TensorType{g.numeric_dtype(), g.shape(g.rank(1))}; });
  return g.call(name, {x}, {{"repeats", c.range(1, 3)}, {"axis", g.axis_of(x.type().rank())}});
}

bool triangle(Builder& g, const std::string& name) {
  ChoiceSource& c = g.choices();
  Value x = g.operand([](const TensorType& t) { return t.rank() >= 2; },
                    [&] { return TensorType{g.numeric_dtype(), g.shape(g.rank(2))}; });
  return g.call(name, {x}, {{"k", c.range(-2, 2)}});
}

bool arange(Builder& g, const std::string& name) {
  ChoiceSource& c = g.choices();
  const int64_t start = c.range(0, 1);
  const int64_t step = c.pick(std::vector<int64_t>{1, 1, 2});
  return g.call(name, {},
              {{"start", sym::Expr(start)},
               {"end", sym::simplify(g.dim() + 2, g.ranges())},
               {"step", step},
               {"dtype", c.pick(std::vector<DType>{DType::i64, DType::i32, DType::f32})}});
}

bool fill(Builder& g, const std::string& name) {
  ChoiceSource& c = g.choices();
  const DType dt = c.chance(1, 6) ? DType::boolean : g.numeric_dtype();
  AttrList attrs = {{"shape", g.shape(g.rank())}, {"dtype", dt}};
  if (name == "full") attrs.emplace_back("value", is_bool(dt) ? 1.0 : static_cast<double>(c.range(-3, 3)));
  if (name == "ones" && is_bool(dt)) return false;
  return g.call(name, {}, attrs);
}

bool mask(Builder& g, const std::string& name) {
  ChoiceSource& c = g.choices();
  AttrList attrs = {{"q_len", g.dim()}, {"kv_len", g.dim()}};
  if (name == "sliding_window_mask") {
    attrs.emplace_back("window", c.pick(std::vector<int64_t>{1, 2, 3, 8, 512}));
    attrs.emplace_back("sink", c.range(0, 2));
  }
  if (c.chance(1, 3)) attrs.emplace_back("offset", g.dim());
  return g.call(name, {}, attrs);
}

bool attention(Builder& g, const std::string& name) {
  ChoiceSource& c = g.choices();
  const DType dt = g.float_dtype();
  const sym::Expr b = c.range(1, 2), sq = g.dim(), skv = g.dim();
  const int64_t hkv = c.range(1, 2), hq = hkv * c.pick(std::vector<int64_t>{1, 2, 4});
  const int64_t d = c.pick(std::vector<int64_t>{2, 4, 8});
  std::vector<Value> args = {g.fresh(TensorType{dt, {b, sq, hq, d}}), g.fresh(TensorType{dt, {b, skv, hkv, d}}),
                             g.fresh(TensorType{dt, {b, skv, hkv, c.pick(std::vector<int64_t>{2, 4})}})};
  if (c.chance(1, 3)) args.push_back(g.fresh(TensorType{DType::boolean, {sq, skv}}));
  AttrList attrs = {{"causal", c.chance(1, 2)}, {"acc", g.acc_for(dt)}};
  if (c.chance(1, 2)) attrs.emplace_back("window", c.range(1, 4));
  if (c.chance(1, 3)) attrs.emplace_back("sink", c.range(0, 2));
  if (c.chance(1, 3)) attrs.emplace_back("scale", 0.0625);
  if (c.chance(1, 3)) attrs.emplace_back("softcap", 50.0);
  return g.call(name, args, attrs);
}

bool rope(Builder& g, const std::string& name) {
  ChoiceSource& c = g.choices();
  Value x = g.fresh(TensorType{g.float_dtype(), {c.range(1, 2), g.dim(), c.range(1, 2), 2 * g.const_dim()}});
  AttrList attrs = {{"theta", c.chance(1, 2) ? 10000.0 : 1000000.0},
                    {"style", std::string(c.chance(1, 2) ? "neox" : "interleaved")}};
  if (c.chance(1, 3)) attrs.emplace_back("offset", g.dim());
  return g.call(name, {x}, attrs);
}

std::string format(ChoiceSource& c) { return c.pick(std::vector<std::string>{"q4f16_1", "q4f32_1", "q4_0"}); }

bool quantize(Builder& g, const std::string& name) {
  ChoiceSource& c = g.choices();
  const std::string f = format(c);
  const int64_t blocks = c.range(1, 3);
  const int64_t k = f == "q4_0" ? 32 * blocks : c.pick(std::vector<int64_t>{32 * blocks, 40, 8});
  const int64_t group = f == "q4_0" ? 32 : c.pick(std::vector<int64_t>{32, 8});
  Value w = g.fresh(TensorType{g.float_dtype(), {g.dim(), k}});
  return g.call(name, {w}, {{"format", f}, {"group", group}});
}

bool dequantize(Builder& g, const std::string& name) {
  ChoiceSource& c = g.choices();
  const std::string f = format(c);
  const sym::Expr n = g.dim();
  const int64_t groups = c.range(1, 3);
  // Half the calls name their result dtype (every float dtype the generator draws).
  const AttrValue result = c.chance(1, 2) ? AttrValue(g.float_dtype()) : AttrValue(std::monostate{});
  if (f == "q4_0") {
    return g.call(name, {g.packed_words(TensorType{DType::u8, {n, 16 * groups}}), g.fresh(TensorType{DType::f16, {n, groups}})},
                {{"format", f}, {"group", int64_t{32}}, {"dtype", result}});
  }
  const DType scale = f == "q4f16_1" ? DType::f16 : DType::f32;
  AttrList attrs = {{"format", f}, {"group", int64_t{32}}, {"dtype", result}};
  if (c.chance(1, 3)) attrs.emplace_back("k", sym::Expr(32 * groups - 8));
  return g.call(name, {g.packed_words(TensorType{DType::u32, {n, 4 * groups}}), g.fresh(TensorType{scale, {n, groups}})}, attrs);
}

bool conv(Builder& g, const std::string& name) {
  ChoiceSource& c = g.choices();
  const DType dt = g.float_dtype_for(name);
  const int64_t groups = c.pick(std::vector<int64_t>{1, 1, 2});
  const int64_t cin = groups * c.range(1, 3), cout = groups * c.range(1, 3);
  const int64_t kernel = c.range(1, 3);
  const int64_t stride = c.range(1, 3), padding = c.range(0, 2), dilation = c.range(1, 3);
  AttrList attrs = {{"groups", groups}, {"acc", g.acc_for_op(name, dt)}};
  std::vector<Value> args;
  if (name == "conv2d") {
    args = {g.fresh(TensorType{dt, {c.range(1, 2), cin, g.dim(), g.dim()}}),
            g.fresh(TensorType{dt, {cout, cin / groups, kernel, kernel}})};
    // Each spatial axis its own stride and dilation (padding is symmetric per axis).
    attrs.emplace_back("stride", std::vector<int64_t>{stride, c.range(1, 3)});
    attrs.emplace_back("padding", std::vector<int64_t>{padding, c.range(0, 2)});
    attrs.emplace_back("dilation", std::vector<int64_t>{dilation, c.range(1, 2)});
  } else if (name == "conv_transpose1d") {
    args = {g.fresh(TensorType{dt, {c.range(1, 2), cin, g.dim()}}), g.fresh(TensorType{dt, {cin, cout / groups, kernel}})};
    attrs.emplace_back("stride", stride);
    attrs.emplace_back("padding", padding);
    attrs.emplace_back("dilation", dilation);
    attrs.emplace_back("output_padding", c.range(0, std::max(stride, dilation) - 1));
  } else {
    args = {g.fresh(TensorType{dt, {c.range(1, 2), cin, g.dim()}}), g.fresh(TensorType{dt, {cout, cin / groups, kernel}})};
    attrs.emplace_back("stride", stride);
    attrs.emplace_back("padding", padding);
    attrs.emplace_back("dilation", dilation);
  }
  if (c.chance(1, 2)) args.push_back(g.fresh(TensorType{dt, {cout}}));
  return g.call(name, args, attrs);
}

bool upsample(Builder& g, const std::string& name) {
  ChoiceSource& c = g.choices();
  Value x = g.float_operand(3, 3);
  return g.call(name, {x}, {{"scale", c.range(1, 3)}});
}

void register_elementwise_recipes(RecipeTable& t) {
  for (const char* n : {"exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "silu", "gelu", "erf", "sin", "cos", "floor",
                        "round", "leaky_relu"}) {
    t.add(n, &unary_float);
  }
  for (const char* n : {"neg", "abs", "relu"}) t.add(n, &unary_signed);
  t.add("clip", &clip);
  for (const char* n : {"add", "sub", "mul", "maximum", "minimum", "floor_divide", "floor_mod", "equal", "not_equal",
                        "less", "less_equal", "greater", "greater_equal"}) {
    t.add(n, &binary_numeric);
  }
  for (const char* n : {"div", "pow", "atan2"}) t.add(n, &binary_float);
  for (const char* n : {"logical_and", "logical_or", "logical_xor"}) t.add(n, &binary_bool);
  t.add("logical_not", &logical_not);
  t.add("where", &where);
  t.add("cast", &cast);
}

void register_reduction_recipes(RecipeTable& t) {
  for (const char* n : {"sum", "mean", "prod", "max", "min", "argmax", "argmin"}) t.add(n, &reduction);
}

void register_linalg_recipes(RecipeTable& t) {
  t.add("matmul", &matmul);
  t.add("linear", &linear);
}

void register_normalization_recipes(RecipeTable& t) {
  for (const char* n : {"softmax", "log_softmax"}) t.add(n, &softmax);
  for (const char* n : {"rms_norm", "layer_norm"}) t.add(n, &norm);
  for (const char* n : {"group_norm", "instance_norm"}) t.add(n, &channel_norm);
}

void register_shape_recipes(RecipeTable& t) {
  t.add("reshape", &reshape);
  t.add("permute_dims", &permute_dims);
  t.add("broadcast_to", &broadcast_to);
  t.add("concat", &concat);
  t.add("split", &split);
  t.add("strided_slice", &strided_slice);
  t.add("squeeze", &squeeze);
  t.add("expand_dims", &expand_dims);
  t.add("take", &take);
  t.add("slice_scatter", &slice_scatter);
  t.add("repeat", &repeat);
  for (const char* n : {"tril", "triu"}) t.add(n, &triangle);
}

void register_creation_recipes(RecipeTable& t) {
  t.add("arange", &arange);
  for (const char* n : {"full", "zeros", "ones"}) t.add(n, &fill);
}

void register_attention_recipes(RecipeTable& t) {
  for (const char* n : {"causal_mask", "sliding_window_mask"}) t.add(n, &mask);
  t.add("attention", &attention);
  t.add("rope", &rope);
}

void register_quantization_recipes(RecipeTable& t) {
  t.add("quantize", &quantize);
  t.add("dequantize", &dequantize);
}

void register_conv_recipes(RecipeTable& t) {
  for (const char* n : {"conv1d", "conv2d", "conv_transpose1d"}) t.add(n, &conv);
  t.add("upsample_nearest1d", &upsample);
}

}  // namespace

const RecipeTable& recipes() {
  static const RecipeTable table = DIFFTEST_BUILD_OP_TABLE(RecipeTable, "generator recipe", recipes);
  return table;
}

}  // namespace difftest::fuzz
