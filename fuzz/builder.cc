#include "fuzz/builder.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "compiler/sym/sym_simplify.h"
#include "compiler/ops/op.h"

namespace difftest::fuzz {

namespace {

bool takes_positive_first(const std::string& op) { return op == "log" || op == "sqrt" || op == "rsqrt" || op == "pow"; }
bool takes_divisor_second(const std::string& op) {
  return op == "div" || op == "floor_divide" || op == "floor_mod";
}

size_t norm_axis(int64_t axis, int rank) { return static_cast<size_t>(axis < 0 ? axis + rank : axis); }

// The magnitude of a parameter under the value domain reference/inputs.cc draws it from.
Magnitude param_magnitude(DType dt) {
  if (is_float(dt)) return Magnitude{2, 0, false};
  if (is_bool(dt)) return Magnitude{1, 0, true};
  return Magnitude{is_unsigned_int(dt) ? 15.0 : 8.0, 0, is_unsigned_int(dt)};
}

Magnitude constant_magnitude(const ConstantInit& init, DType dt) {
  if (is_bool(dt)) return Magnitude{1, 0, true};
  if (init.kind == ConstantInit::Kind::Literal) {
    Magnitude m{0, kInf, true};
    auto add = [&](double x) {
      m.abs = std::max(m.abs, std::abs(x));
      m.min_abs = std::min(m.min_abs, std::abs(x));
      m.nonneg = m.nonneg && x >= 0;
    };
    for (double x : init.float_values) add(x);
    for (int64_t x : init.int_values) add(static_cast<double>(x));
    if (m.min_abs == kInf) m.min_abs = 0;
    return m;
  }
  if (init.kind == ConstantInit::Kind::Normal) return Magnitude{std::abs(init.p0) + 8 * init.p1, 0, false};
  const double lo = init.p0, hi = init.p1;
  return Magnitude{std::max(std::abs(lo), std::abs(hi)), lo > 0 ? lo : 0, lo >= 0};
}

}  // namespace

Builder::Builder(ChoiceSource& choices, const GeneratorOptions& options) : c_(choices), o_(options) {}

// ------------------------------------------------------------------------------ dims and types

void Builder::declare_dims() {
  static const char* kNames[] = {"n", "m", "k", "s"};
  const int count = static_cast<int>(c_.range(std::clamp(o_.min_dim_vars, 0, 4), std::clamp(o_.max_dim_vars, 0, 4)));
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
    if (d.range.lo >= 10) pool_.push_back(sym::floordiv(v, 5) - 1);  // >= 1 only because lo >= 10
  }
  if (dims_.size() >= 2) pool_.push_back(sym::Expr::var(dims_[0].name) + sym::Expr::var(dims_[1].name));
}

void Builder::adopt(const Program& p) {
  dims_ = p.dims();
  ranges_ = p.ranges();
  for (int64_t v : {1, 2, 3, 4, 8}) pool_.push_back(v);
  for (const auto& d : dims_) pool_.push_back(sym::Expr::var(d.name));
  for (const auto& b : p.bindings()) {
    for (const auto& v : b.results()) names_.insert(v.name());
    if (b.kind() == BindingKind::Param) {
      mag_[b.result().get()] = param_magnitude(b.result().type().dtype);
      domain_[b.result().get()] = Domain::Other;  // its uses in the template decided its domain
    } else if (b.kind() == BindingKind::Const) {
      mag_[b.result().get()] = constant_magnitude(b.constant(), b.result().type().dtype);
    } else {
      std::vector<Magnitude> in;
      std::vector<TensorType> types;
      for (const auto& a : b.args()) {
        in.push_back(mag_.at(a.get()));
        types.push_back(a.type());
        used_.insert(a.get());
      }
      const double t = terms(b.op(), b.attrs(), types);
      for (const auto& r : b.results()) {
        mag_[r.get()] = result_magnitude(b.op(), b.attrs(), in, t, r.type().dtype);
        produced_by_call_.insert(r.get());
      }
    }
    bindings_.push_back(b);
    for (const auto& v : b.results()) values_.push_back(v);
  }
  for (const auto& v : p.outputs()) used_.erase(v.get());  // the template's outputs stay outputs
}

Program Builder::finish(const std::string& name) {
  std::vector<Value> outputs;
  for (const auto& v : values_) {
    if (!used_.count(v.get()) && produced_by_call_.count(v.get())) outputs.push_back(v);
  }
  if (outputs.empty()) {
    // Every call was dropped. The fresh operands of dropped calls may be too large to evaluate
    // (that is why they were dropped): return the last value within max_elements.
    const auto within = std::find_if(values_.rbegin(), values_.rend(),
                                     [&](const Value& v) { return small_enough(v.type()); });
    outputs.push_back(within != values_.rend() ? *within : param(TensorType{DType::f32, {sym::Expr(2)}}));
  }
  // Parameters and constants made for calls that were then dropped feed nothing: leave them out.
  std::set<const ValueNode*> keep(used_);
  for (const auto& v : outputs) keep.insert(v.get());
  std::vector<Binding> bindings;
  for (const auto& b : bindings_) {
    if (b.is_call() || keep.count(b.result().get())) bindings.push_back(b);
  }
  return Program::make(name, dims_, bindings, outputs);
}

sym::Expr Builder::dim() { return sym::simplify(c_.pick(pool_), ranges_); }
int64_t Builder::const_dim() { return c_.pick(std::vector<int64_t>{1, 2, 3, 4, 6, 8}); }

std::vector<sym::Expr> Builder::shape(int rank) {
  std::vector<sym::Expr> s;
  for (int i = 0; i < rank; ++i) s.push_back(dim());
  return s;
}

int Builder::rank(int min_rank) { return static_cast<int>(c_.range(min_rank, std::max(min_rank, o_.max_rank))); }

DType Builder::float_dtype() { return c_.pick(o_.float_dtypes); }
DType Builder::float_dtype_for(const std::string& op) {
  const auto only = o_.op_float_dtypes.find(op);
  return only == o_.op_float_dtypes.end() ? float_dtype() : c_.pick(only->second);
}
DType Builder::int_dtype() {
  return c_.pick(std::vector<DType>{DType::i32, DType::i64, DType::i8, DType::u8, DType::u32});
}
DType Builder::numeric_dtype() { return c_.chance(2, 3) ? float_dtype() : int_dtype(); }

double Builder::hi(const sym::Expr& e) const {
  const sym::Interval b = sym::bounds(e, ranges_);
  return b.hi_finite() ? static_cast<double>(b.hi) : kInf;
}

double Builder::numel_hi(const TensorType& t) const {
  double n = 1;
  for (const auto& d : t.shape) n *= hi(d);
  return n;
}

bool Builder::small_enough(const TensorType& t) const {
  for (const auto& d : t.shape) {
    if (sym::prove_ge(d, 1, ranges_) != sym::Truth::True) return false;
  }
  return numel_hi(t) <= static_cast<double>(o_.max_elements);
}

// ------------------------------------------------------------------------------ values

Value Builder::param(TensorType t) {
  std::string name;
  do name = fmt::format("p{}", params_++);
  while (names_.count(name));
  names_.insert(name);
  Value v = Value::make(name, std::move(t));
  bindings_.push_back(Binding::param(v));
  values_.push_back(v);
  mag_[v.get()] = param_magnitude(v.type().dtype);
  domain_[v.get()] = Domain::Unclaimed;
  return v;
}

Value Builder::constant(TensorType t) {
  ConstantInit init;
  int64_t count = 1;
  const std::vector<int64_t> dims = t.static_shape().value();
  for (int64_t d : dims) count *= d;
  if (count <= 6 && c_.chance(1, 2)) {
    init.kind = ConstantInit::Kind::Literal;
    for (int64_t i = 0; i < count; ++i) {
      if (is_float(t.dtype)) {
        init.float_values.push_back(c_.chance(1, 4) ? special_value(t.dtype) : static_cast<double>(c_.range(-8, 8)) / 2);
      } else if (is_bool(t.dtype)) {
        init.int_values.push_back(c_.range(0, 1));
      } else {
        init.int_values.push_back(
            c_.range(std::max<int64_t>(int_min(t.dtype), -100), std::min<int64_t>(int_max(t.dtype), 100)));
      }
    }
  } else if (is_float(t.dtype) && c_.chance(1, 2)) {
    init.kind = ConstantInit::Kind::Normal;
    init.p0 = 0;
    init.p1 = c_.pick(std::vector<double>{1, 0.5, 0.1, 0.02});
    init.seed = c_.below(1000);
  } else {
    init.kind = ConstantInit::Kind::Uniform;
    if (is_float(t.dtype)) {
      if (c_.chance(1, 5)) {  // a norm's gain: 1 give or take a tenth
        init.p0 = 0.9;
        init.p1 = 1.1;
      } else {
        init.p0 = c_.pick(std::vector<double>{-1, 0, 0.5});
        init.p1 = init.p0 + c_.pick(std::vector<double>{1, 2, 0.25});
      }
    } else {
      init.p0 = (is_bool(t.dtype) || is_unsigned_int(t.dtype)) ? 0 : c_.pick(std::vector<double>{0, -3});
      init.p1 = is_bool(t.dtype) ? 1 : init.p0 + c_.pick(std::vector<double>{1, 7});
    }
    init.seed = c_.below(1000);
  }
  return add_constant(std::move(t), std::move(init));
}

double Builder::special_value(DType t) {
  const double subnormal = t == DType::f16 ? 0x1p-20 : t == DType::f64 ? 0x1p-1060 : 0x1p-135;
  const double sign = c_.chance(1, 2) ? -1 : 1;
  switch (c_.below(5)) {
    case 0: return -0.0;
    case 1: return sign * (static_cast<double>(c_.range(0, 7)) + 0.5);  // a rounding tie
    case 2: return sign * std::ldexp(static_cast<double>(c_.range(8, 15)), static_cast<int>(c_.range(1, 6)));  // 16..960
    case 3: return sign * std::ldexp(static_cast<double>(c_.range(8, 15)), -static_cast<int>(c_.range(8, 13)));  // tiny
    default: return sign * subnormal * static_cast<double>(c_.range(1, 7));
  }
}

Value Builder::add_constant(TensorType t, ConstantInit init) {
  std::string name;
  do name = fmt::format("c{}", consts_++);
  while (names_.count(name));
  names_.insert(name);
  Value v = Value::make(name, std::move(t));
  mag_[v.get()] = constant_magnitude(init, v.type().dtype);
  bindings_.push_back(Binding::constant(v, std::move(init)));
  values_.push_back(v);
  return v;
}

Value Builder::scalar(DType dt, double value) {
  ConstantInit init;
  init.kind = ConstantInit::Kind::Literal;
  if (is_float(dt)) {
    init.float_values = {value};
  } else {
    init.int_values = {static_cast<int64_t>(value)};
  }
  return add_constant(TensorType{dt, {}}, std::move(init));
}

Value Builder::fresh(TensorType t) {
  if (t.is_static() && c_.chance(1, 3)) return constant(std::move(t));
  return param(std::move(t));
}

Value Builder::packed_words(TensorType t) {
  if (!t.is_static() || !c_.chance(1, 3)) return param(std::move(t));
  ConstantInit init;
  init.kind = ConstantInit::Kind::Uniform;
  init.p0 = 0;
  init.p1 = static_cast<double>(int_max(t.dtype));
  init.seed = c_.below(1000);
  return add_constant(std::move(t), std::move(init));
}

Value Builder::operand(const std::function<bool(const TensorType&)>& pred, const std::function<TensorType()>& make) {
  std::vector<Value> candidates;
  for (const auto& v : values_) {
    if (pred(v.type())) candidates.push_back(v);
  }
  if (!candidates.empty() && c_.chance(2, 3)) return c_.pick(candidates);
  return fresh(make());
}

Value Builder::float_operand(int min_rank, int max_rank) {
  return operand(
      [&](const TensorType& t) { return is_float(t.dtype) && t.rank() >= min_rank && t.rank() <= max_rank; },
      [&] { return TensorType{float_dtype(), shape(std::min(rank(min_rank), std::max(min_rank, max_rank)))}; });
}

Value Builder::typed_operand(DType dt, int min_rank) {
  return operand([&](const TensorType& t) { return t.dtype == dt && t.rank() >= min_rank; },
                 [&] { return TensorType{dt, shape(rank(min_rank))}; });
}

Value Builder::broadcast_partner(const std::vector<sym::Expr>& s, DType dt) {
  const size_t keep = static_cast<size_t>(c_.range(0, static_cast<int64_t>(s.size())));
  std::vector<sym::Expr> b(s.end() - static_cast<std::ptrdiff_t>(keep), s.end());
  for (auto& d : b) {
    if (c_.chance(1, 3)) d = 1;
  }
  return fresh(TensorType{dt, b});
}

std::pair<Value, Value> Builder::outer_pair(const Value& a, DType dt) {
  const auto& s = a.type().shape;
  const int r = static_cast<int>(s.size());
  // A fresh operand too large to feed the call (which emit will drop) gets no expand_dims of it:
  // that would stay behind as an output as large as the operand.
  if (r + 1 > o_.max_rank || !small_enough(a.type())) return {a, broadcast_partner(s, dt)};
  const int64_t k = c_.range(0, r);
  Value expanded = emit_simple("expand_dims", {a}, {{"axis", k}});
  std::vector<sym::Expr> b = expanded.type().shape;
  b[static_cast<size_t>(k)] = dim();
  std::vector<size_t> others;
  for (size_t i = 0; i < b.size(); ++i) {
    if (static_cast<int64_t>(i) == k) continue;
    others.push_back(i);
    if (c_.chance(1, 2)) b[i] = 1;
  }
  if (!others.empty()) b[c_.pick(others)] = 1;
  if (c_.chance(1, 3)) {
    while (!b.empty() && b.front().is_const(1)) b.erase(b.begin());
  }
  return {expanded, fresh(TensorType{dt, b})};
}

std::vector<sym::Expr> Builder::batch_partner(const std::vector<sym::Expr>& batch) {
  const size_t room = o_.max_rank > 2 ? static_cast<size_t>(o_.max_rank - 2) : 0;
  if (batch.empty()) {
    std::vector<sym::Expr> out;
    const int64_t n = std::min<int64_t>(c_.range(1, 2), static_cast<int64_t>(room));
    for (int64_t i = 0; i < n; ++i) out.push_back(dim());
    return out;
  }
  std::vector<sym::Expr> out = batch;
  switch (c_.below(4)) {
    case 0: break;  // equal batches
    case 1:
      for (auto& d : out) {
        if (c_.chance(1, 2)) d = 1;
      }
      out[c_.below(out.size())] = 1;
      break;
    case 2:
      if (out.size() < room) out.insert(out.begin(), dim());
      break;
    default: out.erase(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(c_.below(out.size()))); break;
  }
  return out;
}

AttrValue Builder::acc_for_op(const std::string& op, DType t) {
  // An accumulator is the dtype the op computes in: a wider one would leave the op's dtypes.
  if (o_.op_float_dtypes.count(op)) return t;
  return acc_for(t);
}

AttrValue Builder::accumulator_for(const std::string& op, DType t) {
  return o_.op_float_dtypes.count(op) ? AttrValue(t) : accumulator(t);
}

AttrValue Builder::accumulator(DType t) {
  if (!is_float(t) || t == DType::f64 || c_.chance(1, 2)) return t;
  return c_.chance(1, 2) ? DType::f32 : DType::f64;
}

AttrValue Builder::acc_for(DType t) {
  // bf16 accumulates wider in practice: with 8 significant bits a bf16 sum stops growing by its
  // terms after a few hundred of them, and a norm that accumulates in bf16 is mostly unchecked
  // (its variance's bound reaches zero). One bf16 call in eight still accumulates in bf16.
  if (!is_float(t) || c_.chance(1, t == DType::bf16 ? 8 : 2)) return std::monostate{};
  if (t == DType::f64) return DType::f64;
  return c_.chance(1, 2) ? DType::f32 : DType::f64;
}

int64_t Builder::axis_of(int r) { return r == 0 ? 0 : c_.range(-r, r - 1); }

// ------------------------------------------------------------------------------ emitting

double Builder::terms(const OpDef& op, const Attrs& a, const std::vector<TensorType>& in) const {
  const std::string& n = op.name;
  if (n == "sum" || n == "mean" || n == "prod" || n == "max" || n == "min") {
    const auto& axes = a.get_ints("axes");
    if (axes.empty()) return numel_hi(in[0]);
    double t = 1;
    for (int64_t ax : axes) t *= hi(in[0].shape[norm_axis(ax, in[0].rank())]);
    return t;
  }
  if (n == "argmax" || n == "argmin" || n == "softmax" || n == "log_softmax" || n == "rms_norm" || n == "layer_norm") {
    return hi(in[0].shape[norm_axis(a.get_int("axis"), in[0].rank())]);
  }
  if (n == "matmul") {
    const auto& s = in[0].shape;
    return hi(a.get_bool("transpose_a") ? s[s.size() - 2] : s.back());
  }
  if (n == "linear" || n == "attention") return hi(in[0].shape.back());
  if (n == "instance_norm" || n == "group_norm") {
    double t = n == "group_norm" ? hi(in[0].shape[1]) / static_cast<double>(a.get_int("num_groups")) : 1;
    for (size_t i = 2; i < in[0].shape.size(); ++i) t *= hi(in[0].shape[i]);
    return t;
  }
  if (n == "conv1d" || n == "conv2d" || n == "conv_transpose1d") return numel_hi(in[1]);
  if (n == "arange") return hi(a.get_sym("end"));
  return 1;
}

// Magnitudes inside the op that its result does not show: sums of squares in the norms, the
// scores of attention. They live in the accumulator dtype.
double Builder::internal_magnitude(const OpDef& op, const Attrs&, const std::vector<Magnitude>& in, double t) const {
  const std::string& n = op.name;
  if (n == "rms_norm" || n == "layer_norm" || n == "group_norm" || n == "instance_norm") return t * in[0].abs * in[0].abs;
  if (n == "attention") return t * in[0].abs * in[1].abs;
  return 0;
}

bool Builder::fits(const OpDef& op, const Attrs& a, const std::vector<Value>& args,
                   const std::vector<TensorType>& types, std::vector<Magnitude>& out) const {
  std::vector<Magnitude> in;
  std::vector<TensorType> in_types;
  for (size_t i = 0; i < args.size(); ++i) {
    Magnitude m = mag_.at(args[i].get());
    const auto d = domain_.find(args[i].get());
    if (d != domain_.end() && d->second == Domain::Unclaimed) {  // this call decides its domain
      if (i == 0 && takes_positive_first(op.name)) m = Magnitude{2, 0.25, true};
      if (i == 1 && takes_divisor_second(op.name)) m = Magnitude{2, 0.5, false};
      if (i == 1 && op.name == "take") m = Magnitude{hi(args[0].type().shape[norm_axis(a.get_int("axis"), args[0].type().rank())]), 0, true};
    }
    in.push_back(m);
    in_types.push_back(args[i].type());
  }
  const double t = terms(op, a, in_types);
  out.clear();
  for (const auto& r : types) {
    out.push_back(result_magnitude(op, a, in, t, r.dtype));
    if (out.back().abs > safe_limit(r.dtype)) return false;
  }
  const auto acc = op.find_attr("acc") ? a.get_opt_dtype("acc") : std::nullopt;
  const DType acc_dtype = acc ? *acc : (args.empty() ? types[0].dtype : args[0].type().dtype);
  return internal_magnitude(op, a, in, t) <= safe_limit(acc_dtype);
}

void Builder::claim_domain(const std::string& op, const std::vector<Value>& args) {
  // Mirrors reference/inputs.cc: the first use that imposes a domain decides a parameter's.
  for (size_t i = 0; i < args.size(); ++i) {
    auto d = domain_.find(args[i].get());
    if (d == domain_.end() || d->second != Domain::Unclaimed) continue;
    if (i == 0 && takes_positive_first(op)) {
      d->second = Domain::Positive;
      mag_[args[i].get()] = Magnitude{2, 0.25, true};
    } else if (i == 1 && takes_divisor_second(op)) {
      d->second = Domain::NonZero;
      mag_[args[i].get()] = Magnitude{2, 0.5, false};
    } else if ((i == 1 && op == "take") || op == "dequantize") {
      d->second = Domain::Other;
      mag_[args[i].get()] = is_float(args[i].type().dtype) ? Magnitude{1, 0, false} : Magnitude{kInf, 0, true};
    }
  }
}

Value Builder::emit(const OpDef& op, std::vector<Value> args, Attrs attrs, std::vector<TensorType> types) {
  std::vector<Magnitude> mags;
  const bool ok = fits(op, attrs, args, types, mags);
  (void)ok;  // guards and squashes are emitted only where they fit by construction
  claim_domain(op.name, args);
  std::vector<Value> results;
  for (size_t i = 0; i < types.size(); ++i) {
    std::string name;
    do name = std::to_string(results_++);
    while (names_.count(name));
    names_.insert(name);
    results.push_back(Value::make(name, std::move(types[i])));
    mag_[results.back().get()] = mags[i];
  }
  for (const auto& v : args) used_.insert(v.get());
  bindings_.push_back(Binding::call(results, &op, std::move(args), std::move(attrs)));
  for (const auto& v : results) {
    values_.push_back(v);
    produced_by_call_.insert(v.get());
  }
  return results.front();
}

Value Builder::emit_simple(const std::string& name, std::vector<Value> args, const AttrList& attrs) {
  const OpDef& op = *OpRegistry::get().find(name);
  Attrs a = make_attrs(op, attrs);
  std::vector<TensorType> in;
  for (const auto& v : args) in.push_back(v.type());
  std::vector<TensorType> types = infer_types(op, in, a, ranges_);
  return emit(op, std::move(args), std::move(a), std::move(types));
}

Value Builder::positive(const Value& v, double floor) {
  const Magnitude& m = mag_.at(v.get());
  if (m.nonneg && m.min_abs >= floor) return v;
  const DType dt = v.type().dtype;
  return emit_simple("add", {emit_simple("abs", {v}, {}), scalar(dt, floor)}, {});
}

Value Builder::squash(const Value& v) {
  const DType dt = v.type().dtype;
  if (is_float(dt)) return emit_simple("tanh", {v}, {});
  const double lo = static_cast<double>(std::max<int64_t>(int_min(dt), -100));
  const double hi = static_cast<double>(std::min<int64_t>(int_max(dt), 100));
  return emit_simple("clip", {v}, {{"min", lo}, {"max", hi}});
}

bool Builder::twin() {
  std::vector<size_t> candidates;
  for (size_t i = 0; i < bindings_.size(); ++i) {
    const Binding& b = bindings_[i];
    if (!b.is_call() || b.results().size() != 1) continue;
    for (const auto& [key, value] : b.attrs().items()) {
      if (std::holds_alternative<bool>(value)) {
        candidates.push_back(i);
        break;
      }
    }
  }
  if (candidates.empty()) return false;
  const Binding original = bindings_[c_.pick(candidates)];
  AttrList attrs(original.attrs().items().begin(), original.attrs().items().end());
  std::vector<size_t> flags;
  for (size_t i = 0; i < attrs.size(); ++i) {
    if (std::holds_alternative<bool>(attrs[i].second)) flags.push_back(i);
  }
  const size_t flip = c_.pick(flags);
  std::vector<Value> args = original.args();
  const std::string& name = original.op().name;
  if (name == "matmul" && (attrs[flip].first == "transpose_a" || attrs[flip].first == "transpose_b")) {
    // x @ W next to x @ W^T needs a square W: its contracted dim twice.
    const size_t side = attrs[flip].first == "transpose_a" ? 0 : 1;
    const auto& s = args[side].type().shape;
    const bool contracted_last = (side == 0) != std::get<bool>(attrs[flip].second);
    const sym::Expr k = contracted_last ? s.back() : s[s.size() - 2];
    if (!(s.back() == s[s.size() - 2])) {
      std::vector<sym::Expr> square(s.begin(), s.end() - 2);
      square.insert(square.end(), {k, k});
      args[side] = fresh(TensorType{args[side].type().dtype, square});
      if (!call(name, args, attrs)) return false;
    }
  }
  attrs[flip].second = !std::get<bool>(attrs[flip].second);
  return call(name, std::move(args), attrs);
}

bool Builder::constant_subexpression() {
  std::vector<std::string> ops;
  for (const char* op : {"add", "sub", "mul", "floor_divide", "floor_mod", "maximum", "minimum"}) {
    if (allowed(op)) ops.push_back(op);
  }
  if (ops.empty()) return false;
  const DType t = c_.chance(1, 2) ? int_dtype() : float_dtype();
  std::vector<sym::Expr> shape = {sym::Expr(const_dim())};
  if (c_.chance(1, 2)) shape.push_back(sym::Expr(const_dim()));
  const std::string op = c_.pick(ops);
  const Value a = constant(TensorType{t, shape});
  const Value b = constant(TensorType{t, shape});
  return call(op, {a, b}, {});
}

bool Builder::allowed(const std::string& op) const {
  const auto w = o_.weights.find(op);
  return w == o_.weights.end() || w->second > 0;
}

std::nullopt_t Builder::dropped(const std::string& reason) const {
  if (o_.drops) ++o_.drops->by_reason[reason];
  return std::nullopt;
}

bool Builder::call(const std::string& name, std::vector<Value> args, const AttrList& attrs) {
  return apply(name, std::move(args), attrs).has_value();
}

std::optional<Value> Builder::apply(const std::string& name, std::vector<Value> args, const AttrList& attrs) {
  const OpDef* op = OpRegistry::get().find(name);
  DT_CHECK(op != nullptr, fmt::format("generator recipe for unknown op {}", name));
  Attrs a;
  std::vector<TensorType> types;
  try {
    a = make_attrs(*op, attrs);
    std::vector<TensorType> in;
    for (const auto& v : args) in.push_back(v.type());
    types = infer_types(*op, in, a, ranges_);
  } catch (const UserError&) {
    return dropped(a.items().empty() && !attrs.empty() ? "attributes" : "types");
  }
  for (const auto& t : types) {
    if (!small_enough(t)) return dropped("too-large");
  }
  for (const auto& v : args) {
    if (!small_enough(v.type())) return dropped("too-large");  // a fresh operand too large to feed
  }
  // Domains: an unclaimed parameter gets the right one from this very use (inputs.cc).
  auto unclaimed = [&](const Value& v) {
    const auto d = domain_.find(v.get());
    return d != domain_.end() && d->second == Domain::Unclaimed;
  };
  if (takes_positive_first(name) && !unclaimed(args[0])) args[0] = positive(args[0], 0.25);
  if (takes_divisor_second(name) && is_float(args[1].type().dtype) && !unclaimed(args[1]) &&
      mag_.at(args[1].get()).min_abs < 0.5) {
    args[1] = positive(args[1], 0.5);
  }
  // An integer divisor that may hold 0 (a constant, a computed value): division by zero is
  // undefined for the formats and compilers that do not wrap (an invalid program there).
  if (takes_divisor_second(name) && is_int(args[1].type().dtype) && !unclaimed(args[1]) &&
      mag_.at(args[1].get()).min_abs < 1) {
    const DType dt = args[1].type().dtype;
    args[1] = is_unsigned_int(dt) ? emit_simple("maximum", {args[1], scalar(dt, 1)}, {}) : positive(args[1], 1);
  }
  if (name == "pow" && mag_.at(args[1].get()).abs > 2) args[1] = emit_simple("clip", {args[1]}, {{"min", -2.0}, {"max", 2.0}});
  std::vector<Magnitude> mags;
  if (!fits(*op, a, args, types, mags)) {
    for (auto& v : args) {
      if (!is_bool(v.type().dtype) && mag_.at(v.get()).abs > 1) v = squash(v);
    }
    if (!fits(*op, a, args, types, mags)) return dropped("magnitude");
  }
  return emit(*op, std::move(args), std::move(a), std::move(types));
}

}  // namespace difftest::fuzz
