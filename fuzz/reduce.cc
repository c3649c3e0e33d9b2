#include "fuzz/reduce.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <map>
#include <optional>
#include <set>

#include "compiler/ir/printer.h"
#include "compiler/sym/sym_simplify.h"
#include "compiler/ir/verifier.h"
#include "compiler/ops/op.h"

namespace difftest::fuzz {

namespace {

// ------------------------------------------------------------------ editable programs
// A program as names rather than value nodes, so that a step can change a type or an operand
// and the program be built again, every call's result types inferred anew.
struct Item {
  BindingKind kind = BindingKind::Param;
  std::vector<std::string> results;
  TensorType type;  // params and constants (calls are inferred)
  ConstantInit init;
  const OpDef* op = nullptr;
  std::vector<std::string> args;
  Attrs attrs;
};

struct Spec {
  std::string name;
  std::vector<DimVar> dims;
  std::vector<Item> items;
  std::vector<std::string> outputs;
  sym::Env binding;
};

Spec to_spec(const Program& p, const sym::Env& binding) {
  Spec s{p.name(), p.dims(), {}, {}, binding};
  for (const auto& b : p.bindings()) {
    Item it;
    it.kind = b.kind();
    for (const auto& r : b.results()) it.results.push_back(r.name());
    if (b.is_call()) {
      it.op = &b.op();
      for (const auto& a : b.args()) it.args.push_back(a.name());
      it.attrs = b.attrs();
    } else {
      it.type = b.result().type();
      if (b.kind() == BindingKind::Const) it.init = b.constant();
    }
    s.items.push_back(std::move(it));
  }
  for (const auto& o : p.outputs()) s.outputs.push_back(o.name());
  return s;
}

bool is_splat(const ConstantInit& c) {
  if (c.kind != ConstantInit::Kind::Literal) return false;
  const auto same = [](const auto& v) { return std::adjacent_find(v.begin(), v.end(), std::not_equal_to<>()) == v.end(); };
  return same(c.int_values) && same(c.float_values);
}

// Unused bindings (and so unused params) removed: what the outputs do not reach.
void drop_dead(Spec& s) {
  std::set<std::string> live(s.outputs.begin(), s.outputs.end());
  std::vector<Item> kept;
  for (auto it = s.items.rbegin(); it != s.items.rend(); ++it) {
    const bool used = std::any_of(it->results.begin(), it->results.end(), [&](const auto& r) { return live.count(r); });
    if (!used) continue;
    live.insert(it->args.begin(), it->args.end());
    kept.push_back(*it);
  }
  std::reverse(kept.begin(), kept.end());
  s.items = std::move(kept);
}

std::optional<Program> build(Spec s) {
  drop_dead(s);
  try {
    sym::Ranges ranges;
    for (const auto& d : s.dims) ranges[d.name] = d.range;
    std::map<std::string, Value> values;
    std::vector<Binding> bindings;
    for (auto& it : s.items) {
      if (it.kind == BindingKind::Call) {
        std::vector<Value> args;
        std::vector<TensorType> types;
        for (const auto& a : it.args) {
          args.push_back(values.at(a));
          types.push_back(values.at(a).type());
        }
        const auto inferred = infer_types(*it.op, types, it.attrs, ranges);
        if (inferred.size() != it.results.size()) return std::nullopt;
        std::vector<Value> results;
        for (size_t i = 0; i < inferred.size(); ++i) results.push_back(Value::make(it.results[i], inferred[i]));
        for (const auto& r : results) values[r.name()] = r;
        bindings.push_back(Binding::call(std::move(results), it.op, std::move(args), it.attrs));
        continue;
      }
      const Value v = Value::make(it.results.at(0), it.type);
      values[v.name()] = v;
      if (it.kind == BindingKind::Param) {
        bindings.push_back(Binding::param(v));
        continue;
      }
      if (is_splat(it.init)) {  // a splat follows its value's shape
        const auto shape = it.type.static_shape();
        if (!shape) return std::nullopt;
        int64_t n = 1;
        for (int64_t d : *shape) n *= d;
        if (!it.init.int_values.empty()) it.init.int_values.assign(static_cast<size_t>(n), it.init.int_values[0]);
        if (!it.init.float_values.empty()) it.init.float_values.assign(static_cast<size_t>(n), it.init.float_values[0]);
      }
      bindings.push_back(Binding::constant(v, it.init));
    }
    std::vector<Value> outputs;
    for (const auto& o : s.outputs) outputs.push_back(values.at(o));
    Program p = Program::make(s.name, s.dims, std::move(bindings), std::move(outputs));
    verify(p);
    return p;
  } catch (const std::exception&) {
    return std::nullopt;  // does not type-check or verify: not a candidate
  }
}

// ------------------------------------------------------------------ the steps
// Each step lists its candidates for the current program; the first interesting one wins.
using Candidates = std::vector<Spec>;

std::map<std::string, TensorType> types_of(const Program& p) {
  std::map<std::string, TensorType> t;
  for (const auto& b : p.bindings()) {
    for (const auto& r : b.results()) t[r.name()] = r.type();
  }
  return t;
}

void rename_uses(Spec& s, const std::string& from, const std::string& to) {
  for (auto& it : s.items) std::replace(it.args.begin(), it.args.end(), from, to);
  std::replace(s.outputs.begin(), s.outputs.end(), from, to);
}

// An output dropped, or replaced by an operand of the call producing it (the last op of a
// chain goes even when its type differs from its operands').
Candidates remove_outputs(const Spec& s, const Program&) {
  Candidates out;
  for (size_t i = 0; s.outputs.size() > 1 && i < s.outputs.size(); ++i) {
    Spec c = s;
    c.outputs.erase(c.outputs.begin() + static_cast<std::ptrdiff_t>(i));
    out.push_back(std::move(c));
  }
  // Every output of one multi-result call at once: dropping them one by one leaves the call in
  // place until the last goes, so no single drop is strictly smaller.
  for (const auto& it : s.items) {
    if (it.results.size() < 2) continue;
    Spec c = s;
    std::erase_if(c.outputs, [&](const auto& o) { return std::find(it.results.begin(), it.results.end(), o) != it.results.end(); });
    if (!c.outputs.empty() && c.outputs.size() + 1 < s.outputs.size()) out.push_back(std::move(c));
  }
  for (size_t i = 0; i < s.outputs.size(); ++i) {
    for (const auto& it : s.items) {
      if (it.kind != BindingKind::Call || std::find(it.results.begin(), it.results.end(), s.outputs[i]) == it.results.end()) {
        continue;
      }
      for (const auto& a : it.args) {
        if (std::find(s.outputs.begin(), s.outputs.end(), a) != s.outputs.end()) continue;
        Spec c = s;
        c.outputs[i] = a;
        out.push_back(std::move(c));
      }
    }
  }
  return out;
}

// A call replaced by one of its operands of the same type, or cut into a new parameter.
Candidates bypass_calls(const Spec& s, const Program& p) {
  const auto types = types_of(p);
  Candidates out;
  for (size_t i = s.items.size(); i-- > 0;) {
    const Item& it = s.items[i];
    if (it.kind != BindingKind::Call || it.results.size() != 1) continue;
    const TensorType& t = types.at(it.results[0]);
    std::set<std::string> tried;
    for (const auto& a : it.args) {
      if (!(types.at(a) == t) || !tried.insert(a).second) continue;
      Spec c = s;
      rename_uses(c, it.results[0], a);
      if (std::find(c.outputs.begin(), c.outputs.end(), a) != c.outputs.end() &&
          std::count(c.outputs.begin(), c.outputs.end(), a) > 1) {
        continue;  // two outputs would be one value
      }
      out.push_back(std::move(c));
    }
    Spec cut = s;
    Item param;
    param.kind = BindingKind::Param;
    param.results = it.results;
    param.type = t;
    cut.items[i] = param;
    out.push_back(std::move(cut));
  }
  return out;
}

// Simplified, so that `2*m` with m = 1 prints as 2, not 2*1.
sym::Expr fixed(const sym::Expr& e, const std::string& dim, int64_t value) {
  return sym::simplify(sym::substitute(e, std::map<std::string, sym::Expr>{{dim, sym::Expr::constant(value)}}));
}

AttrValue fixed(const AttrValue& v, const std::string& dim, int64_t value) {
  if (const auto* e = std::get_if<sym::Expr>(&v)) return fixed(*e, dim, value);
  if (const auto* es = std::get_if<std::vector<sym::Expr>>(&v)) {
    std::vector<sym::Expr> out;
    for (const auto& e : *es) out.push_back(fixed(e, dim, value));
    return out;
  }
  return v;
}

// A dim variable replaced by its value in the failing binding.
Candidates fix_dims(const Spec& s, const Program&) {
  Candidates out;
  for (size_t d = 0; d < s.dims.size(); ++d) {
    const std::string name = s.dims[d].name;
    const auto at = s.binding.find(name);
    if (at == s.binding.end()) continue;
    Spec c = s;
    c.dims.erase(c.dims.begin() + static_cast<std::ptrdiff_t>(d));
    c.binding.erase(name);
    for (auto& it : c.items) {
      for (auto& e : it.type.shape) e = fixed(e, name, at->second);
      std::vector<std::pair<std::string, AttrValue>> items;
      for (const auto& [k, v] : it.attrs.items()) items.emplace_back(k, fixed(v, name, at->second));
      it.attrs = Attrs(std::move(items));
    }
    out.push_back(std::move(c));
  }
  return out;
}

// Every occurrence of a constant dim c > 1 in parameter and constant shapes becomes c / 2, or 1.
Candidates shrink_dims(const Spec& s, const Program&) {
  std::set<int64_t> sizes;
  for (const auto& it : s.items) {
    for (const auto& e : it.type.shape) {
      if (e.is_const() && e.value() > 1) sizes.insert(e.value());
    }
  }
  Candidates out;
  for (auto c = sizes.rbegin(); c != sizes.rend(); ++c) {
    for (const int64_t to : std::set<int64_t>{1, *c / 2}) {  // one candidate when c / 2 is 1
      Spec n = s;
      for (auto& it : n.items) {
        for (auto& e : it.type.shape) {
          if (e.is_const() && e.value() == *c) e = sym::Expr::constant(to);
        }
      }
      out.push_back(std::move(n));
    }
  }
  return out;
}

// `attrs` with attribute `index` back to its default (make_attrs fills in what is not given):
// nullopt when it is required or already the default.
std::optional<Attrs> with_default(const OpDef& op, const Attrs& attrs, size_t index) {
  std::vector<std::pair<std::string, AttrValue>> given;
  for (size_t b = 0; b < attrs.items().size(); ++b) {
    if (b != index && !std::holds_alternative<std::monostate>(attrs.items()[b].second)) given.push_back(attrs.items()[b]);
  }
  try {
    Attrs reset = make_attrs(op, given);
    if (reset == attrs) return std::nullopt;
    return reset;
  } catch (const std::exception&) {
    return std::nullopt;  // required: no default to go back to
  }
}

// An attribute back to its default.
Candidates default_attrs(const Spec& s, const Program&) {
  Candidates out;
  for (size_t i = 0; i < s.items.size(); ++i) {
    const Item& it = s.items[i];
    if (it.kind != BindingKind::Call) continue;
    for (size_t a = 0; a < it.attrs.items().size(); ++a) {
      std::optional<Attrs> reset = with_default(*it.op, it.attrs, a);
      if (!reset) continue;
      Spec c = s;
      c.items[i].attrs = std::move(*reset);
      out.push_back(std::move(c));
    }
  }
  return out;
}

constexpr int64_t kMaxSplatElements = int64_t{1} << 16;

// The element count of a value that may become a splat constant: static and not too large.
std::optional<int64_t> splat_elements(const TensorType& t) {
  const auto shape = t.static_shape();
  if (!shape) return std::nullopt;
  int64_t n = 1;
  for (int64_t d : *shape) n *= d;
  if (n > kMaxSplatElements) return std::nullopt;
  return n;
}

ConstantInit splat_of_one(DType dtype, int64_t n) {
  ConstantInit c;
  if (is_float(dtype)) {
    c.float_values.assign(static_cast<size_t>(n), 1.0);
  } else {
    c.int_values.assign(static_cast<size_t>(n), 1);
  }
  return c;
}

// Random constants and static inputs become splats of one.
Candidates splat_values(const Spec& s, const Program&) {
  Candidates out;
  for (size_t i = 0; i < s.items.size(); ++i) {
    const Item& it = s.items[i];
    if (it.kind == BindingKind::Call || (it.kind == BindingKind::Const && is_splat(it.init))) continue;
    const auto n = splat_elements(it.type);
    if (!n) continue;
    Spec c = s;
    c.items[i].kind = BindingKind::Const;
    c.items[i].init = splat_of_one(it.type.dtype, *n);
    out.push_back(std::move(c));
  }
  return out;
}

// Past exp's overflow in f32 (88.7) and f16 (11.1), and exact in every float dtype: what a
// failure that needs large values (an unstable softmax, an overflowing sum of squares) keeps
// failing with, where a new parameter's generated inputs are too small.
constexpr double kLargeSplat = 100;

// A float call with a static shape cut into a constant splat of a large value.
Candidates cut_to_large_splats(const Spec& s, const Program& p) {
  const auto types = types_of(p);
  Candidates out;
  for (size_t i = s.items.size(); i-- > 0;) {
    const Item& it = s.items[i];
    if (it.kind != BindingKind::Call || it.results.size() != 1) continue;
    const TensorType& t = types.at(it.results[0]);
    const auto n = splat_elements(t);
    if (!is_float(t.dtype) || !n) continue;
    Spec c = s;
    Item splat;
    splat.kind = BindingKind::Const;
    splat.results = it.results;
    splat.type = t;
    splat.init.float_values.assign(static_cast<size_t>(*n), kLargeSplat);
    c.items[i] = splat;
    out.push_back(std::move(c));
  }
  return out;
}

struct Step {
  Candidates (*make)(const Spec&, const Program&);
  const char* name;
};
constexpr Step kSteps[] = {
    {remove_outputs, "remove outputs"},   {bypass_calls, "bypass calls"},        {fix_dims, "fix dims"},
    {shrink_dims, "shrink dims"},         {default_attrs, "default attributes"}, {splat_values, "splat values"},
    {cut_to_large_splats, "large splats"}};

}  // namespace

std::string ProgramSize::str() const {
  return fmt::format("{} ops, {} elements, {} dtypes, {} random values, {} attributes, {} dims", ops, elements, dtypes,
                     random_values, attributes, dims);
}

ProgramSize program_size(const Program& p, const sym::Env& binding) {
  ProgramSize s;
  s.ops = static_cast<int64_t>(p.num_calls());
  s.dims = static_cast<int64_t>(p.dims().size());
  std::set<DType> dtypes;
  for (const auto& b : p.bindings()) {
    for (const auto& r : b.results()) {
      dtypes.insert(r.type().dtype);
      int64_t n = 1;
      for (const auto& d : r.type().shape) n *= sym::eval(d, binding);
      s.elements += n;
    }
    if (b.kind() == BindingKind::Param || (b.kind() == BindingKind::Const && !is_splat(b.constant()))) {
      ++s.random_values;
    }
    for (size_t a = 0; b.is_call() && a < b.attrs().items().size(); ++a) {
      if (with_default(b.op(), b.attrs(), a)) ++s.attributes;
    }
  }
  s.dtypes = static_cast<int64_t>(dtypes.size());
  return s;
}

Reduced reduce_program(const Program& p, const Interesting& interesting, const ReduceOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  Reduced best{p, options.binding, {}};
  ReduceStats& st = best.stats;
  std::set<uint64_t> seen{program_hash(p)};
  const size_t jobs = static_cast<size_t>(std::max(1, options.jobs));
  bool progress = true;
  while (progress && !st.timed_out) {
    progress = false;
    const Spec spec = to_spec(best.program, best.binding);
    const ProgramSize size = program_size(best.program, best.binding);
    for (const Step& step : kSteps) {
      std::vector<std::pair<Program, sym::Env>> batch;
      const Candidates candidates = step.make(spec, best.program);
      for (size_t i = 0; i <= candidates.size() && !progress; ++i) {
        if (i < candidates.size()) {
          std::optional<Program> c = build(candidates[i]);
          if (!c) {
            ++st.invalid;
            continue;
          }
          ++st.candidates;
          if (!(program_size(*c, candidates[i].binding) < size)) continue;
          if (!seen.insert(program_hash(*c)).second) {
            ++st.cache_hits;
            continue;
          }
          batch.emplace_back(std::move(*c), candidates[i].binding);
          if (batch.size() < jobs) continue;
        }
        if (batch.empty()) continue;
        if (options.time_limit > 0 && elapsed() > options.time_limit) {
          st.timed_out = true;
          break;
        }
        // The batch is tried at once; the first interesting one in list order wins, so the
        // result is the one a sequential run would reach.
        std::vector<std::future<bool>> verdicts;
        for (const auto& [cand, env] : batch) {
          verdicts.push_back(std::async(jobs > 1 ? std::launch::async : std::launch::deferred,
                                        [&interesting, &cand = cand, &env = env] { return interesting(cand, env); }));
        }
        std::vector<bool> results;
        for (auto& f : verdicts) results.push_back(f.get());
        st.tested += static_cast<int>(batch.size());
        if (options.on_step) options.on_step(st, step.name);
        for (size_t k = 0; k < batch.size(); ++k) {
          if (!results[k]) continue;
          best.program = batch[k].first;
          best.binding = batch[k].second;
          ++st.accepted;
          if (options.on_accept) options.on_accept(best.program, best.binding);
          progress = true;
          break;
        }
        batch.clear();
      }
      if (progress || st.timed_out) break;
    }
  }
  st.seconds = elapsed();
  return best;
}

}  // namespace difftest::fuzz
