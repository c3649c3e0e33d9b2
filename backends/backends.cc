#include "backends/backends.h"

#include <fmt/format.h>

#include "backends/onnxruntime/ort_compiler.h"
#include "compiler/ir/diagnostics.h"
#include "oracle/check/check.h"

namespace difftest::backends {

namespace {

std::vector<std::pair<std::string, std::string>> each_against(const std::string& base,
                                                              const std::vector<std::string>& levels) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& l : levels) {
    if (l != base) out.emplace_back(base, l);
  }
  return out;
}

}  // namespace

std::string Backend::missing() const { return builtin() ? "" : ort_install().missing; }

std::string Backend::version() const {
  if (builtin()) return oracle::kDifftestVersion;
  const std::string v = ort_install().version;
  return v.empty() ? "(not installed)" : v;
}

const std::vector<Backend>& all_backends() {
  static const std::vector<Backend> backends = [] {
    const oracle::CheckOptions builtin_defaults = oracle::default_check_options();
    std::vector<Backend> out;
    Backend builtin;
    builtin.name = "builtin";
    builtin.compiler = &oracle::builtin_compiler();
    builtin.levels = {"O0", "O1", "O2", "O3"};
    builtin.default_opt = builtin_defaults.pipelines;
    builtin.default_orders = builtin_defaults.random_orders;
    builtin.cross_checks = builtin_defaults.cross_checks;
    builtin.wraps_integer_overflow = true;
    out.push_back(builtin);
    Backend ort;
    ort.name = "ort";
    ort.compiler = &ort_compiler();
    ort.levels = ort.default_opt = ort_levels();
    // Every level against `disabled`, where no transformer runs: a level that disagrees with it
    // beyond both bounds is an optimizer finding even where the reference's bound is wide.
    ort.cross_checks = each_against("disabled", ort_levels());
    // ORT's CPU provider has almost no bf16 kernel and fewer f16 ones than f32: programs mostly
    // in f32, as exported models are, f16 and f64 still drawn.
    ort.float_dtypes = "f32,f32,f32,f32,f16,f64";
    // Its graph optimizer rewrites the layer shapes exporters write (MatMul+Add+activation,
    // Conv+activation, residual Add+norm): a third of the picks are such layers.
    ort.motif_percent = 30;
    // Its CPU provider lacks f16 Div, Add and most other f16 kernels and runs them in f32.
    ort.computes_half_in_f32 = true;
    // Its CPU Conv and ConvTranspose kernels are f32 only (f16 on arm64): in f16 or f64 the whole
    // program would be unsupported.
    for (const char* conv : {"conv1d", "conv2d", "conv_transpose1d"}) ort.op_float_dtypes[conv] = {DType::f32};
    out.push_back(ort);
    return out;
  }();
  return backends;
}

const Backend& find_backend(const std::string& name, const std::string& where) {
  std::vector<std::string> names;
  for (const auto& b : all_backends()) {
    if (b.name == name) return b;
    names.push_back(b.name);
  }
  throw UserError(ErrorKind::Usage,
                  fmt::format("{}: no backend '{}' (backends: {})", where, name, fmt::join(names, ", ")));
}

const Backend& backend_of(const oracle::CompilerUnderTest& compiler) {
  for (const auto& b : all_backends()) {
    if (b.compiler == &compiler) return b;
  }
  throw InternalError("a compiler under test that no backend names: " + compiler.identity());
}

}  // namespace difftest::backends
