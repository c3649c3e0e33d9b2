#include "tolerance/bounds.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <mutex>

#include "compiler/support/diagnostics.h"
#include "compiler/ops/op.h"
#include "reference/kernel.h"
#include "reference/reference.h"

namespace difftest::tolerance {

size_t Bounded::uncertain_count() const {
  size_t n = 0;
  for (uint8_t u : uncertain) n += u;
  return n;
}

DType RuleContext::acc(DType operand) const {
  if (!binding.op().find_attr("acc")) return operand;  // max, min, argmax ...: no accumulator
  return attrs().get_opt_dtype("acc").value_or(operand);
}

std::vector<Tensor> RuleContext::kernel(const std::vector<Tensor>& args) const {
  const reference::Kernel* k = reference::kernels().find(binding.op().name);
  DT_CHECK(k != nullptr, fmt::format("no reference kernel for {}", binding.op().name));
  reference::KernelContext ctx{binding, {}, env, reference::Mode::F64};
  for (const auto& a : args) ctx.args.push_back(&a);
  return (*k)(ctx);
}

Tensor as_f64(const std::vector<double>& v, const std::vector<int64_t>& shape) {
  return Tensor::from_doubles(DType::f64, shape, v);
}

Tensor magnitude(const Bounded& b, bool with_error) {
  std::vector<double> m(b.ref.size());
  for (size_t i = 0; i < m.size(); ++i) m[i] = std::fabs(b.ref[i]) + (with_error ? b.err[i] : 0);
  return as_f64(m, b.shape());
}

Tensor errors(const Bounded& b) { return as_f64(b.err, b.shape()); }

Tensor squares(const Bounded& b) {
  std::vector<double> m(b.ref.size());
  for (size_t i = 0; i < m.size(); ++i) m[i] = b.ref[i] * b.ref[i];
  return as_f64(m, b.shape());
}

Tensor indicator(const Bounded& b) {
  // In the operand's dtype class, so kernels that branch on integer operands accept it.
  if (!is_float(b.dtype)) {
    std::vector<int64_t> m(b.uncertain.begin(), b.uncertain.end());
    return Tensor::from_ints(DType::i64, b.shape(), m);
  }
  std::vector<double> m(b.uncertain.begin(), b.uncertain.end());
  return as_f64(m, b.shape());
}

double spread(const Bounded& b, size_t i) { return b.sd.empty() || b.sd[i] < 0 ? b.err[i] / kSqrt3 : b.sd[i]; }

Tensor spreads(const Bounded& b, bool squared) {
  std::vector<double> m(b.ref.size());
  for (size_t i = 0; i < m.size(); ++i) {
    const double s = spread(b, i);
    m[i] = squared ? s * s : s;
  }
  return as_f64(m, b.shape());
}

void set_spread(const RuleContext& c, Bounded& out, size_t i, double independent, double inherited_bound) {
  if (!quadrature(c.opt)) return;
  if (out.sd.empty()) out.sd.assign(out.ref.size(), -1);
  out.sd[i] = independent + std::max(0.0, out.err[i] - inherited_bound) / kSqrt3;
}

void mark_integer_overflow(const RuleContext& c, Bounded& out, size_t i, double exact) {
  if (c.opt.integer_overflow_wraps || !is_int(out.dtype)) return;
  // int_max(i64) is not a double: 2^63 is the first value past it.
  const double hi = out.dtype == DType::i64 ? 0x1p63 : static_cast<double>(int_max(out.dtype)) + 1;
  const double lo = static_cast<double>(int_min(out.dtype));
  if (!(exact >= lo && exact < hi)) out.uncertain[i] = 1;
}

void mark_uncertain(Bounded& out, const Tensor& dependence) {
  DT_CHECK(dependence.numel() == out.numel(), "uncertainty dependence has the wrong size");
  for (int64_t i = 0; i < out.numel(); ++i) {
    if (dependence.get(i) != 0) out.uncertain[static_cast<size_t>(i)] = 1;
  }
}

namespace {

Bounded exact_value(const Tensor& t, DType declared) {
  Bounded b;
  b.dtype = declared;
  b.exact = t;
  b.ref = t.to_doubles();
  b.err.assign(b.ref.size(), 0);
  b.uncertain.assign(b.ref.size(), 0);
  return b;
}

// A value beyond its dtype's finite range overflows to inf in a correct implementation: the
// program is invalid under this binding (the generator's fault). A value whose bound merely
// reaches past the range may or may not overflow: it is uncertain, not invalid.
void check_range(Bounded& r, const Value& v, BoundedProgram& out) {
  if (!is_float(r.dtype)) return;
  const double limit = largest_finite(r.dtype);
  for (size_t i = 0; i < r.ref.size(); ++i) {
    if (std::fabs(r.ref[i]) > limit) {
      out.invalid = true;
      out.invalid_reason =
          fmt::format("%{} = {:.6g} at element {} exceeds the range of {}", v.name(), r.ref[i], i, dtype_name(r.dtype));
      return;
    }
    if (std::fabs(r.ref[i]) + r.err[i] > limit) r.uncertain[i] = 1;
  }
}

// An integer quotient by zero is 0 in difftest's IR, but C, LLVM IR and ONNX leave it undefined
// (x86 traps: SIGFPE). Where integer overflow does not wrap as the IR defines (a compiler that
// follows C's integer semantics), a program dividing an integer by zero under this binding is
// invalid, as one whose float values overflow is: neither a crash nor any value there is the
// compiler's finding.
void check_integer_divisor(const Binding& b, const Options& opt, BoundedProgram& out) {
  if (opt.integer_overflow_wraps) return;
  const std::string& op = b.op().name;
  if (op != "div" && op != "floor_divide" && op != "floor_mod") return;
  if (b.args().size() < 2 || is_float(b.args()[1].type().dtype)) return;
  const Bounded& divisor = out.values.at(b.args()[1].get());
  for (size_t i = 0; i < divisor.ref.size(); ++i) {
    if (divisor.ref[i] == 0) {
      out.invalid = true;
      out.invalid_reason = fmt::format("%{} divides an integer by zero (element {} of %{}), which C and ONNX leave "
                                       "undefined",
                                       b.result().name(), i, b.args()[1].name());
      return;
    }
  }
}

}  // namespace

std::set<std::string> bound_cases(const Program& p, const BoundedProgram& b) {
  std::set<std::string> out;
  if (b.invalid) return out;
  const auto undecided = [](const Bounded& v) {
    const size_t n = v.uncertain_count();
    return n > v.choices.size() ? n - v.choices.size() : 0;
  };
  for (const auto& binding : p.bindings()) {
    if (!binding.is_call()) continue;
    const std::string& op = binding.op().name;
    out.insert("bound:" + op);
    size_t inherited = 0;
    for (const auto& a : binding.args()) {
      if (auto it = b.values.find(a.get()); it != b.values.end()) inherited = std::max(inherited, undecided(it->second));
    }
    for (const auto& r : binding.results()) {
      auto it = b.values.find(r.get());
      if (it == b.values.end()) continue;
      if (!it->second.choices.empty()) out.insert("decision:" + op);
      if (undecided(it->second) > inherited) out.insert("uncertain:" + op);
    }
  }
  return out;
}

const RuleTable& rules() {
  static const RuleTable table = DIFFTEST_BUILD_OP_TABLE(RuleTable, "bound rule", rules);
  return table;
}

const Rule* find_rule(const std::string& op) { return rules().find(op); }

void require_bounding_memory(const Program& p, const sym::Env& env) {
  reference::require_evaluation_memory(p, env, reference::Mode::F64, kBoundBytesPerElement,
                                       "the reference and its error bounds");
}

namespace {

// A float decision with known outcomes (Bounded::choices) reaches the ops computed from it as
// the interval holding every outcome within its bound: certain, with the bound widened to the
// farthest outcome. Sound in the first tier; the calibrated bounds keep such values uncertain,
// since the members' spread need not cover an outcome none of them took. max and min
// reductions read the outcomes themselves, which is sharper.
bool reads_outcomes(const std::string& op) { return op == "max" || op == "min"; }

Bounded outcomes_as_interval(const Bounded& b) {
  Bounded w = b;
  for (const auto& [i, outcomes] : b.choices) {
    double farthest = 0;
    for (double x : outcomes) farthest = std::max(farthest, std::fabs(x - b.ref[i]));
    w.uncertain[i] = 0;
    w.err[i] = b.err[i] + farthest;
    if (!w.sd.empty()) w.sd[i] = -1;  // a worst case: uniform over the interval
  }
  w.choices.clear();
  return w;
}

// The rules over every binding, on the f64 reference values `exact` gives.
BoundedProgram apply_rules(const Program& p, const sym::Env& env,
                           const std::function<const Tensor&(const ValueNode*)>& exact, const Options& opt,
                           const ObservedErrors* observed) {
  BoundedProgram out;
  const ValueIdentity identity(p);
  for (const auto& b : p.bindings()) {
    std::vector<Bounded> results;
    for (const auto& v : b.results()) results.push_back(exact_value(exact(v.get()), v.type().dtype));
    if (b.is_call()) {
      const Rule* rule = find_rule(b.op().name);
      DT_CHECK(rule != nullptr, fmt::format("no error rule for op '{}'", b.op().name));
      RuleContext ctx{b, {}, results, env, opt, identity};
      std::deque<Bounded> intervals;
      for (const auto& a : b.args()) {
        const Bounded& operand = out.values.at(a.get());
        if (observed == nullptr && !operand.choices.empty() && is_float(operand.dtype) &&
            !reads_outcomes(b.op().name)) {
          ctx.in.push_back(&intervals.emplace_back(outcomes_as_interval(operand)));
        } else {
          ctx.in.push_back(&operand);
        }
      }
      (*rule)(ctx);
      if (observed != nullptr) {
        for (size_t i = 0; i < results.size(); ++i) {
          auto it = observed->find(b.results()[i].get());
          if (it == observed->end()) continue;
          results[i].err = it->second;
          results[i].sd.clear();  // an allowance is a worst case of what the members showed
        }
      }
      for (size_t i = 0; i < results.size() && !out.invalid; ++i) check_range(results[i], b.results()[i], out);
      if (!out.invalid) check_integer_divisor(b, opt, out);
    }
    if (quadrature(opt)) {
      for (Bounded& r : results) {
        r.sd.resize(r.ref.size(), -1);
        for (size_t i = 0; i < r.sd.size(); ++i) r.sd[i] = spread(r, i);
      }
    }
    for (size_t i = 0; i < results.size(); ++i) out.values[b.results()[i].get()] = std::move(results[i]);
  }
  for (const auto& o : p.outputs()) out.outputs.push_back(&out.values.at(o.get()));
  return out;
}

}  // namespace

BoundedProgram bound_program(const Program& p, const sym::Env& env, const std::map<std::string, Tensor>& inputs,
                             const Options& opt) {
  const reference::Evaluation ev = reference::evaluate(p, env, inputs, reference::Mode::F64);
  for (const auto& b : p.bindings()) {
    // An input may hold an infinity or NaN its uses map to finite values (exp(-inf) = 0, a
    // comparison with NaN is false: docs/ops.md, "Special values"); what the calls compute may not.
    if (!b.is_call()) continue;
    for (const auto& v : b.results()) {
      const Tensor& t = ev.values.at(v.get());
      if (!is_float(t.dtype())) continue;
      for (int64_t i = 0; i < t.numel(); ++i) {
        if (std::isfinite(t.get(i))) continue;
        BoundedProgram out;
        out.invalid = true;
        out.invalid_reason = fmt::format("%{} = {} is not finite at element {} in the reference", v.name(),
                                         b.is_call() ? b.op().name : "input", i);
        return out;
      }
    }
  }
  return apply_rules(
      p, env, [&](const ValueNode* v) -> const Tensor& { return ev.values.at(v); }, opt, nullptr);
}

BoundedProgram rebound_program(const Program& p, const sym::Env& env, const BoundedProgram& sound, const Options& opt,
                               const ObservedErrors& observed) {
  DT_CHECK(!sound.invalid, "rebounding a program whose reference is not finite");
  return apply_rules(
      p, env, [&](const ValueNode* v) -> const Tensor& { return sound.values.at(v).exact; }, opt, &observed);
}

}  // namespace difftest::tolerance
