#include "reference/inputs.h"

#include <fmt/format.h>

#include <filesystem>
#include <set>

#include "compiler/ir/diagnostics.h"
#include "compiler/ir/printer.h"
#include "compiler/ops/op.h"
#include "compiler/tensor/constant.h"
#include "compiler/tensor/npy.h"
#include "reference/quantize.h"
#include "reference/reference.h"

namespace difftest::reference {

namespace {

enum class Domain { Default, Positive, NonZero, Index, Quantized };

struct Use {
  Domain domain = Domain::Default;
  int64_t index_limit = 0;         // Index: values in [0, limit)
  const Binding* dequant = nullptr;  // Quantized: the dequantize binding
};

std::map<const ValueNode*, Use> analyze(const Program& p, const sym::Env& env) {
  std::set<const ValueNode*> params;
  for (const auto& v : p.params()) params.insert(v.get());
  std::map<const ValueNode*, Use> uses;
  auto mark = [&](const Value& v, Use u) {
    if (params.count(v.get()) && uses[v.get()].domain == Domain::Default) uses[v.get()] = u;
  };
  for (const auto& b : p.bindings()) {
    if (!b.is_call()) continue;
    const std::string& op = b.op().name;
    const auto& a = b.args();
    if (op == "log" || op == "sqrt" || op == "rsqrt" || op == "pow") mark(a[0], {Domain::Positive});
    if (op == "div" || op == "floor_divide" || op == "floor_mod") mark(a[1], {Domain::NonZero});
    if (op == "take") {
      const auto& xs = a[0].type().shape;
      const auto axis = static_cast<size_t>(b.attrs().get_int("axis") < 0 ? b.attrs().get_int("axis") + static_cast<int64_t>(xs.size())
                                                                          : b.attrs().get_int("axis"));
      mark(a[1], {Domain::Index, sym::eval(xs[axis], env)});
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

Tensor generate(const Value& v, const Use& use, const sym::Env& env, uint64_t seed) {
  const DType t = v.type().dtype;
  Tensor out(t, concrete_shape(v.type(), env));
  Stream s(seed, v.name());
  Stream fine(seed, v.name() + "/fine");
  for (int64_t i = 0; i < out.numel(); ++i) {
    if (is_float(t)) {
      out.set(i, grid_value(s, use.domain) + fine_offset(fine));
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

}  // namespace

std::map<std::string, Tensor> generate_inputs(const Program& p, const sym::Env& env, uint64_t seed) {
  const auto uses = analyze(p, env);
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
    out[v.name()] = generate(v, use, env, seed);
  }
  return out;
}

std::map<std::string, Tensor> load_inputs(const Program& p, const std::string& dir) {
  std::map<std::string, Tensor> out;
  for (const auto& v : p.params()) {
    const std::string path = (std::filesystem::path(dir) / fmt::format("in_{}.npy", v.name())).string();
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      throw UserError(ErrorKind::Io, fmt::format("missing input file '{}' for parameter %{}", path, v.name()));
    }
    Tensor t = read_npy(path);
    if (t.dtype() != v.type().dtype) {
      throw UserError(ErrorKind::TypeMismatch, fmt::format("'{}' holds {} but parameter %{} is {}", path,
                                                           dtype_name(t.dtype()), v.name(), v.type().str()));
    }
    if (t.rank() != v.type().rank()) {
      throw UserError(ErrorKind::Shape, fmt::format("'{}' has shape {} but parameter %{} is {}", path,
                                                    shape_str(t.shape()), v.name(), v.type().str()));
    }
    out[v.name()] = std::move(t);
  }
  return out;
}

sym::Env parse_binding(const std::string& text, const std::string& flag) {
  sym::Env env;
  size_t start = 0;
  while (start <= text.size() && !text.empty()) {
    const size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const size_t eq = item.find('=');
    auto bad = [&] {
      return UserError(ErrorKind::Usage,
                       fmt::format("{}: expected NAME=VALUE[,NAME=VALUE...], got '{}'", flag, item));
    };
    if (eq == std::string::npos || eq == 0 || !is_valid_identifier(item.substr(0, eq))) throw bad();
    const std::string value = item.substr(eq + 1);
    if (value.empty() || value.size() > 18 || value.find_first_not_of("0123456789") != std::string::npos) throw bad();
    if (env.count(item.substr(0, eq))) {
      throw UserError(ErrorKind::Usage, fmt::format("{}: '{}' is bound twice", flag, item.substr(0, eq)));
    }
    env[item.substr(0, eq)] = std::stoll(value);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return env;
}

sym::Env resolve_binding(const Program& p, const sym::Env& given, const std::map<std::string, Tensor>* inputs) {
  sym::Env env = given;
  for (const auto& [name, v] : given) {
    bool known = false;
    for (const auto& d : p.dims()) known = known || d.name == name;
    if (!known) throw UserError(ErrorKind::Usage, fmt::format("--bind: @{} has no dim variable '{}'", p.name(), name));
  }
  std::map<std::string, std::string> source;  // which parameter fixed a variable
  if (inputs) {
    for (const auto& v : p.params()) {
      auto it = inputs->find(v.name());
      if (it == inputs->end() || it->second.rank() != v.type().rank()) continue;
      for (int i = 0; i < v.type().rank(); ++i) {
        const sym::Expr& d = v.type().shape[static_cast<size_t>(i)];
        if (!d.is_var()) continue;
        const int64_t value = it->second.shape()[static_cast<size_t>(i)];
        auto [pos, inserted] = env.emplace(d.name(), value);
        if (!inserted && pos->second != value) {
          throw UserError(ErrorKind::Shape,
                          fmt::format("{} gives {}={}, but {} says {}={}", "%" + v.name(), d.name(), value,
                                      source.count(d.name()) ? "%" + source[d.name()] : std::string("--bind"),
                                      d.name(), pos->second));
        }
        source.emplace(d.name(), v.name());
      }
    }
  }
  for (const auto& d : p.dims()) {
    env.emplace(d.name, d.range.lo);
    const int64_t v = env[d.name];
    if (v < d.range.lo || v > d.range.hi) {
      throw UserError(ErrorKind::Usage, fmt::format("{}={} is outside its range {}..{}", d.name, v, d.range.lo, d.range.hi));
    }
  }
  return env;
}

std::vector<sym::Env> standard_bindings(const Program& p) {
  std::vector<sym::Env> out;
  auto add = [&](const sym::Env& e) {
    if (std::find(out.begin(), out.end(), e) == out.end()) out.push_back(e);
  };
  sym::Env lows, highs;
  for (const auto& d : p.dims()) {
    lows[d.name] = d.range.lo;
    highs[d.name] = d.range.hi;
  }
  add(lows);
  for (const auto& d : p.dims()) {
    int64_t mid = d.range.lo + (d.range.hi - d.range.lo) / 2;
    if (mid % 2 == 0) mid = mid + 1 <= d.range.hi ? mid + 1 : mid - 1 >= d.range.lo ? mid - 1 : mid;
    for (int64_t v : {mid, d.range.hi}) {
      sym::Env e = lows;
      e[d.name] = v;
      add(e);
    }
  }
  add(highs);
  return out;
}

}  // namespace difftest::reference
