#include "fuzz/generator.h"

#include <fmt/format.h>

#include <functional>
#include <map>
#include <set>

#include "compiler/ir/sym_prove.h"
#include "compiler/ir/sym_simplify.h"
#include "compiler/ops/op.h"

namespace difftest {

namespace {

using AttrList = std::vector<std::pair<std::string, AttrValue>>;
constexpr int64_t kMaxGeneratedElements = int64_t{1} << 22;
constexpr int64_t kBigEnd = kMaxDimVarValue;  // "to the end" in slices

class Gen {
 public:
  Gen(ChoiceSource& c, const GeneratorOptions& o) : c_(c), o_(o) {}

  Program run() {
    declare_dims();
    const int target = static_cast<int>(c_.range(o_.min_ops, std::max(o_.min_ops, o_.max_ops)));
    const auto& recipes = recipe_table();
    int made = 0;
    for (int attempt = 0; made < target && attempt < target * 8; ++attempt) {
      const auto& [name, recipe] = recipes[c_.below(recipes.size())];
      if ((this->*recipe)(name)) ++made;
    }
    if (values_.empty()) param(TensorType{DType::f32, {sym::Expr(2)}});
    std::vector<Value> outputs;
    for (const auto& v : values_) {
      if (!used_.count(v.get()) && produced_by_call_.count(v.get())) outputs.push_back(v);
    }
    if (outputs.empty()) outputs.push_back(values_.back());
    return Program::make(fmt::format("gen"), dims_, bindings_, outputs);
  }

 private:
  using Recipe = bool (Gen::*)(const std::string&);

  // ------------------------------------------------------------------------- dims and types

  void declare_dims() {
    static const char* kNames[] = {"n", "m", "k", "s"};
    const int count = static_cast<int>(c_.range(0, std::min(o_.max_dim_vars, 4)));
    for (int i = 0; i < count; ++i) {
      static const std::vector<int64_t> kLo = {1, 1, 2, 10};
      static const std::vector<int64_t> kSpan = {3, 7, 63, 255};
      const int64_t lo = c_.pick(kLo);
      const int64_t hi = lo + c_.pick(kSpan);
      dims_.push_back(DimVar{kNames[i], sym::Range{lo, hi}});
      ranges_[kNames[i]] = sym::Range{lo, hi};
    }
    for (int64_t v : {1, 2, 3, 4, 5, 8, 16}) pool_.push_back(v);
    for (const auto& d : dims_) {
      const sym::Expr v = sym::Expr::var(d.name);
      pool_.push_back(v);
      pool_.push_back(v);
      pool_.push_back(sym::Expr(2) * v);
      pool_.push_back(v + 1);
      if (d.range.lo >= 10) pool_.push_back(sym::floordiv(v, 5) - 1);
    }
    if (dims_.size() >= 2) pool_.push_back(sym::Expr::var(dims_[0].name) + sym::Expr::var(dims_[1].name));
  }

  sym::Expr dim() { return sym::simplify(c_.pick(pool_), ranges_); }
  int64_t const_dim() { return c_.pick(std::vector<int64_t>{1, 2, 3, 4, 6, 8}); }

  std::vector<sym::Expr> shape(int rank) {
    std::vector<sym::Expr> s;
    for (int i = 0; i < rank; ++i) s.push_back(dim());
    return s;
  }

  int rank(int min_rank = 0) { return static_cast<int>(c_.range(min_rank, std::max(min_rank, o_.max_rank))); }

  DType float_dtype() { return c_.pick(std::vector<DType>{DType::f32, DType::f16, DType::bf16, DType::f64}); }
  DType int_dtype() { return c_.pick(std::vector<DType>{DType::i32, DType::i64, DType::i8, DType::u8, DType::u32}); }
  DType numeric_dtype() { return c_.chance(2, 3) ? float_dtype() : int_dtype(); }

  bool small_enough(const TensorType& t) const {
    sym::Expr n = 1;
    for (const auto& d : t.shape) {
      if (sym::prove_ge(d, 1, ranges_) != sym::Truth::True) return false;
      n = n * d;
    }
    const sym::Interval b = sym::bounds(n, ranges_);
    return b.hi_finite() && b.hi <= kMaxGeneratedElements;
  }

  // ------------------------------------------------------------------------- values

  Value param(TensorType t) {
    Value v = Value::make(fmt::format("p{}", params_++), std::move(t));
    bindings_.push_back(Binding::param(v));
    values_.push_back(v);
    return v;
  }

  Value constant(TensorType t) {
    ConstantInit init;
    auto st = t.static_shape();
    int64_t count = 1;
    for (int64_t d : st.value()) count *= d;
    if (count <= 6 && c_.chance(1, 2)) {
      init.kind = ConstantInit::Kind::Literal;
      for (int64_t i = 0; i < count; ++i) {
        if (is_float(t.dtype)) {
          init.float_values.push_back(static_cast<double>(c_.range(-8, 8)) / 2);
        } else if (is_bool(t.dtype)) {
          init.int_values.push_back(c_.range(0, 1));
        } else {
          init.int_values.push_back(c_.range(std::max<int64_t>(int_min(t.dtype), -100), std::min<int64_t>(int_max(t.dtype), 100)));
        }
      }
    } else if (is_float(t.dtype) && c_.chance(1, 2)) {
      init.kind = ConstantInit::Kind::Normal;
      init.p0 = 0;
      init.p1 = c_.pick(std::vector<double>{1, 0.5, 0.02});
      init.seed = c_.below(1000);
    } else {
      init.kind = ConstantInit::Kind::Uniform;
      if (is_float(t.dtype)) {
        init.p0 = c_.pick(std::vector<double>{-1, 0, 0.5});
        init.p1 = init.p0 + c_.pick(std::vector<double>{1, 2, 0.25});
      } else {
        init.p0 = (is_bool(t.dtype) || is_unsigned_int(t.dtype)) ? 0 : c_.pick(std::vector<double>{0, -3});
        init.p1 = is_bool(t.dtype) ? 1 : init.p0 + c_.pick(std::vector<double>{1, 7});
      }
      init.seed = c_.below(1000);
    }
    Value v = Value::make(fmt::format("c{}", consts_++), std::move(t));
    bindings_.push_back(Binding::constant(v, std::move(init)));
    values_.push_back(v);
    return v;
  }

  Value fresh(TensorType t) {
    if (t.is_static() && c_.chance(1, 3)) return constant(std::move(t));
    return param(std::move(t));
  }

  // An existing value satisfying `pred` (preferred two times in three), else a fresh one.
  Value operand(const std::function<bool(const TensorType&)>& pred, const std::function<TensorType()>& make) {
    std::vector<Value> candidates;
    for (const auto& v : values_) {
      if (pred(v.type())) candidates.push_back(v);
    }
    if (!candidates.empty() && c_.chance(2, 3)) return c_.pick(candidates);
    return fresh(make());
  }

  Value float_operand(int min_rank, int max_rank = 8) {
    return operand(
        [&](const TensorType& t) { return is_float(t.dtype) && t.rank() >= min_rank && t.rank() <= max_rank; },
        [&] { return TensorType{float_dtype(), shape(std::min(rank(min_rank), std::max(min_rank, max_rank)))}; });
  }

  Value typed_operand(DType dt, int min_rank) {
    return operand([&](const TensorType& t) { return t.dtype == dt && t.rank() >= min_rank; },
                   [&] { return TensorType{dt, shape(rank(min_rank))}; });
  }

  // A fresh operand of dtype `dt` whose shape broadcasts against `s`.
  Value broadcast_partner(const std::vector<sym::Expr>& s, DType dt) {
    const size_t keep = static_cast<size_t>(c_.range(0, static_cast<int64_t>(s.size())));
    std::vector<sym::Expr> b(s.end() - static_cast<std::ptrdiff_t>(keep), s.end());
    for (auto& d : b) {
      if (c_.chance(1, 3)) d = 1;
    }
    return fresh(TensorType{dt, b});
  }

  // ------------------------------------------------------------------------- emitting

  bool call(const std::string& name, std::vector<Value> args, AttrList attrs) {
    const OpDef* op = OpRegistry::get().find(name);
    DT_CHECK(op != nullptr, fmt::format("generator recipe for unknown op {}", name));
    try {
      Attrs a = make_attrs(*op, attrs);
      std::vector<TensorType> in;
      for (const auto& v : args) in.push_back(v.type());
      std::vector<TensorType> types = infer_types(*op, in, a, ranges_);
      for (const auto& t : types) {
        if (!small_enough(t)) return false;
      }
      std::vector<Value> results;
      for (auto& t : types) results.push_back(Value::make(std::to_string(results_++), std::move(t)));
      bindings_.push_back(Binding::call(results, op, args, std::move(a)));
      for (const auto& v : args) used_.insert(v.get());
      for (const auto& v : results) {
        values_.push_back(v);
        produced_by_call_.insert(v.get());
      }
      return true;
    } catch (const UserError&) {
      return false;
    }
  }

  AttrValue acc_for(DType t) {
    if (!is_float(t) || c_.chance(1, 2)) return std::monostate{};
    if (t == DType::f64) return DType::f64;
    return c_.chance(1, 2) ? DType::f32 : DType::f64;
  }

  int64_t axis_of(int r) { return r == 0 ? 0 : c_.range(-r, r - 1); }

  // ------------------------------------------------------------------------- recipes

  bool unary_float(const std::string& name) {
    Value x = float_operand(0);
    AttrList attrs;
    if (name == "gelu" && c_.chance(1, 2)) attrs.emplace_back("approximate", std::string("tanh"));
    if (name == "leaky_relu") attrs.emplace_back("alpha", c_.pick(std::vector<double>{0.01, 0.2}));
    return call(name, {x}, attrs);
  }

  bool unary_signed(const std::string& name) {
    DType dt = c_.chance(1, 2) ? float_dtype() : c_.pick(std::vector<DType>{DType::i32, DType::i64, DType::i8});
    return call(name, {typed_operand(dt, 0)}, {});
  }

  bool clip(const std::string& name) {
    DType dt = numeric_dtype();
    double lo = static_cast<double>(c_.range(-2, 1));
    return call(name, {typed_operand(dt, 0)}, {{"min", lo}, {"max", lo + static_cast<double>(c_.range(0, 3))}});
  }

  bool binary_numeric(const std::string& name) { return binary(name, numeric_dtype()); }
  bool binary_float(const std::string& name) { return binary(name, float_dtype()); }
  bool binary_bool(const std::string& name) { return binary(name, DType::boolean); }

  bool binary(const std::string& name, DType dt) {
    Value a = typed_operand(dt, 0);
    Value b = c_.chance(1, 4) ? a : broadcast_partner(a.type().shape, dt);
    if (c_.chance(1, 2)) std::swap(a, b);
    return call(name, {a, b}, {});
  }

  bool logical_not(const std::string& name) { return call(name, {typed_operand(DType::boolean, 0)}, {}); }

  bool where(const std::string& name) {
    DType dt = numeric_dtype();
    Value a = typed_operand(dt, 0);
    Value cond = c_.chance(1, 2) ? fresh(TensorType{DType::boolean, a.type().shape})
                                 : broadcast_partner(a.type().shape, DType::boolean);
    Value b = broadcast_partner(a.type().shape, dt);
    return call(name, {cond, a, b}, {});
  }

  bool cast(const std::string& name) {
    Value x = operand([](const TensorType&) { return true; }, [&] { return TensorType{numeric_dtype(), shape(rank())}; });
    DType to = c_.chance(1, 6) ? DType::boolean : numeric_dtype();
    return call(name, {x}, {{"dtype", to}});
  }

  bool reduction(const std::string& name) {
    const bool float_only = name == "mean";
    Value x = float_only ? float_operand(1)
                         : operand([](const TensorType& t) { return !is_bool(t.dtype) && t.rank() >= 1; },
                                   [&] { return TensorType{numeric_dtype(), shape(rank(1))}; });
    AttrList attrs;
    const int r = x.type().rank();
    if (name == "argmax" || name == "argmin") {
      attrs.emplace_back("axis", axis_of(r));
    } else {
      std::vector<sym::Expr> axes;
      for (int i = 0; i < r; ++i) {
        if (c_.chance(1, 2)) axes.push_back(c_.chance(1, 2) ? i : i - r);
      }
      attrs.emplace_back("axes", axes);
      if (name == "sum" || name == "mean" || name == "prod") attrs.emplace_back("acc", acc_for(x.type().dtype));
    }
    attrs.emplace_back("keepdims", c_.chance(1, 2));
    return call(name, {x}, attrs);
  }

  bool matmul(const std::string& name) {
    Value a = float_operand(2);
    const auto& s = a.type().shape;
    const bool ta = c_.chance(1, 4), tb = c_.chance(1, 2);
    const sym::Expr k = ta ? s[s.size() - 2] : s.back();
    const sym::Expr n = dim();
    std::vector<sym::Expr> bs = tb ? std::vector<sym::Expr>{n, k} : std::vector<sym::Expr>{k, n};
    Value b = fresh(TensorType{a.type().dtype, bs});
    return call(name, {a, b}, {{"transpose_a", ta}, {"transpose_b", tb}, {"acc", acc_for(a.type().dtype)}});
  }

  bool linear(const std::string& name) {
    Value x = float_operand(1);
    const sym::Expr n = dim();
    Value w = fresh(TensorType{x.type().dtype, {n, x.type().shape.back()}});
    std::vector<Value> args = {x, w};
    if (c_.chance(1, 2)) args.push_back(fresh(TensorType{x.type().dtype, {n}}));
    return call(name, args, {{"acc", acc_for(x.type().dtype)}});
  }

  bool softmax(const std::string& name) {
    Value x = float_operand(1);
    return call(name, {x}, {{"axis", axis_of(x.type().rank())}, {"acc", acc_for(x.type().dtype)}});
  }

  bool norm(const std::string& name) {
    Value x = float_operand(1);
    const int64_t axis = axis_of(x.type().rank());
    const sym::Expr& d = x.type().shape[static_cast<size_t>(axis < 0 ? axis + x.type().rank() : axis)];
    std::vector<Value> args = {x, fresh(TensorType{x.type().dtype, {d}})};
    AttrList attrs = {{"axis", axis}, {"eps", c_.pick(std::vector<double>{1e-5, 1e-6})}, {"acc", acc_for(x.type().dtype)}};
    if (name == "layer_norm") {
      args.push_back(fresh(TensorType{x.type().dtype, {d}}));
    } else {
      attrs.emplace_back("weight_offset", c_.chance(1, 2) ? 0.0 : 1.0);
    }
    return call(name, args, attrs);
  }

  bool channel_norm(const std::string& name) {
    const bool grouped = name == "group_norm";
    const int64_t g = grouped ? c_.pick(std::vector<int64_t>{1, 2}) : 1;
    const int64_t c = g * const_dim();
    std::vector<sym::Expr> s = {dim(), c, dim()};
    if (c_.chance(1, 3)) s.push_back(dim());
    Value x = fresh(TensorType{float_dtype(), s});
    AttrList attrs = {{"acc", acc_for(x.type().dtype)}};
    if (grouped) attrs.emplace_back("num_groups", g);
    return call(name, {x, fresh(TensorType{x.type().dtype, {c}}), fresh(TensorType{x.type().dtype, {c}})}, attrs);
  }

  bool reshape(const std::string& name) {
    Value x = operand([](const TensorType& t) { return t.rank() >= 1; },
                      [&] { return TensorType{numeric_dtype(), shape(rank(1))}; });
    const auto& s = x.type().shape;
    std::vector<sym::Expr> target;
    const int choice = static_cast<int>(c_.below(3));
    if (choice == 0 || s.size() < 2) {
      target = {sym::Expr(-1)};
    } else if (choice == 1) {
      target.assign(s.begin(), s.end() - 2);
      target.push_back(sym::simplify(s[s.size() - 2] * s.back(), ranges_));
    } else {
      target = s;
      target.insert(target.begin() + static_cast<std::ptrdiff_t>(c_.below(s.size() + 1)), sym::Expr(1));
    }
    return call(name, {x}, {{"shape", target}});
  }

  bool permute_dims(const std::string& name) {
    Value x = operand([](const TensorType&) { return true; }, [&] { return TensorType{numeric_dtype(), shape(rank())}; });
    std::vector<int64_t> axes;
    if (c_.chance(2, 3)) {
      for (int i = 0; i < x.type().rank(); ++i) axes.push_back(i);
      for (size_t i = axes.size(); i > 1; --i) std::swap(axes[i - 1], axes[c_.below(i)]);
    }
    return call(name, {x}, {{"axes", axes}});
  }

  bool broadcast_to(const std::string& name) {
    std::vector<sym::Expr> target = shape(rank(1));
    std::vector<sym::Expr> src(target.begin() + static_cast<std::ptrdiff_t>(c_.below(target.size())), target.end());
    for (auto& d : src) {
      if (c_.chance(1, 2)) d = 1;
    }
    return call(name, {fresh(TensorType{numeric_dtype(), src})}, {{"shape", target}});
  }

  bool concat(const std::string& name) {
    Value x = operand([](const TensorType& t) { return t.rank() >= 1; },
                      [&] { return TensorType{numeric_dtype(), shape(rank(1))}; });
    const int64_t axis = axis_of(x.type().rank());
    std::vector<Value> args = {x};
    const int more = static_cast<int>(c_.range(0, 2));
    for (int i = 0; i < more; ++i) {
      TensorType t = x.type();
      t.shape[static_cast<size_t>(axis < 0 ? axis + t.rank() : axis)] = dim();
      args.push_back(fresh(t));
    }
    return call(name, args, {{"axis", axis}});
  }

  bool split(const std::string& name) {
    std::vector<sym::Expr> s = shape(rank(1));
    const size_t axis = c_.below(s.size());
    const int64_t parts = c_.range(1, 3);
    s[axis] = parts * const_dim();
    Value x = fresh(TensorType{numeric_dtype(), s});
    AttrList attrs = {{"axis", static_cast<int64_t>(axis)}};
    if (c_.chance(1, 2)) {
      attrs.emplace_back("sections", parts);
    } else {
      const int64_t total = s[axis].value();
      std::vector<int64_t> idx;
      for (int64_t i = 1; i < total; ++i) {
        if (c_.chance(1, 3)) idx.push_back(i);
      }
      if (idx.empty()) return false;
      attrs.emplace_back("indices", idx);
    }
    return call(name, {x}, attrs);
  }

  bool strided_slice(const std::string& name) {
    Value x = operand([](const TensorType& t) { return t.rank() >= 1; },
                      [&] { return TensorType{numeric_dtype(), shape(rank(1))}; });
    const int64_t axis = c_.range(0, x.type().rank() - 1);
    const int64_t step = c_.pick(std::vector<int64_t>{1, 1, 2, -1});
    const int64_t begin = step > 0 ? c_.pick(std::vector<int64_t>{0, 1, -2}) : c_.pick(std::vector<int64_t>{-1, kBigEnd});
    const int64_t end = step > 0 ? c_.pick(std::vector<int64_t>{kBigEnd, -1}) : c_.pick(std::vector<int64_t>{0, -kBigEnd});
    return call(name, {x},
                {{"axes", std::vector<int64_t>{axis}},
                 {"begin", std::vector<sym::Expr>{begin}},
                 {"end", std::vector<sym::Expr>{end}},
                 {"strides", std::vector<int64_t>{step}}});
  }

  bool squeeze(const std::string& name) {
    std::vector<sym::Expr> s = shape(rank(1));
    const size_t at = c_.below(s.size());
    s[at] = 1;
    Value x = fresh(TensorType{numeric_dtype(), s});
    std::vector<int64_t> axes;
    if (c_.chance(1, 2)) axes.push_back(static_cast<int64_t>(at));
    return call(name, {x}, {{"axes", axes}});
  }

  bool expand_dims(const std::string& name) {
    Value x = operand([](const TensorType& t) { return t.rank() < 8; },
                      [&] { return TensorType{numeric_dtype(), shape(rank())}; });
    const int r = x.type().rank() + 1;
    return call(name, {x}, {{"axis", c_.range(-r, r - 1)}});
  }

  bool take(const std::string& name) {
    Value x = operand([](const TensorType& t) { return t.rank() >= 1; },
                      [&] { return TensorType{numeric_dtype(), shape(rank(1))}; });
    Value idx = fresh(TensorType{c_.chance(1, 2) ? DType::i32 : DType::i64, shape(rank(0) % 3)});
    return call(name, {x, idx},
                {{"axis", axis_of(x.type().rank())}, {"mode", std::string(c_.chance(1, 2) ? "clip" : "wrap")}});
  }

  bool slice_scatter(const std::string& name) {
    Value x = operand([](const TensorType& t) { return t.rank() >= 1; },
                      [&] { return TensorType{numeric_dtype(), shape(rank(1))}; });
    const int64_t axis = c_.range(0, x.type().rank() - 1);
    const sym::Expr begin = c_.pick(std::vector<int64_t>{0, 1});
    const sym::Expr end = c_.pick(std::vector<int64_t>{kBigEnd, -1});
    const int64_t step = c_.range(1, 2);
    // The src type is what strided_slice infers for the same slice.
    const OpDef* slice = OpRegistry::get().find("strided_slice");
    try {
      Attrs sa = make_attrs(*slice, {{"axes", std::vector<int64_t>{axis}},
                                     {"begin", std::vector<sym::Expr>{begin}},
                                     {"end", std::vector<sym::Expr>{end}},
                                     {"strides", std::vector<int64_t>{step}}});
      TensorType src = infer_types(*slice, {x.type()}, sa, ranges_).front();
      if (!small_enough(src)) return false;
      return call(name, {x, fresh(src)}, {{"axis", axis}, {"begin", begin}, {"end", end}, {"step", step}});
    } catch (const UserError&) {
      return false;
    }
  }

  bool repeat(const std::string& name) {
    Value x = operand([](const TensorType& t) { return t.rank() >= 1; },
                      [&] { return TensorType{numeric_dtype(), shape(rank(1))}; });
    return call(name, {x}, {{"repeats", c_.range(1, 3)}, {"axis", axis_of(x.type().rank())}});
  }

  bool triangle(const std::string& name) {
    Value x = operand([](const TensorType& t) { return t.rank() >= 2; },
                      [&] { return TensorType{numeric_dtype(), shape(rank(2))}; });
    return call(name, {x}, {{"k", c_.range(-2, 2)}});
  }

  bool arange(const std::string& name) {
    const int64_t start = c_.range(0, 1);
    const int64_t step = c_.pick(std::vector<int64_t>{1, 1, 2});
    return call(name, {},
                {{"start", sym::Expr(start)},
                 {"end", sym::simplify(dim() + 2, ranges_)},
                 {"step", step},
                 {"dtype", c_.pick(std::vector<DType>{DType::i64, DType::i32, DType::f32})}});
  }

  bool fill(const std::string& name) {
    const DType dt = c_.chance(1, 6) ? DType::boolean : numeric_dtype();
    AttrList attrs = {{"shape", shape(rank())}, {"dtype", dt}};
    if (name == "full") attrs.emplace_back("value", is_bool(dt) ? 1.0 : static_cast<double>(c_.range(-3, 3)));
    if (name == "ones" && is_bool(dt)) return false;
    return call(name, {}, attrs);
  }

  bool mask(const std::string& name) {
    AttrList attrs = {{"q_len", dim()}, {"kv_len", dim()}};
    if (name == "sliding_window_mask") {
      attrs.emplace_back("window", c_.pick(std::vector<int64_t>{1, 2, 3, 8, 512}));
      attrs.emplace_back("sink", c_.range(0, 2));
    }
    if (c_.chance(1, 3)) attrs.emplace_back("offset", dim());
    return call(name, {}, attrs);
  }

  bool attention(const std::string& name) {
    const DType dt = float_dtype();
    const sym::Expr b = c_.range(1, 2), sq = dim(), skv = dim();
    const int64_t hkv = c_.range(1, 2), hq = hkv * c_.pick(std::vector<int64_t>{1, 2, 4});
    const int64_t d = c_.pick(std::vector<int64_t>{2, 4, 8});
    std::vector<Value> args = {fresh(TensorType{dt, {b, sq, hq, d}}), fresh(TensorType{dt, {b, skv, hkv, d}}),
                               fresh(TensorType{dt, {b, skv, hkv, c_.pick(std::vector<int64_t>{2, 4})}})};
    if (c_.chance(1, 3)) args.push_back(fresh(TensorType{DType::boolean, {sq, skv}}));
    AttrList attrs = {{"causal", c_.chance(1, 2)}, {"acc", acc_for(dt)}};
    if (c_.chance(1, 2)) attrs.emplace_back("window", c_.range(1, 4));
    if (c_.chance(1, 3)) attrs.emplace_back("sink", c_.range(0, 2));
    if (c_.chance(1, 3)) attrs.emplace_back("scale", 0.0625);
    if (c_.chance(1, 3)) attrs.emplace_back("softcap", 50.0);
    return call(name, args, attrs);
  }

  bool rope(const std::string& name) {
    Value x = fresh(TensorType{float_dtype(), {c_.range(1, 2), dim(), c_.range(1, 2), 2 * const_dim()}});
    AttrList attrs = {{"theta", c_.chance(1, 2) ? 10000.0 : 1000000.0},
                      {"style", std::string(c_.chance(1, 2) ? "neox" : "interleaved")}};
    if (c_.chance(1, 3)) attrs.emplace_back("offset", dim());
    return call(name, {x}, attrs);
  }

  std::string format() { return c_.pick(std::vector<std::string>{"q4f16_1", "q4f32_1", "q4_0"}); }

  bool quantize(const std::string& name) {
    const std::string f = format();
    const int64_t blocks = c_.range(1, 3);
    const int64_t k = f == "q4_0" ? 32 * blocks : c_.pick(std::vector<int64_t>{32 * blocks, 40, 8});
    const int64_t group = f == "q4_0" ? 32 : c_.pick(std::vector<int64_t>{32, 8});
    Value w = fresh(TensorType{float_dtype(), {dim(), k}});
    return call(name, {w}, {{"format", f}, {"group", group}});
  }

  bool dequantize(const std::string& name) {
    const std::string f = format();
    const sym::Expr n = dim();
    const int64_t groups = c_.range(1, 3);
    if (f == "q4_0") {
      return call(name, {fresh(TensorType{DType::u8, {n, 16 * groups}}), fresh(TensorType{DType::f16, {n, groups}})},
                  {{"format", f}, {"group", int64_t{32}}});
    }
    const DType scale = f == "q4f16_1" ? DType::f16 : DType::f32;
    AttrList attrs = {{"format", f}, {"group", int64_t{32}}};
    if (c_.chance(1, 3)) attrs.emplace_back("k", sym::Expr(32 * groups - 8));
    return call(name, {fresh(TensorType{DType::u32, {n, 4 * groups}}), fresh(TensorType{scale, {n, groups}})}, attrs);
  }

  bool conv(const std::string& name) {
    const DType dt = float_dtype();
    const int64_t g = c_.pick(std::vector<int64_t>{1, 1, 2});
    const int64_t cin = g * c_.range(1, 3), cout = g * c_.range(1, 3);
    const int64_t kernel = c_.range(1, 3);
    const int64_t stride = c_.range(1, 2), padding = c_.range(0, 1), dilation = c_.range(1, 2);
    AttrList attrs = {{"groups", g}, {"acc", acc_for(dt)}};
    std::vector<Value> args;
    if (name == "conv2d") {
      args = {fresh(TensorType{dt, {c_.range(1, 2), cin, dim(), dim()}}),
              fresh(TensorType{dt, {cout, cin / g, kernel, kernel}})};
      attrs.emplace_back("stride", std::vector<int64_t>{stride, stride});
      attrs.emplace_back("padding", std::vector<int64_t>{padding, padding});
      attrs.emplace_back("dilation", std::vector<int64_t>{dilation, 1});
    } else if (name == "conv_transpose1d") {
      args = {fresh(TensorType{dt, {c_.range(1, 2), cin, dim()}}), fresh(TensorType{dt, {cin, cout / g, kernel}})};
      attrs.emplace_back("stride", stride);
      attrs.emplace_back("padding", padding);
      attrs.emplace_back("dilation", dilation);
      attrs.emplace_back("output_padding", c_.range(0, std::max(stride, dilation) - 1));
    } else {
      args = {fresh(TensorType{dt, {c_.range(1, 2), cin, dim()}}), fresh(TensorType{dt, {cout, cin / g, kernel}})};
      attrs.emplace_back("stride", stride);
      attrs.emplace_back("padding", padding);
      attrs.emplace_back("dilation", dilation);
    }
    if (c_.chance(1, 2)) args.push_back(fresh(TensorType{dt, {cout}}));
    return call(name, args, attrs);
  }

  bool upsample(const std::string& name) {
    Value x = float_operand(3, 3);
    return call(name, {x}, {{"scale", c_.range(1, 3)}});
  }

  static const std::vector<std::pair<std::string, Recipe>>& recipe_table() {
    static const std::vector<std::pair<std::string, Recipe>> table = [] {
      std::vector<std::pair<std::string, Recipe>> t;
      for (const char* n : {"exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "silu", "gelu", "erf", "sin", "cos",
                            "floor", "round", "leaky_relu"}) {
        t.emplace_back(n, &Gen::unary_float);
      }
      for (const char* n : {"neg", "abs", "relu"}) t.emplace_back(n, &Gen::unary_signed);
      t.emplace_back("clip", &Gen::clip);
      for (const char* n : {"add", "sub", "mul", "maximum", "minimum", "floor_divide", "floor_mod", "equal",
                            "not_equal", "less", "less_equal", "greater", "greater_equal"}) {
        t.emplace_back(n, &Gen::binary_numeric);
      }
      for (const char* n : {"div", "pow", "atan2"}) t.emplace_back(n, &Gen::binary_float);
      for (const char* n : {"logical_and", "logical_or", "logical_xor"}) t.emplace_back(n, &Gen::binary_bool);
      t.emplace_back("logical_not", &Gen::logical_not);
      t.emplace_back("where", &Gen::where);
      t.emplace_back("cast", &Gen::cast);
      for (const char* n : {"sum", "mean", "prod", "max", "min", "argmax", "argmin"}) t.emplace_back(n, &Gen::reduction);
      t.emplace_back("matmul", &Gen::matmul);
      t.emplace_back("linear", &Gen::linear);
      for (const char* n : {"softmax", "log_softmax"}) t.emplace_back(n, &Gen::softmax);
      for (const char* n : {"rms_norm", "layer_norm"}) t.emplace_back(n, &Gen::norm);
      for (const char* n : {"group_norm", "instance_norm"}) t.emplace_back(n, &Gen::channel_norm);
      t.emplace_back("reshape", &Gen::reshape);
      t.emplace_back("permute_dims", &Gen::permute_dims);
      t.emplace_back("broadcast_to", &Gen::broadcast_to);
      t.emplace_back("concat", &Gen::concat);
      t.emplace_back("split", &Gen::split);
      t.emplace_back("strided_slice", &Gen::strided_slice);
      t.emplace_back("squeeze", &Gen::squeeze);
      t.emplace_back("expand_dims", &Gen::expand_dims);
      t.emplace_back("take", &Gen::take);
      t.emplace_back("slice_scatter", &Gen::slice_scatter);
      t.emplace_back("repeat", &Gen::repeat);
      for (const char* n : {"tril", "triu"}) t.emplace_back(n, &Gen::triangle);
      t.emplace_back("arange", &Gen::arange);
      for (const char* n : {"full", "zeros", "ones"}) t.emplace_back(n, &Gen::fill);
      for (const char* n : {"causal_mask", "sliding_window_mask"}) t.emplace_back(n, &Gen::mask);
      t.emplace_back("attention", &Gen::attention);
      t.emplace_back("rope", &Gen::rope);
      t.emplace_back("quantize", &Gen::quantize);
      t.emplace_back("dequantize", &Gen::dequantize);
      for (const char* n : {"conv1d", "conv2d", "conv_transpose1d"}) t.emplace_back(n, &Gen::conv);
      t.emplace_back("upsample_nearest1d", &Gen::upsample);
      return t;
    }();
    return table;
  }

  ChoiceSource& c_;
  GeneratorOptions o_;
  std::vector<DimVar> dims_;
  sym::Ranges ranges_;
  std::vector<sym::Expr> pool_;
  std::vector<Binding> bindings_;
  std::vector<Value> values_;
  std::set<const ValueNode*> used_;
  std::set<const ValueNode*> produced_by_call_;
  int params_ = 0, consts_ = 0, results_ = 0;
};

}  // namespace

Program generate_program(ChoiceSource& choices, const GeneratorOptions& options) {
  return Gen(choices, options).run();
}

Program generate_program(uint64_t seed, const GeneratorOptions& options) {
  PcgChoices choices(seed);
  return generate_program(choices, options);
}

}  // namespace difftest
