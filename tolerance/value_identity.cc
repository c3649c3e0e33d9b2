#include "tolerance/value_identity.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "compiler/ops/op.h"

namespace difftest::tolerance {

namespace {

// Elementwise ops whose result involves no rounding whatever the dtype.
const std::set<std::string>& exact_elementwise() {
  static const std::set<std::string> ops = {
      "floor",         "round",     "neg",         "abs",      "relu",    "clip",       "maximum",
      "minimum",       "equal",     "not_equal",   "less",     "less_equal", "greater", "greater_equal",
      "logical_and",   "logical_or", "logical_xor", "logical_not", "where", "cast"};
  return ops;
}

// A call as the classes of its operands see it: two calls with equal keys compute the same
// values.
struct CallKey {
  const OpDef* op;
  const Attrs* attrs;
  std::vector<int64_t> args;
  size_t result;
  bool operator==(const CallKey& o) const {
    return op == o.op && *attrs == *o.attrs && args == o.args && result == o.result;
  }
};

}  // namespace

bool computes_exactly(const Binding& call) {
  if (!call.is_call()) return false;
  const OpDef& op = call.op();
  if (op.family == "shape" || op.family == "creation") return true;
  if (op.family != "elementwise") return false;
  if (exact_elementwise().count(op.name)) return true;
  // Integer and bool arithmetic is exact (wrapping, as docs/ops.md defines it).
  const auto integral = [](const Value& v) { return !is_float(v.type().dtype); };
  return std::all_of(call.args().begin(), call.args().end(), integral) &&
         std::all_of(call.results().begin(), call.results().end(), integral);
}

ValueIdentity::ValueIdentity(const Program& p) {
  std::vector<std::pair<CallKey, int64_t>> seen;  // few calls per program: a list serves
  int64_t next = 0;
  for (const auto& b : p.bindings()) {
    for (size_t r = 0; r < b.results().size(); ++r) {
      int64_t id = next;
      if (computes_exactly(b)) {
        CallKey key{&b.op(), &b.attrs(), {}, r};
        for (const auto& a : b.args()) key.args.push_back(class_of_.at(a.get()));
        const auto found =
            std::find_if(seen.begin(), seen.end(), [&](const auto& entry) { return entry.first == key; });
        if (found != seen.end()) {
          id = found->second;
        } else {
          seen.emplace_back(std::move(key), id);
        }
      }
      if (id == next) ++next;
      class_of_[b.results()[r].get()] = id;
    }
  }
}

bool ValueIdentity::same(const Value& a, const Value& b) const {
  if (a.same_as(b)) return true;
  const auto x = class_of_.find(a.get()), y = class_of_.find(b.get());
  return x != class_of_.end() && y != class_of_.end() && x->second == y->second && a.type() == b.type();
}

}  // namespace difftest::tolerance
