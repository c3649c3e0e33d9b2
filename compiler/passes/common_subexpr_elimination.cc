#include "compiler/passes/common_subexpr_elimination.h"

#include <bit>
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

#include "compiler/faults/faults.h"
#include "compiler/support/hash.h"

namespace difftest::passes {

// Test faults of this file (docs/faults.md): off unless switched on.

const faults::Fault kCseIgnoresTransposeFlags({
    .name = "cse-ignores-transpose-flags",
    .pass = "CommonSubexprElimination",
    .description = "CommonSubexprElimination leaves matmul's transpose_a/transpose_b out of the attributes it "
        "compares, so x @ W and x @ W^T of a square W merge into one: a CSE key that omits attributes (TVM's "
        "structural equality once ignored some attributes)",
    .models = "a CSE key that leaves out attributes (structural-equality bugs that ignored attributes)",
});

namespace {

// Bitwise, so -0.0 and +0.0 stay apart (1/x tells them apart) and a NaN equals itself.
bool same_bits(double a, double b) { return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b); }

bool same_floats(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!same_bits(a[i], b[i])) return false;
  }
  return true;
}

bool same_attr(const AttrValue& a, const AttrValue& b) {
  if (a.index() != b.index()) return false;
  if (const double* x = std::get_if<double>(&a)) return same_bits(*x, std::get<double>(b));
  return a == b;
}

bool same_attrs(const Attrs& a, const Attrs& b, bool ignore_transpose) {
  const auto& x = a.items();
  const auto& y = b.items();
  if (x.size() != y.size()) return false;
  for (size_t i = 0; i < x.size(); ++i) {
    if (x[i].first != y[i].first) return false;
    if (ignore_transpose && (x[i].first == "transpose_a" || x[i].first == "transpose_b")) continue;
    if (!same_attr(x[i].second, y[i].second)) return false;
  }
  return true;
}

bool same_init(const ConstantInit& a, const ConstantInit& b) {
  return a.kind == b.kind && a.int_values == b.int_values && same_floats(a.float_values, b.float_values) &&
         same_bits(a.p0, b.p0) && same_bits(a.p1, b.p1) && a.seed == b.seed;
}

bool same_types(const std::vector<Value>& a, const std::vector<Value>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!(a[i].type() == b[i].type())) return false;
  }
  return true;
}

bool same_args(const std::vector<Value>& a, const std::vector<Value>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!a[i].same_as(b[i])) return false;
  }
  return true;
}

// `b` repeats the earlier binding `first`, given b's operands already remapped to `args`.
bool repeats(const Binding& first, const Binding& b, const std::vector<Value>& args, bool ignore_transpose) {
  if (first.kind() != b.kind() || !same_types(first.results(), b.results())) return false;
  if (b.kind() == BindingKind::Const) return same_init(first.constant(), b.constant());
  return &first.op() == &b.op() && same_args(first.args(), args) && same_attrs(first.attrs(), b.attrs(), ignore_transpose);
}

// Only a bucket index: candidates are compared in full, in program order.
size_t bucket_of(const Binding& b, const std::vector<Value>& args) {
  size_t h = static_cast<size_t>(b.kind());
  h = hash_mix(h, std::hash<std::string>{}(b.results().front().type().str()));
  if (b.kind() == BindingKind::Const) {
    const ConstantInit& c = b.constant();
    h = hash_mix(h, static_cast<size_t>(c.kind));
    h = hash_mix(h, c.seed);
    return h;
  }
  h = hash_mix(h, std::hash<const void*>{}(&b.op()));
  for (const auto& a : args) h = hash_mix(h, std::hash<const void*>{}(a.get()));
  return h;
}

}  // namespace

Program common_subexpr_elimination(const Program& p, const CompileContext& compile) {
  const bool ignore_transpose = compile.fault(kCseIgnoresTransposeFlags);
  std::unordered_map<const ValueNode*, Value> replaced;
  auto remap = [&](const Value& v) {
    auto it = replaced.find(v.get());
    return it == replaced.end() ? v : it->second;
  };
  std::unordered_map<size_t, std::vector<size_t>> buckets;  // hash -> indices into `out`
  std::vector<Binding> out;
  bool changed = false;
  for (const Binding& b : p.bindings()) {
    if (b.kind() == BindingKind::Param) {
      out.push_back(b);
      continue;
    }
    std::vector<Value> args;
    bool args_changed = false;
    for (const auto& a : b.args()) {
      args.push_back(remap(a));
      args_changed = args_changed || !args.back().same_as(a);
    }
    std::vector<size_t>& bucket = buckets[bucket_of(b, args)];
    const Binding* first = nullptr;
    for (size_t i : bucket) {
      if (repeats(out[i], b, args, ignore_transpose)) {
        first = &out[i];
        break;
      }
    }
    if (first) {
      for (size_t i = 0; i < b.results().size(); ++i) replaced[b.results()[i].get()] = first->results()[i];
      changed = true;
      continue;
    }
    bucket.push_back(out.size());
    out.push_back(args_changed ? Binding::call(b.results(), &b.op(), std::move(args), b.attrs(), b.loc()) : b);
  }
  if (!changed) return p;
  std::vector<Value> outputs;
  for (const auto& o : p.outputs()) outputs.push_back(remap(o));
  return Program::make(p.name(), p.dims(), std::move(out), std::move(outputs), p.loc());
}

}  // namespace difftest::passes
