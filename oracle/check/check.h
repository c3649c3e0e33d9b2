// Checking one program: every requested pipeline under every binding, each compile-and-run
// in an isolated child, compared with the bounded reference computed in the parent.
#pragma once

#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "oracle/check/case.h"
#include "oracle/check/compiler.h"
#include "oracle/check/variant.h"
#include "oracle/check/verdict.h"
#include "oracle/isolate/isolate.h"
#include "tolerance/compare.h"
#include "tolerance/ensemble.h"
#include "tolerance/error_model.h"

namespace difftest::oracle {

struct CheckOptions {
  // The compiler's named variants, lowest first: the builtin's pipelines (pipelines.cc), another
  // compiler's levels (ONNX Runtime's optimization levels, a manifest's).
  std::vector<std::string> levels = {"O0"};
  // Lists of steps the user spelt out (the builtin's `--passes`, a corpus entry's `# passes:`),
  // VariantKind::Custom: the builtin compiler checks them after its named variants.
  std::vector<Variant> custom;
  int random_orders = 0;  // random valid pass orders (backends/builtin/random_orders.h), seeded by the program hash
  // Levels whose outputs are also compared with each other (sum of both bounds) when both ran.
  std::vector<std::pair<std::string, std::string>> cross_checks = {{"O0", "O3"}};
  // Also compile the last level on the program with its dims fixed to one binding
  // (SpecializeShapes first), compared with the reference and with the symbolic compile.
  bool specialize = true;
  std::vector<sym::Env> bindings;  // empty: reference::standard_bindings plus random_bindings more
  int random_bindings = 2;         // drawn uniformly from the dims' ranges, seeded by the program hash
  uint64_t input_seed = 0;
  tolerance::Options tolerance = [] {
    tolerance::Options o;
    o.mode = tolerance::BoundMode::Probabilistic;
    return o;
  }();
  // The statistical tier: an ensemble of the reference in the program's precision (members 0:
  // the sound bounds only). Its draws are seeded by input_seed.
  tolerance::EnsembleOptions ensemble;
  // An output with a smaller share of its elements compared by either tier is `unchecked`.
  double min_checked_share = tolerance::kMinCheckedShare;
  // The CPU-time limit bounds the compile and each binding's run separately; limits.deadline,
  // when set, stops the whole check (Verdict::cancelled).
  IsolationLimits limits;
  // A try that exceeds its CPU budget is run again with this many times the budget; only a
  // second timeout is a `timeout` verdict.
  double confirm_factor = 4;
  // false: a try that times out is the verdict at once. For checks whose timeouts are never
  // reported, only used to reject (a reduction looking for another kind of failure).
  bool confirm_timeouts = true;
  bool isolate = true;     // false: in process (for debugging; a crash takes the harness down)
  // Stop at the first failing variant (what bisection and reduction need to start from).
  bool first_failure_only = false;

  // The compiler under test (compiler.h), which every check needs: the commands take it from the
  // backend registry (backends/backends.h), the tests from tests/support/check_options.h.
  const CompilerUnderTest* compiler = nullptr;
  // *compiler; an internal error when it was not set.
  const CompilerUnderTest& under_test() const;

  // How each binding's case is built (check/case.h).
  CaseOptions cases() const { return {input_seed, tolerance, ensemble}; }
};

// What `difftest --seed`, `run`, `fuzz` and `gate` check when no flag says otherwise: every
// named pipeline O0..O3 and two random pass orders, on top of CheckOptions' defaults (the
// O0~O3 cross-check, the specialized compile, the standard and two random bindings).
CheckOptions default_check_options();

// The bindings check_program uses when none are given: the standard ones (every dim at its
// lower bound, an odd middle value and its maximum, all at their maxima), then `random` more,
// uniform in the ranges and seeded by the program's hash; duplicates dropped.
std::vector<sym::Env> default_bindings(const Program& p, int random);

// Verdict::faults records the faults on in the compiler under test (CompilerUnderTest::planted_faults).
Verdict check_program(const Program& p, const CheckOptions& options);

// One variant under one binding, on its own (what bisection and reduction repeat): its compile
// compared with the reference, or for a cross-check both compiles compared with the reference
// and with each other. `options`' levels, orders, bindings and cross-checks are not used.
Verdict check_variant(const Program& p, const VariantId& id, const sym::Env& binding, const CheckOptions& options);

// The outputs of one compile under one case, and their comparison with it.
struct CaseOutputs {
  std::vector<Tensor> outputs;
  tolerance::Comparison comparison;
};

// One variant (not a cross-check) under one case, its outputs kept: what `difftest run --bind`
// prints and dumps, by the same compile-run-compare path check_program takes. `verdict` holds
// its variant verdict, or its failure.
struct CaseRun {
  Verdict verdict;
  std::optional<CaseOutputs> result;  // when the compile and the run finished
  size_t kernels = 0;                 // of the compiled program
};
CaseRun run_case(const Program& p, const Variant& variant, const Case& c, const CheckOptions& options);

// What a check of one variant showed: its first failure, else its last variant (the
// cross-check of a cross-check), else ok.
VariantVerdict outcome_of(const Verdict& v);

}  // namespace difftest::oracle
