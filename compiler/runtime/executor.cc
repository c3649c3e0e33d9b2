#include "compiler/runtime/executor.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <unordered_map>
#include <unordered_set>

#include "compiler/runtime/thread_pool.h"
#include "compiler/support/diagnostics.h"
#include "compiler/tensor/constant.h"

namespace difftest::runtime {

namespace {

std::vector<int64_t> concrete_shape(const TensorType& t, const sym::Env& env) {
  std::vector<int64_t> s;
  for (const auto& d : t.shape) s.push_back(sym::eval(d, env));
  return s;
}

}  // namespace

sym::Env bind_dims(const Program& p, const std::map<std::string, Tensor>& inputs, const sym::Env& given) {
  sym::Env env;
  std::map<std::string, std::string> bound_by;  // dim -> "%x axis 1", for messages
  for (const auto& [name, value] : given) {
    env[name] = value;
    bound_by[name] = "--bind";
  }
  const std::vector<Value> params = p.params();
  for (const auto& v : params) {
    const auto it = inputs.find(v.name());
    if (it == inputs.end()) throw UserError(ErrorKind::Usage, fmt::format("no input for param %{}", v.name()));
    const Tensor& t = it->second;
    if (t.dtype() != v.type().dtype) {
      throw UserError(ErrorKind::TypeMismatch, fmt::format("input %{} has dtype {}; the program declares {}", v.name(),
                                                           dtype_name(t.dtype()), dtype_name(v.type().dtype)));
    }
    if (t.shape().size() != v.type().shape.size()) {
      throw UserError(ErrorKind::Shape, fmt::format("input %{} has rank {}; the program declares {}", v.name(),
                                                    t.shape().size(), v.type().shape.size()));
    }
    for (size_t a = 0; a < t.shape().size(); ++a) {
      const sym::Expr& d = v.type().shape[a];
      if (d.is_var() && !env.count(d.name())) {
        env[d.name()] = t.shape()[a];
        bound_by[d.name()] = fmt::format("%{} axis {}", v.name(), a);
      }
    }
  }
  for (const auto& d : p.dims()) {
    if (!env.count(d.name)) {
      throw UserError(ErrorKind::Usage, fmt::format("dim {} is not determined by any input shape; bind it explicitly", d.name));
    }
    const int64_t n = env.at(d.name);
    if (n < d.range.lo || n > d.range.hi) {
      throw UserError(ErrorKind::Shape, fmt::format("dim {}={} (from {}) is outside its range {}..{}", d.name, n,
                                                    bound_by[d.name], d.range.lo, d.range.hi));
    }
  }
  for (const auto& v : params) {
    const Tensor& t = inputs.at(v.name());
    for (size_t a = 0; a < t.shape().size(); ++a) {
      const int64_t want = sym::eval(v.type().shape[a], env);
      if (want != t.shape()[a]) {
        throw UserError(ErrorKind::Shape,
                        fmt::format("input %{} axis {} has extent {}, but its declared dim {} is {} under {}", v.name(),
                                    a, t.shape()[a], sym::to_string(v.type().shape[a]), want,
                                    v.type().shape[a].is_var() ? bound_by[v.type().shape[a].name()] : "the other inputs"));
      }
    }
  }
  return env;
}

namespace {

// The JIT's options with this runtime's thread pool behind `parallel` loops.
codegen::JitOptions with_thread_pool(codegen::JitOptions options) {
  if (options.parallel_for == nullptr) options.parallel_for = &difftest_parallel_for;
  return options;
}

}  // namespace

Executable::Executable(Program program, loop::Module module, const codegen::JitOptions& options)
    : program_(std::move(program)), module_(std::move(module)),
      jit_(std::make_unique<codegen::JitModule>(module_, with_thread_pool(options))) {
  for (const auto& c : module_.calls) kernels_.push_back(jit_->kernel(c.func));
}

std::vector<Tensor> Executable::run(const std::map<std::string, Tensor>& inputs, const sym::Env& given,
                                    sym::Env* dims) const {
  const sym::Env env = bind_dims(program_, inputs, given);
  if (dims) *dims = env;
  // Only what some call touches, a result, a param or a constant gets memory: FuseLoops leaves
  // intermediates that live inside one kernel unreferenced. Values in a storage slot of the
  // memory plan share one allocation, sized for the largest member under this binding.
  std::unordered_set<std::string> referenced(module_.outputs.begin(), module_.outputs.end());
  for (const auto& c : module_.calls) referenced.insert(c.buffers.begin(), c.buffers.end());
  for (const auto& o : program_.outputs()) referenced.insert(o.name());
  std::unordered_map<std::string, size_t> slot_of;
  for (size_t s = 0; s < module_.storage.size(); ++s) {
    for (const auto& v : module_.storage[s]) slot_of[v] = s;
  }
  std::unordered_map<std::string, Tensor> values;
  std::unordered_map<std::string, void*> pointers;
  std::vector<size_t> slot_bytes(module_.storage.size(), 0);
  std::vector<std::pair<std::string, size_t>> slotted;
  for (const auto& b : program_.bindings()) {
    for (const auto& v : b.results()) {
      const std::vector<int64_t> shape = concrete_shape(v.type(), env);
      switch (b.kind()) {
        case BindingKind::Param: values[v.name()] = inputs.at(v.name()); break;
        case BindingKind::Const: values[v.name()] = materialize_constant(b.constant(), v.type().dtype, shape); break;
        case BindingKind::Call: {
          if (!referenced.count(v.name())) break;
          const auto it = slot_of.find(v.name());
          if (it == slot_of.end()) {
            values[v.name()] = Tensor(v.type().dtype, shape);
            break;
          }
          const size_t bytes = static_cast<size_t>(shape_numel(shape)) * static_cast<size_t>(dtype_bytes(v.type().dtype));
          slot_bytes[it->second] = std::max(slot_bytes[it->second], bytes);
          slotted.emplace_back(v.name(), it->second);
          break;
        }
      }
    }
  }
  // max_align_t elements keep every slot aligned for any dtype, as a Tensor's storage is.
  std::vector<std::vector<std::max_align_t>> slots;
  for (size_t bytes : slot_bytes) slots.emplace_back((bytes + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t) + 1);
  for (const auto& [name, s] : slotted) pointers[name] = slots[s].data();
  for (auto& [name, t] : values) pointers[name] = t.data();
  std::vector<int64_t> dim_values;
  for (size_t i = 0; i < module_.calls.size(); ++i) {
    const loop::Call& c = module_.calls[i];
    std::vector<void*> buffers;
    for (const auto& name : c.buffers) buffers.push_back(pointers.at(name));
    dim_values.clear();
    for (const auto& d : c.dims) dim_values.push_back(env.at(d));
    kernels_[i](buffers.data(), dim_values.data());
  }
  std::vector<Tensor> out;
  for (const auto& o : program_.outputs()) out.push_back(values.at(o.name()));
  return out;
}

}  // namespace difftest::runtime
