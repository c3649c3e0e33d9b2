// A compiler under test described by a file instead of code: the manifest a user writes for
// their own compiler and passes as `--backend path/to/manifest.json`. It names the worker to
// start (any language, speaking the protocol of docs/backends.md), the form the program is
// handed over in, the compiler's levels and the steps each applies, the default check, how a
// culprit is searched, and the reproducer templates. docs/backends.md lists every field.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backends/kit/model_files.h"
#include "backends/manifest/manifest_orders.h"
#include "compiler/types/dtype.h"

namespace difftest::backends {

// How the culprit of a failing level is searched.
enum class CulpritSearch {
  DisableList,  // the worker takes a list of steps to switch off ("disable"); the harness bisects
                // over the level's declared steps by disabling a suffix, then shrinks the set
  OptBisect,    // the worker takes "limit": apply only the first N optional step applications
  None,         // the compiler offers no switch: the failing level is the finding
};

struct Level {
  std::string name;
  std::string description;  // what it compiles with, for reports ("": none given)
  // The optional steps it applies, in order (what a culprit can be): empty for a level that
  // applies none, such as the baseline.
  std::vector<std::string> steps;
  // What the worker needs to compile it (an object the harness does not read), sent in each run
  // request and written into a reproducer's expected.json.
  nlohmann::json config = nlohmann::json::object();
  // A level that computes the program's floats in a narrower dtype (an inference precision of
  // bf16 or f16): judged against the program as tolerance/precision.h narrows it, not the
  // program's own allowance.
  std::optional<DType> precision = std::nullopt;
  // What the compiler must report it can do natively (a capability in its worker's version
  // answer, such as OpenVINO's "BF16") for the level to join the default check: where it cannot,
  // the level would compile the wider precision's code and check nothing more.
  std::string needs;
};

struct Manifest {
  std::string path;  // the manifest file, absolute
  std::string dir;   // its directory: relative paths in it are relative to this
  std::string name;  // what records and corpus entries name it by
  std::string description;
  std::vector<std::string> worker;  // argv; "{manifest_dir}" in an argument is replaced by `dir`
  std::string install_hint;         // how to install the worker, for the message when it is missing
  ModelFormat model_format = ModelFormat::Onnx;
  std::vector<Level> levels;  // lowest first
  std::string baseline;       // the level that applies no optimization ("": none)
  std::vector<std::string> default_levels;  // what a check runs when --opt is not given
  std::vector<std::pair<std::string, std::string>> cross_checks;
  bool specialize = true;  // also compile the last default level on the program with its dims fixed
  CulpritSearch culprit_search = CulpritSearch::None;
  // Reproducer files: the name written beside repro.ir -> the template (a path relative to `dir`),
  // in which {{name}}, {{version}}, {{level}}, {{level_description}}, {{baseline}}, {{disabled}},
  // {{disabled_text}}, {{model}}, {{binding}}, {{expected}}, {{verdict}}, {{message}},
  // {{program}}, {{platform}}, {{difftest_version}} and {{python_check}} (a Python function
  // check(label, outputs) judging outputs against DATA["outputs"], exporters/expected_results.h)
  // are replaced. A `report.md` template replaces difftest's report of a reduction, with the
  // culprit search's result in {{culprit}} (its account) and {{culprit_short}} (its name).
  std::map<std::string, std::string> reproducer;
  std::string float_dtypes;  // the generator's float dtypes for it ("": the generator's own)
  // The dtypes it computes as declared (empty: all). A program with a value of another dtype is
  // `unsupported` with `dtypes_reason` (a compiler that converts f64 to f32 documents it).
  std::vector<DType> dtypes;
  std::string dtypes_reason;
  bool wraps_integer_overflow = false;
  bool computes_half_in_f32 = false;
  // Random valid orders of its steps a check adds beside the levels ("order1", ...), each run by
  // the worker from the request's "steps" under `random_orders.config`.
  RandomOrders random_orders;

  const Level* level(const std::string& name) const;
  std::vector<std::string> level_names() const;
};

// Reads and checks a manifest: UserError(Io) when unreadable, UserError(Syntax) naming the
// file with the line and column of malformed JSON or the field that is missing, of the wrong
// kind or inconsistent (a default level, baseline or cross-check naming no level).
Manifest read_manifest(const std::string& path);

std::string culprit_search_name(CulpritSearch c);

}  // namespace difftest::backends
