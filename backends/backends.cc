#include "backends/backends.h"

#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <mutex>

#include "backends/builtin/builtin_compiler.h"
#include "backends/manifest/manifest_compiler.h"
#include "backends/onnxruntime/ort_compiler.h"
#include "backends/onnxruntime/ort_session.h"
#include "compiler/support/diagnostics.h"
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

// The compilers of the backends manifests describe; never removed, so the references
// find_backend returns stay valid.
std::vector<std::unique_ptr<oracle::CompilerUnderTest>>& manifest_compilers() {
  static std::vector<std::unique_ptr<oracle::CompilerUnderTest>> compilers;
  return compilers;
}

// The backend `m` describes, named `name` on the command line.
Backend manifest_backend(Manifest m, const std::string& name) {
  Backend b;
  b.name = name;
  b.levels = m.level_names();
  b.default_opt = m.default_levels;
  b.cross_checks = m.cross_checks;
  b.default_orders = m.random_orders.count;
  b.float_dtypes = m.float_dtypes;
  b.dtypes = m.dtypes;

  b.wraps_integer_overflow = m.wraps_integer_overflow;
  b.computes_half_in_f32 = m.computes_half_in_f32;
  b.why_missing = [m] { return manifest_worker_missing(m); };
  manifest_compilers().push_back(make_manifest_compiler(std::move(m), name));
  const oracle::CompilerUnderTest* compiler = manifest_compilers().back().get();
  b.compiler = compiler;
  b.version_of = [compiler] { return manifest_compiler_version(*compiler); };
  b.default_levels_here = [compiler] { return manifest_compiler_default_levels(*compiler); };
  b.can_take = [compiler](const Program& p) { return manifest_compiler_has_model(*compiler, p); };
  return b;
}

#ifndef DIFFTEST_BUILD_DIR
#define DIFFTEST_BUILD_DIR ""
#endif
#ifndef DIFFTEST_MANIFEST_BACKENDS
#define DIFFTEST_MANIFEST_BACKENDS ""
#endif

// The backends whose folder holds a manifest (backends/CMakeLists.txt copies it into the build tree).
std::vector<Backend> in_tree_manifest_backends() {
  std::vector<Backend> out;
  const std::string names = DIFFTEST_MANIFEST_BACKENDS;
  for (size_t at = 0; at < names.size();) {
    const size_t comma = std::min(names.find(',', at), names.size());
    const std::string name = names.substr(at, comma - at);
    at = comma + 1;
    const std::string path = (std::filesystem::path(DIFFTEST_BUILD_DIR) / name / "manifest.json").string();
    out.push_back(manifest_backend(read_manifest(path), name));
    out.back().folder = name;
  }
  return out;
}

// Manifests named by path on the command line, by absolute path.
struct LoadedManifests {
  std::mutex mutex;
  std::map<std::string, std::unique_ptr<Backend>> by_path;
};

LoadedManifests& loaded_manifests() {
  static LoadedManifests loaded;
  return loaded;
}

const Backend& load_manifest_backend(const std::string& path) {
  LoadedManifests& loaded = loaded_manifests();
  std::lock_guard<std::mutex> lock(loaded.mutex);
  std::error_code ec;
  const std::string key = std::filesystem::weakly_canonical(path, ec).string();
  if (auto it = loaded.by_path.find(key); it != loaded.by_path.end()) return *it->second;
  Manifest m = read_manifest(path);
  const std::string flag = m.path;
  auto b = std::make_unique<Backend>(manifest_backend(std::move(m), flag));
  return *loaded.by_path.emplace(key, std::move(b)).first->second;
}

const std::vector<Backend>& all_backends() {
  static const std::vector<Backend> backends = [] {
    const oracle::CheckOptions builtin_defaults = oracle::default_check_options();
    std::vector<Backend> out;
    Backend builtin;
    builtin.name = "builtin";
    builtin.folder = "builtin";
    builtin.compiler = &builtin_compiler();
    builtin.levels = {"O0", "O1", "O2", "O3"};
    builtin.default_opt = builtin_defaults.levels;
    builtin.default_orders = builtin_defaults.random_orders;
    builtin.cross_checks = builtin_defaults.cross_checks;
    builtin.wraps_integer_overflow = true;
    builtin.version_of = [] { return std::string(oracle::kDifftestVersion); };
    out.push_back(builtin);
    Backend ort;
    ort.name = "ort";
    ort.folder = "onnxruntime";
    ort.why_missing = [] { return ort_install().missing; };
    ort.version_of = [] {
      const std::string v = ort_install().version;
      return v.empty() ? std::string("(not installed)") : v;
    };
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
    ort.can_take = ort_has_model;
    // Its CPU Conv and ConvTranspose kernels are f32 only (f16 on arm64): in f16 or f64 the whole
    // program would be unsupported.
    for (const char* conv : {"conv1d", "conv2d", "conv_transpose1d"}) ort.op_float_dtypes[conv] = {DType::f32};
    out.push_back(ort);
    for (Backend& b : in_tree_manifest_backends()) out.push_back(std::move(b));
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
  if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0) return load_manifest_backend(name);
  throw UserError(ErrorKind::Usage,
                  fmt::format("{}: no backend '{}' (backends: {}, or a manifest's path, ending in .json)", where, name,
                              fmt::join(names, ", ")));
}

const Backend& backend_of(const oracle::CompilerUnderTest& compiler) {
  for (const auto& b : all_backends()) {
    if (b.compiler == &compiler) return b;
  }
  LoadedManifests& loaded = loaded_manifests();
  std::lock_guard<std::mutex> lock(loaded.mutex);
  for (const auto& [path, b] : loaded.by_path) {
    if (b->compiler == &compiler) return *b;
  }
  throw InternalError("a compiler under test that no backend names: " + compiler.identity());
}

}  // namespace difftest::backends
