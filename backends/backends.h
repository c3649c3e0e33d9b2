// The compilers difftest can put under test, by the name `--backend` takes: the builtin compiler
// (builtin/, over compiler/), ONNX Runtime (onnxruntime/), and any compiler a manifest describes
// (`--backend path/to/manifest.json`, manifest/). Each says its named variants (the ladder a
// check runs when --opt is not given) and the cross-checks between them.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "oracle/check/compiler.h"

namespace difftest::backends {

struct Backend {
  std::string name;    // what --backend takes: "builtin", "ort"
  std::string folder;  // its folder under backends/
  const oracle::CompilerUnderTest* compiler = nullptr;
  std::vector<std::string> levels;  // its named variants, lowest first
  std::vector<std::string> default_opt;  // what its default check runs, on any machine
  // The default check's levels this machine runs natively (empty: default_opt): a level that
  // needs a capability the CPU lacks (OpenVINO's bf16 inference) is left out here.
  std::function<std::vector<std::string>()> default_levels_here;
  std::vector<std::string> default_levels() const { return default_levels_here ? default_levels_here() : default_opt; }
  int default_orders = 0;  // random orders of its steps a default check adds
  // The generator's float dtypes for it (GeneratorOptions::float_dtypes; "": the generator's).
  std::string float_dtypes;
  // Percent of the generator's picks that are motifs (GeneratorOptions::motif_percent).
  uint32_t motif_percent = 0;
  // The dtypes it computes as declared (GeneratorOptions::dtypes; empty: all).
  std::vector<DType> dtypes;
  // Whether it can be handed a program (GeneratorOptions::can_take; empty: any): an ONNX
  // backend takes only what the exporter has a form for.
  std::function<bool(const Program&)> can_take;
  // Ops drawn in fewer float dtypes than float_dtypes (GeneratorOptions::op_float_dtypes).
  std::map<std::string, std::vector<DType>> op_float_dtypes;
  // Variant pairs whose outputs a default check also compares with each other.
  std::vector<std::pair<std::string, std::string>> cross_checks;
  // Whether integer overflow wraps in what it runs, as difftest's IR defines it (the builtin
  // compiler); an exported ONNX model leaves it undefined (tolerance::Options).
  bool wraps_integer_overflow = false;
  // Whether it may compute f16 nodes in f32, rounding only at the graph's casts and outputs
  // (tolerance::Options::half_may_compute_in_f32).
  bool computes_half_in_f32 = false;
  bool builtin() const { return name == "builtin"; }
  // "" when it can run here, else why not (a package not installed).
  std::function<std::string()> why_missing;
  // Its version as reports name it.
  std::function<std::string()> version_of;
  std::string missing() const { return why_missing ? why_missing() : ""; }
  std::string version() const { return version_of ? version_of() : "(unknown)"; }
};

const std::vector<Backend>& all_backends();
// The backend `--backend NAME` names: a registered one, or for a path to a .json file the
// compiler its manifest describes (read once; UserError naming the file and field when
// malformed). UserError(Usage) naming `where` and the backends there are for any other name.
const Backend& find_backend(const std::string& name, const std::string& where);
// The backend whose compiler is `compiler`.
const Backend& backend_of(const oracle::CompilerUnderTest& compiler);

}  // namespace difftest::backends
