// generate_inputs (reference/inputs.h): the domains a program's ops require, the value profiles
// that reach beyond the grid, and the check that keeps the program's values finite under them.
#include <fmt/format.h>

#include <cmath>
#include <set>

#include "compiler/ir/printer.h"
#include "compiler/support/hash.h"
#include "compiler/tensor/constant.h"
#include "reference/inputs.h"
#include "reference/quantize.h"
#include "reference/reference.h"

namespace difftest::reference {

namespace {

enum class Domain { Default, Positive, NonZero, Index, Quantized };

// Which non-finite values an op maps to finite results (docs/ops.md, "Special values").
enum NonFinite : unsigned { kAbsorbsNegInf = 1, kAbsorbsPosInf = 2, kAbsorbsNaN = 4, kAbsorbsAll = 7 };

unsigned absorbed_nonfinite(const std::string& op) {
  constexpr unsigned kInfinities = kAbsorbsNegInf | kAbsorbsPosInf;
  static const std::map<std::string, unsigned> absorbed = {
      {"exp", kAbsorbsNegInf},       {"relu", kAbsorbsNegInf},    {"softmax", kAbsorbsNegInf},
      {"maximum", kAbsorbsNegInf},   {"max", kAbsorbsNegInf},     {"minimum", kAbsorbsPosInf},
      {"min", kAbsorbsPosInf},       {"sigmoid", kInfinities},    {"tanh", kInfinities},
      {"clip", kInfinities},         {"equal", kAbsorbsAll},      {"not_equal", kAbsorbsAll},
      {"less", kAbsorbsAll},         {"less_equal", kAbsorbsAll}, {"greater", kAbsorbsAll},
      {"greater_equal", kAbsorbsAll}};
  auto it = absorbed.find(op);
  return it == absorbed.end() ? 0u : it->second;
}

struct Use {
  Domain domain = Domain::Default;
  int64_t index_limit = 0;           // Index: values in [0, limit)
  const Binding* dequant = nullptr;  // Quantized: the dequantize binding
  unsigned absorbed = kAbsorbsAll;   // what every direct use maps to finite values
  int weight_out_axis = -1;          // >= 0: a dot product's weight, and its output-channel axis
};

// The weight operand of linear, matmul (b) and the convolutions, and its output-channel axis.
int weight_out_axis(const Binding& b, size_t arg) {
  const std::string& op = b.op().name;
  if (arg != 1) return -1;
  const int rank = b.args()[1].type().rank();
  if (op == "linear" || op == "conv1d" || op == "conv2d") return 0;
  if (op == "conv_transpose1d") return 1;
  if (op == "matmul") return b.attrs().get_bool("transpose_b") ? rank - 2 : rank - 1;
  return -1;
}

std::map<const ValueNode*, Use> analyze(const Program& p, const sym::Env& env) {
  std::set<const ValueNode*> params;
  for (const auto& v : p.params()) params.insert(v.get());
  std::map<const ValueNode*, Use> uses;
  auto mark = [&](const Value& v, Use u) {
    if (!params.count(v.get()) || uses[v.get()].domain != Domain::Default) return;
    uses[v.get()].domain = u.domain;
    uses[v.get()].index_limit = u.index_limit;
    uses[v.get()].dequant = u.dequant;
  };
  for (const auto& b : p.bindings()) {
    if (!b.is_call()) continue;
    const std::string& op = b.op().name;
    const auto& a = b.args();
    for (size_t i = 0; i < a.size(); ++i) {
      if (!params.count(a[i].get())) continue;
      Use& u = uses[a[i].get()];
      u.absorbed &= absorbed_nonfinite(op);
      if (const int axis = weight_out_axis(b, i); axis >= 0) u.weight_out_axis = axis;
    }
    if (op == "log" || op == "sqrt" || op == "rsqrt" || op == "pow") mark(a[0], {Domain::Positive});
    if (op == "div" || op == "floor_divide" || op == "floor_mod") mark(a[1], {Domain::NonZero});
    if (op == "take") {
      const auto& xs = a[0].type().shape;
      const int64_t axis = b.attrs().get_int("axis");
      const auto at = static_cast<size_t>(axis < 0 ? axis + static_cast<int64_t>(xs.size()) : axis);
      mark(a[1], {Domain::Index, sym::eval(xs[at], env)});
    }
    if (op == "dequantize" && params.count(a[0].get()) && params.count(a[1].get())) {
      mark(a[0], {Domain::Quantized, 0, &b});
      mark(a[1], {Domain::Quantized, 0, &b});
    }
  }
  return uses;
}

class Stream {
 public:
  Stream(uint64_t seed, const std::string& name) : seed_(seed ^ fnv1a64(name)) {}
  int64_t below(int64_t n) {  // uniform in [0, n)
    const unsigned __int128 x = static_cast<unsigned __int128>(splitmix64(seed_, k_++)) * static_cast<uint64_t>(n);
    return static_cast<int64_t>(x >> 64);
  }
  bool one_in(int64_t n) { return below(n) == 0; }

 private:
  uint64_t seed_;
  uint64_t k_ = 0;
};

// A multiple of 1/8 chosen for the domain, plus an offset in [-1/16, 1/16) with 24 random bits
// (from its own stream, so the grid values stay what they were), which the tensor rounds to its
// dtype: values are exact in the parameter's dtype but not in narrower ones, and sums and
// products of them are inexact, so a wrong rounding of a conversion or an op shows.
double grid_value(Stream& s, Domain d) {
  switch (d) {
    case Domain::Positive: return static_cast<double>(2 + s.below(15)) / 8;  // [1/4, 2]
    case Domain::NonZero: {
      const double m = static_cast<double>(4 + s.below(13)) / 8;  // [1/2, 2]
      return s.below(2) ? m : -m;
    }
    default: return static_cast<double>(s.below(33) - 16) / 8;  // [-2, 2]
  }
}

double fine_offset(Stream& s) { return static_cast<double>(s.below(int64_t{1} << 24) - (int64_t{1} << 23)) * 0x1p-27; }

// How a parameter's floats depart from the grid (inputs.h lists them).
enum class Profile { Grid, Specials, Magnitude, Weights, NonFinite };

Profile choose_profile(const Value& v, const Use& use, uint64_t seed) {
  if (!is_float(v.type().dtype) || use.domain == Domain::Index || use.domain == Domain::Quantized) return Profile::Grid;
  Stream s(seed, v.name() + "/profile");
  const int64_t draw = s.below(16);
  if (use.weight_out_axis >= 0 && use.domain == Domain::Default && draw < 8) return Profile::Weights;
  if (use.domain != Domain::Default) return draw < 4 ? Profile::Magnitude : Profile::Grid;
  if (draw < 4) return Profile::Specials;
  if (draw < 7) return Profile::Magnitude;
  if (draw < 8 && use.absorbed != 0) return Profile::NonFinite;
  return Profile::Grid;
}

// Whole-tensor scales: large and tiny magnitudes that keep a few products and sums in range.
double magnitude_scale(DType t, Stream& s) {
  static constexpr int kWide[] = {-20, -10, 6, 12};
  static constexpr int kHalf[] = {-8, -4, 2, 4};
  const int64_t pick = s.below(4);
  return std::ldexp(1.0, t == DType::f16 ? kHalf[pick] : kWide[pick]);
}

// A value where implementations part ways: -0, a tie of round-half-to-even, a tie between two
// neighbours of a narrower float dtype, a subnormal of the parameter's dtype, an exact grid value.
double special_value(DType t, Stream& s) {
  const double sign = s.below(2) ? -1.0 : 1.0;
  switch (s.below(5)) {
    case 0: return -0.0;
    case 1: return sign * (static_cast<double>(2 * s.below(2) + 1) / 2);  // +-0.5, +-1.5
    case 2: {
      // Half an ulp past a value of the narrower dtype: f16's for f32 and f64, bf16's for f16.
      const int bits = t == DType::f16 ? 8 : t == DType::bf16 ? 0 : t == DType::f32 ? 11 : 24;
      if (bits == 0) return sign * (static_cast<double>(2 * s.below(4) + 1) / 2);
      const double mantissa = 1 + static_cast<double>(2 * s.below(16) + 1) * std::ldexp(1.0, -bits);
      return sign * std::ldexp(mantissa, static_cast<int>(s.below(4)) - 2);
    }
    case 3: return sign * smallest_normal(t) * static_cast<double>(1 + s.below(7)) / 8;
    default: return static_cast<double>(s.below(33) - 16) / 8;
  }
}

double nonfinite_value(unsigned absorbed, Stream& s) {
  std::vector<double> choices;
  if (absorbed & kAbsorbsNegInf) choices.push_back(-INFINITY);
  if (absorbed & kAbsorbsPosInf) choices.push_back(INFINITY);
  if (absorbed & kAbsorbsNaN) choices.push_back(NAN);
  return choices[static_cast<size_t>(s.below(static_cast<int64_t>(choices.size())))];
}

// Weights as trained layers hold them: roughly normal (a sum of three grid draws) with a spread
// near 1/sqrt(fan-in), and now and then one output channel eight times larger (the outlier
// channels of LLM projections that break per-tensor quantization and narrow accumulators).
void fill_weights(Tensor& out, int out_axis, Stream& s, Stream& fine) {
  const auto& shape = out.shape();
  const int64_t channels = shape[static_cast<size_t>(out_axis)];
  int64_t inner = 1;
  for (size_t d = static_cast<size_t>(out_axis) + 1; d < shape.size(); ++d) inner *= shape[d];
  const int64_t fan_in = std::max<int64_t>(1, out.numel() / std::max<int64_t>(1, channels));
  const double scale = std::ldexp(1.0, -static_cast<int>(std::lround(std::log2(std::sqrt(static_cast<double>(fan_in))))));
  const int64_t outlier = s.below(2) ? s.below(channels) : -1;
  for (int64_t i = 0; i < out.numel(); ++i) {
    const double normalish = (grid_value(s, Domain::Default) + grid_value(s, Domain::Default) +
                              grid_value(s, Domain::Default)) / 2;
    const bool is_outlier = (i / inner) % channels == outlier;
    out.set(i, (normalish + fine_offset(fine)) * scale * (is_outlier ? 8 : 1));
  }
}

Tensor generate(const Value& v, const Use& use, Profile profile, const sym::Env& env, uint64_t seed) {
  const DType t = v.type().dtype;
  Tensor out(t, concrete_shape(v.type(), env));
  Stream s(seed, v.name());
  Stream fine(seed, v.name() + "/fine");
  if (profile == Profile::Weights) {
    fill_weights(out, use.weight_out_axis, s, fine);
    return out;
  }
  Stream special(seed, v.name() + "/special");
  const double scale = profile == Profile::Magnitude ? magnitude_scale(t, special) : 1;
  for (int64_t i = 0; i < out.numel(); ++i) {
    if (is_float(t)) {
      const double x = (grid_value(s, use.domain) + fine_offset(fine)) * scale;
      if (profile == Profile::Specials && special.one_in(4)) {
        out.set(i, special_value(t, special));
      } else if (profile == Profile::NonFinite && special.one_in(8)) {
        out.set(i, nonfinite_value(use.absorbed, special));
      } else {
        out.set(i, x);
      }
    } else if (use.domain == Domain::Index) {
      out.set_int(i, s.below(use.index_limit));
    } else if (use.domain == Domain::NonZero) {
      const int64_t m = 1 + s.below(8);
      out.set_int(i, (is_signed_int(t) && s.below(2)) ? -m : m);
    } else if (is_bool(t)) {
      out.set_int(i, s.below(2));
    } else if (is_unsigned_int(t)) {
      out.set_int(i, s.below(16));
    } else {
      out.set_int(i, s.below(17) - 8);
    }
  }
  return out;
}

// Packed weights and scales for dequantize(%packed, %scales), from quantized float weights.
std::pair<Tensor, Tensor> generate_quantized(const Binding& deq, const sym::Env& env, uint64_t seed) {
  const Value& packed = deq.args()[0];
  const Value& scales = deq.args()[1];
  const std::vector<int64_t> pshape = concrete_shape(packed.type(), env);
  const std::vector<int64_t> sshape = concrete_shape(scales.type(), env);
  const std::string format = deq.attrs().get_string("format");
  const int64_t group = deq.attrs().get_int("group");
  const int64_t groups = sshape.back();
  int64_t k = format == "q4_0" ? groups * 32 : pshape.back() * 8;
  if (const int64_t attr_k = sym::eval(deq.attrs().get_sym("k"), env); attr_k != 0) k = attr_k;
  const int64_t rows = shape_numel(sshape) / groups;
  Stream s(seed, packed.name() + "/weights");
  std::vector<double> w(static_cast<size_t>(rows * k));
  Stream fine(seed, packed.name() + "/weights/fine");
  for (auto& x : w) x = grid_value(s, Domain::Default) + fine_offset(fine);
  const Quantized q = quantize_rows(w, rows, k, format, group);
  return {Tensor::from_ints(packed.type().dtype, pshape, q.packed),
          Tensor::from_doubles(scales.type().dtype, sshape, q.scales)};
}

using Profiles = std::map<const ValueNode*, Profile>;

std::map<std::string, Tensor> generate_with(const Program& p, const sym::Env& env, uint64_t seed,
                                            const std::map<const ValueNode*, Use>& uses, const Profiles& profiles) {
  std::map<std::string, Tensor> out;
  for (const auto& v : p.params()) {
    auto it = uses.find(v.get());
    const Use use = it == uses.end() ? Use{} : it->second;
    if (use.domain == Domain::Quantized) {
      if (!out.count(v.name())) {
        auto [packed, scales] = generate_quantized(*use.dequant, env, seed);
        out[use.dequant->args()[0].name()] = std::move(packed);
        out[use.dequant->args()[1].name()] = std::move(scales);
      }
      continue;
    }
    auto pit = profiles.find(v.get());
    out[v.name()] = generate(v, use, pit == profiles.end() ? Profile::Grid : pit->second, env, seed);
  }
  return out;
}

// Every float the program computes is finite and well inside its dtype's range (a sixteenth of
// it: other summation orders and the bounds' reach stay clear of overflow). Grid inputs satisfy
// this by the generator's construction; the wider profiles are kept only where they do.
bool values_stay_in_range(const Program& p, const sym::Env& env, const std::map<std::string, Tensor>& inputs) {
  Evaluation ev;
  try {
    ev = evaluate(p, env, inputs, Mode::F64);
  } catch (const UserError&) {
    return false;
  }
  for (const auto& b : p.bindings()) {
    if (!b.is_call()) continue;  // the inputs themselves may hold what their uses absorb
    for (const auto& v : b.results()) {
      const DType t = v.type().dtype;
      if (!is_float(t)) continue;
      const Tensor& values = ev.values.at(v.get());
      const double limit = largest_finite(t) / 16;
      for (int64_t i = 0; i < values.numel(); ++i) {
        const double x = values.get(i);
        if (!std::isfinite(x) || std::fabs(x) > limit) return false;
      }
    }
  }
  return true;
}

}  // namespace

std::map<std::string, Tensor> generate_inputs(const Program& p, const sym::Env& env, uint64_t seed) {
  const auto uses = analyze(p, env);
  Profiles profiles;
  for (const auto& v : p.params()) {
    auto it = uses.find(v.get());
    const Profile profile = choose_profile(v, it == uses.end() ? Use{} : it->second, seed);
    if (profile != Profile::Grid) profiles[v.get()] = profile;
  }
  if (profiles.empty()) return generate_with(p, env, seed, uses, profiles);
  auto wide = generate_with(p, env, seed, uses, profiles);
  if (values_stay_in_range(p, env, wide)) return wide;
  // Non-finite values first: they are the likeliest to reach a result; then every profile.
  const bool had_nonfinite =
      std::erase_if(profiles, [](const auto& entry) { return entry.second == Profile::NonFinite; }) > 0;
  if (had_nonfinite && !profiles.empty()) {
    wide = generate_with(p, env, seed, uses, profiles);
    if (values_stay_in_range(p, env, wide)) return wide;
  }
  return generate_with(p, env, seed, uses, {});
}

}  // namespace difftest::reference
