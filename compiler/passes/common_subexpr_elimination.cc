#include "compiler/passes/common_subexpr_elimination.h"

#include <bit>
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

#include "compiler/faults/faults.h"
#include "compiler/ir/visitor.h"
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

// Each binding is compared with the earlier emitted bindings of its bucket; a repeat is
// dropped and its results stand for the first one's.
class SubexprMerger : public Mutator {
 public:
  explicit SubexprMerger(bool ignore_transpose) : ignore_transpose_(ignore_transpose) {}

 private:
  std::vector<Value> rewrite(const Binding& b) override {
    if (b.kind() == BindingKind::Param) return keep(b);
    const std::vector<Value> args = remapped(b).args();
    std::vector<size_t>& bucket = buckets_[bucket_of(b, args)];
    for (size_t i : bucket) {
      if (repeats(emitted()[i], b, args, ignore_transpose_)) return emitted()[i].results();
    }
    bucket.push_back(emitted().size());
    return keep(b);
  }

  bool ignore_transpose_;
  std::unordered_map<size_t, std::vector<size_t>> buckets_;  // hash -> indices into emitted()
};

}  // namespace

Program common_subexpr_elimination(const Program& p, const CompileContext& compile) {
  return SubexprMerger(compile.fault(kCseIgnoresTransposeFlags)).mutate(p);
}

}  // namespace difftest::passes
