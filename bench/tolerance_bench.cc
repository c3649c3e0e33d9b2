// Tightness of the error bounds (TOLERANCE.md, "Checks the tolerance module itself needs").
//
// For every corpus program (at the binding and inputs `difftest eval` uses by default: dims at
// their lower bounds, input seed 0) and for generated programs (fuzz generator, seeds 1..N,
// input seed 0), the reference runs in native mode — a correct implementation in the declared
// dtypes — and the bounds are computed in deterministic and in probabilistic mode. For every
// value of the program (every binding result, not only the outputs) and every float element
// that is certain and has a bound > 0, ratio = |native - f64 reference| / bound, grouped by op
// family. A tight bound has ratios near 1; a median of 1e-3 would mean the oracle tolerates a
// thousand times the error a correct implementation makes.
//
// It is a measurement: the exit code is 0 whatever the ratios. A ratio above the safety factor
// (2) is a soundness failure of a rule — a correct implementation would be reported as a bug —
// so each one is listed with its program, value, op and element.
//
// Usage: tolerance_bench [--programs N] [--corpus DIR] [--list N] [--all-bindings]
//   --programs N     generated programs of seeds 1..N (default 100)
//   --corpus DIR     the corpus (default: the source tree's corpus/)
//   --list N         list at most N ratios above the safety factor per mode (default 50)
//   --all-bindings   every standard binding (reference::standard_bindings: lower bounds, middle
//                    values, maxima) instead of the lower bounds only: larger K, slower
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "compiler/support/diagnostics.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/ops/op.h"
#include "fuzz/generator.h"
#include "reference/inputs.h"
#include "reference/reference.h"
#include "reference/summary.h"
#include "tolerance/bounds.h"
#include "tolerance/compare.h"

namespace {

using namespace difftest;
using tolerance::BoundMode;

struct Subject {
  std::string label;  // "corpus/x.ir" or "seed 17"
  Program program;
};

// A ratio above the safety factor (or a certain element whose bound is 0 but that differs by
// more than the comparison's slack, or a certain integer element that differs at all).
struct Violation {
  std::string program, value, op;
  std::vector<int64_t> index;
  double ref = 0, native = 0, bound = 0, ratio = 0;
};

struct FamilyStats {
  std::vector<double> ratios;
  int64_t zero = 0;  // ratio exactly 0: native equals the f64 reference
  double worst = -1;
  std::string worst_at;
  int64_t above_one = 0;
};

struct ModeStats {
  std::map<std::string, FamilyStats> families;
  int64_t uncertain = 0;        // float and integer elements excluded as uncertain
  int64_t zero_bound = 0;       // certain float elements with bound 0 (exact), not in the ratios
  int64_t integer_elements = 0; // certain integer/bool elements, compared exactly
  std::vector<Violation> violations;
};

std::vector<int64_t> coords(int64_t flat, const std::vector<int64_t>& shape) {
  std::vector<int64_t> c(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    c[d] = flat % shape[d];
    flat /= shape[d];
  }
  return c;
}

// Adds one program's ratios under one bound mode.
void measure(const Subject& s, const reference::Evaluation& native, const tolerance::BoundedProgram& bp,
             const tolerance::Options& opt, ModeStats& stats) {
  for (const auto& b : s.program.bindings()) {
    if (!b.is_call()) continue;  // params and constants are exact (bound 0)
    const std::string& family = b.op().family;
    for (const auto& v : b.results()) {
      const Tensor& got = native.values.at(v.get());
      const tolerance::Bounded& ref = bp.values.at(v.get());
      const bool exact = !is_float(ref.dtype);
      const double tiny = smallest_normal(ref.dtype);
      FamilyStats& f = stats.families[family];
      for (int64_t i = 0; i < ref.numel(); ++i) {
        const auto k = static_cast<size_t>(i);
        if (ref.uncertain[k]) {
          ++stats.uncertain;
          continue;
        }
        const double g = got.get(i), r = ref.ref[k], e = ref.err[k];
        const double diff = std::fabs(g - r);
        double ratio;
        if (exact) {
          ++stats.integer_elements;
          if (g == r) continue;
          ratio = INFINITY;
        } else if (e == 0) {
          ++stats.zero_bound;
          if (diff <= tiny) continue;
          ratio = INFINITY;
        } else {
          ratio = std::isnan(diff) ? INFINITY : diff / e;
          f.ratios.push_back(ratio);
          f.above_one += ratio > 1;
          f.zero += ratio == 0;
          if (ratio > f.worst) {
            f.worst = ratio;
            f.worst_at = fmt::format("{} %{} ({})", s.label, v.name(), b.op().name);
          }
        }
        if (ratio > opt.safety) {
          stats.violations.push_back(
              Violation{s.label, "%" + v.name(), b.op().name, coords(i, ref.shape()), r, g, e, ratio});
        }
      }
    }
  }
}

double quantile(std::vector<double>& v, double q) {
  if (v.empty()) return 0;
  const auto k = static_cast<size_t>(std::ceil(q * static_cast<double>(v.size() - 1)));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

double nonzero_median(const std::vector<double>& v) {
  std::vector<double> nz;
  for (double r : v) {
    if (r > 0) nz.push_back(r);
  }
  return quantile(nz, 0.5);
}

void print_table(BoundMode mode, ModeStats& stats, size_t list_limit) {
  fmt::print("\n### {} bounds\n\n", tolerance::bound_mode_name(mode));
  // "median > 0": the median over elements where native differs from the reference at all (many
  // elements are computed exactly at small sizes, which says nothing about the bound).
  fmt::print("| family | elements | ratio = 0 | median | median > 0 | p99 | max ratio | ratio > 1 | worst at |\n");
  fmt::print("|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
  std::vector<double> all;
  int64_t all_above = 0, all_zero = 0;
  auto share = [](int64_t part, size_t whole) {
    return fmt::format("{:.0f}%", whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0);
  };
  for (auto& [family, f] : stats.families) {
    if (f.ratios.empty()) continue;
    all.insert(all.end(), f.ratios.begin(), f.ratios.end());
    all_above += f.above_one;
    all_zero += f.zero;
    const double med = quantile(f.ratios, 0.5), p99 = quantile(f.ratios, 0.99);
    fmt::print("| {} | {} | {} | {:.3g} | {:.3g} | {:.3g} | {:.3g} | {} | {} |\n", family, f.ratios.size(),
               share(f.zero, f.ratios.size()), med, nonzero_median(f.ratios), p99, f.worst, f.above_one, f.worst_at);
  }
  const double mx = all.empty() ? 0 : *std::max_element(all.begin(), all.end());
  const double med = quantile(all, 0.5), p99 = quantile(all, 0.99);
  fmt::print("| **all** | {} | {} | {:.3g} | {:.3g} | {:.3g} | {:.3g} | {} | |\n", all.size(),
             share(all_zero, all.size()), med, nonzero_median(all), p99, mx, all_above);
  fmt::print("\nexcluded: {} uncertain elements, {} certain float elements with bound 0 (exact), "
             "{} certain integer/bool elements (compared exactly)\n",
             stats.uncertain, stats.zero_bound, stats.integer_elements);
  if (stats.violations.empty()) {
    fmt::print("no ratio above the safety factor\n");
    return;
  }
  fmt::print("WARNING: {} elements with ratio > safety factor 2 (a correct implementation would fail: "
             "soundness failures):\n",
             stats.violations.size());
  std::sort(stats.violations.begin(), stats.violations.end(),
            [](const Violation& a, const Violation& b) { return a.ratio > b.ratio; });
  for (size_t i = 0; i < stats.violations.size() && i < list_limit; ++i) {
    const Violation& v = stats.violations[i];
    fmt::print("  {} {} ({}) [{}]: ref={:.17g} native={:.17g} bound={:.3g} ratio={:.3g}\n", v.program, v.value, v.op,
               fmt::join(v.index, ", "), v.ref, v.native, v.bound, v.ratio);
  }
  if (stats.violations.size() > list_limit) fmt::print("  ... {} more\n", stats.violations.size() - list_limit);
}

int usage(const char* argv0) {
  fmt::print(stderr, "usage: {} [--programs N] [--corpus DIR] [--list N] [--all-bindings]\n", argv0);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  int64_t programs = 100;
  size_t list_limit = 50;
  std::string corpus = DIFFTEST_SOURCE_DIR "/corpus";
  bool all_bindings = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--all-bindings") {
      all_bindings = true;
      continue;
    }
    if (i + 1 >= argc) return usage(argv[0]);
    if (a == "--programs") {
      programs = std::strtoll(argv[++i], nullptr, 10);
    } else if (a == "--corpus") {
      corpus = argv[++i];
    } else if (a == "--list") {
      list_limit = static_cast<size_t>(std::strtoll(argv[++i], nullptr, 10));
    } else {
      return usage(argv[0]);
    }
  }
  const auto start = std::chrono::steady_clock::now();

  std::vector<Subject> subjects;
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(corpus)) {
    if (e.path().extension() == ".ir") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    try {
      subjects.push_back(Subject{"corpus/" + f.filename().string(), parse_program_file(f.string())});
    } catch (const UserError& e) {
      fmt::print("skipping {}: {}\n", f.string(), e.what());
    }
  }
  const size_t corpus_count = subjects.size();
  for (int64_t seed = 1; seed <= programs; ++seed) {
    subjects.push_back(Subject{fmt::format("seed {}", seed), generate_program(static_cast<uint64_t>(seed))});
  }

  const BoundMode modes[] = {BoundMode::Deterministic, BoundMode::Probabilistic};
  std::map<BoundMode, ModeStats> stats;
  int64_t used = 0, used_corpus = 0, evaluations = 0, invalid = 0, errors = 0;
  std::vector<std::string> invalid_list, error_list;
  for (size_t n = 0; n < subjects.size(); ++n) {
    const Subject& program = subjects[n];
    std::vector<sym::Env> bindings;
    try {
      verify(program.program);
      bindings = all_bindings ? reference::standard_bindings(program.program)
                              : std::vector<sym::Env>{reference::resolve_binding(program.program, {}, nullptr)};
    } catch (const std::exception& e) {
      ++errors;
      error_list.push_back(fmt::format("{}: {}", program.label, e.what()));
      continue;
    }
    bool measured = false;
    for (const sym::Env& env : bindings) {
      Subject s{program.label, program.program};
      if (all_bindings) s.label += " under " + reference::binding_str(env);
      try {
        // The inputs `difftest eval` generates by default (seed 0).
        const auto inputs = reference::generate_inputs(s.program, env, 0);
        const reference::Evaluation native = reference::evaluate(s.program, env, inputs, reference::Mode::Native);
        std::map<BoundMode, tolerance::BoundedProgram> bounds;
        for (BoundMode mode : modes) {
          tolerance::Options opt;
          opt.mode = mode;
          bounds[mode] = tolerance::bound_program(s.program, env, inputs, opt);
          if (bounds[mode].invalid) break;  // decided by the f64 reference alone, whatever the mode
        }
        if (bounds.begin()->second.invalid) {
          ++invalid;
          invalid_list.push_back(fmt::format("{}: {}", s.label, bounds.begin()->second.invalid_reason));
          continue;
        }
        for (BoundMode mode : modes) {
          tolerance::Options opt;
          opt.mode = mode;
          measure(s, native, bounds[mode], opt, stats[mode]);
        }
        ++evaluations;
        measured = true;
      } catch (const std::exception& e) {
        ++errors;
        error_list.push_back(fmt::format("{}: {}", s.label, e.what()));
      }
    }
    used += measured;
    used_corpus += measured && n < corpus_count;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  fmt::print("# Tightness of the error bounds: ratio = |native - f64 reference| / bound\n\n");
  fmt::print("bindings: {}; inputs: generated with seed 0 (as `difftest eval`)\n",
             all_bindings ? "every standard binding" : "dims at their lower bounds (as `difftest eval`)");
  fmt::print("programs used: {} ({} corpus, {} generated of seeds 1..{}); evaluations: {}; skipped as invalid "
             "(non-finite f64 reference): {}; skipped on an error: {}\n",
             used, used_corpus, used - used_corpus, programs, evaluations, invalid, errors);
  for (const auto& line : invalid_list) fmt::print("  invalid: {}\n", line);
  for (const auto& line : error_list) fmt::print("  error: {}\n", line);
  for (BoundMode mode : modes) print_table(mode, stats[mode], list_limit);
  fmt::print("\nruntime: {:.1f} s\n", seconds);
  return 0;
}
