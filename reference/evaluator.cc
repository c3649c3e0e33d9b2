#include <fmt/format.h>

#include <limits>

#include "compiler/support/diagnostics.h"
#include "compiler/ops/op.h"
#include "compiler/tensor/constant.h"
#include "reference/kernel.h"
#include "reference/reference.h"
#include "reference/summary.h"

namespace difftest::reference {

const char* mode_name(Mode m) { return m == Mode::F64 ? "f64" : "native"; }

Mode parse_mode(const std::string& name) {
  if (name == "f64") return Mode::F64;
  if (name == "native") return Mode::Native;
  throw UserError(ErrorKind::Usage, fmt::format("--mode must be f64 or native, got '{}'", name));
}

DType storage_dtype(DType t, Mode m) { return m == Mode::F64 && is_float(t) ? DType::f64 : t; }

std::vector<int64_t> concrete_shape(const TensorType& t, const sym::Env& env) {
  std::vector<int64_t> out;
  for (const auto& d : t.shape) {
    const int64_t v = sym::eval(d, env);
    if (v < 1) {
      throw UserError(ErrorKind::NegativeDim, fmt::format("dim {} of {} is {} under this binding", sym::to_string(d),
                                                          t.str(), v));
    }
    out.push_back(v);
  }
  shape_numel(out);
  return out;
}

namespace {

void check_binding(const Program& p, const sym::Env& env) {
  for (const auto& d : p.dims()) {
    auto it = env.find(d.name);
    if (it == env.end()) throw UserError(ErrorKind::Evaluation, fmt::format("no value for dim variable '{}'", d.name));
    if (it->second < d.range.lo || it->second > d.range.hi) {
      throw UserError(ErrorKind::Evaluation, fmt::format("{}={} is outside its range {}..{}", d.name, it->second,
                                                         d.range.lo, d.range.hi));
    }
  }
  for (const auto& [name, v] : env) {
    bool known = false;
    for (const auto& d : p.dims()) known = known || d.name == name;
    if (!known) throw UserError(ErrorKind::Evaluation, fmt::format("'{}' is not a dim variable of @{}", name, p.name()));
  }
}

Tensor to_storage(const Tensor& t, Mode mode) {
  if (storage_dtype(t.dtype(), mode) == t.dtype()) return t;
  return Tensor::from_doubles(DType::f64, t.shape(), t.to_doubles());
}

}  // namespace

int64_t evaluation_bytes(const Program& p, const sym::Env& env, Mode m, int64_t extra_per_element) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  int64_t total = 0;
  for (const auto& b : p.bindings()) {
    for (const auto& r : b.results()) {
      const int64_t n = shape_numel(concrete_shape(r.type(), env));
      const int64_t per =
          dtype_bytes(storage_dtype(r.type().dtype, m)) + (is_float(r.type().dtype) ? extra_per_element : 0);
      if (per > 0 && n > (kMax - total) / per) return kMax;
      total += n * per;
    }
  }
  return total;
}

void require_evaluation_memory(const Program& p, const sym::Env& env, Mode m, int64_t extra_per_element,
                               const std::string& what) {
  check_binding(p, env);
  const int64_t bytes = evaluation_bytes(p, env, m, extra_per_element);
  if (bytes <= kMaxEvaluationBytes) return;
  throw UserError(ErrorKind::Limit,
                  fmt::format("@{} under {} needs {:.1f} GiB for {}, more than the {} GiB limit: narrow the ranges of "
                              "its dims or give a smaller binding",
                              p.name(), binding_str(env), static_cast<double>(bytes) / double(int64_t{1} << 30), what,
                              kMaxEvaluationBytes >> 30));
}

namespace {

Evaluation run(const Program& p, const sym::Env& env, const std::map<std::string, Tensor>& inputs, Mode mode,
               Perturbation* perturbation) {
  check_binding(p, env);
  require_evaluation_memory(p, env, mode, 0, "its reference values");
  for (const auto& [name, t] : inputs) {
    bool known = false;
    for (const auto& v : p.params()) known = known || v.name() == name;
    if (!known) throw UserError(ErrorKind::Io, fmt::format("input '{}' is not a parameter of @{}", name, p.name()));
  }

  Evaluation ev;
  for (const auto& b : p.bindings()) {
    switch (b.kind()) {
      case BindingKind::Param: {
        const Value& v = b.result();
        auto it = inputs.find(v.name());
        if (it == inputs.end()) throw UserError(ErrorKind::Io, fmt::format("no input for parameter %{}", v.name()));
        const std::vector<int64_t> shape = concrete_shape(v.type(), env);
        if (it->second.dtype() != v.type().dtype || it->second.shape() != shape) {
          throw UserError(ErrorKind::TypeMismatch,
                          fmt::format("input %{} is {} but the program needs {}{} under {}", v.name(),
                                      it->second.type_str(), dtype_name(v.type().dtype), shape_str(shape),
                                      binding_str(env)));
        }
        ev.values[v.get()] = to_storage(it->second, mode);
        break;
      }
      case BindingKind::Const: {
        const Value& v = b.result();
        ev.values[v.get()] =
            to_storage(materialize_constant(b.constant(), v.type().dtype, concrete_shape(v.type(), env)), mode);
        break;
      }
      case BindingKind::Call: {
        const Kernel* k = kernels().find(b.op().name);
        DT_CHECK(k != nullptr, fmt::format("no reference kernel for op '{}'", b.op().name));
        KernelContext ctx{b, {}, env, mode, perturbation};
        for (const auto& a : b.args()) ctx.args.push_back(&ev.values.at(a.get()));
        std::vector<Tensor> results = (*k)(ctx);
        DT_CHECK(results.size() == b.results().size(),
                 fmt::format("reference {} returned {} results", b.op().name, results.size()));
        for (size_t i = 0; i < results.size(); ++i) {
          const Value& v = b.results()[i];
          const std::vector<int64_t> want = concrete_shape(v.type(), env);
          const DType dt = storage_dtype(v.type().dtype, mode);
          if (results[i].shape() != want || results[i].dtype() != dt) {
            throw InternalError(fmt::format(
                "reference {} computed {} for %{}, but its type {} means {}{} under {} (shape inference and the "
                "reference disagree)",
                b.op().name, results[i].type_str(), v.name(), v.type().str(), dtype_name(dt), shape_str(want),
                binding_str(env)));
          }
          ev.values[v.get()] = std::move(results[i]);
        }
        break;
      }
    }
  }
  for (const auto& o : p.outputs()) ev.outputs.push_back(ev.values.at(o.get()));
  return ev;
}

}  // namespace

Evaluation evaluate(const Program& p, const sym::Env& env, const std::map<std::string, Tensor>& inputs, Mode mode) {
  return run(p, env, inputs, mode, nullptr);
}

Evaluation evaluate_perturbed(const Program& p, const sym::Env& env, const std::map<std::string, Tensor>& inputs,
                              uint64_t member_seed, Summation summation) {
  Perturbation perturbation(member_seed, summation);
  return run(p, env, inputs, Mode::Native, &perturbation);
}

}  // namespace difftest::reference
