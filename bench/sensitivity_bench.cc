// Sensitivity of the oracle (issue 17): how much of each output it compares, the smallest
// single-element change it detects, how its allowances compare with the spread of legitimate
// results, and whether planted bugs in the Gemma-3 local layer are caught — for the sound tier
// alone ("before": what a verdict rested on without the ensemble) and with the statistical
// tier ("after"). A measurement: it prints tables and exits 0 whatever they say.
//
// Candidates are the reference's native-mode outputs (a correct implementation) with one
// element scaled by 1 + delta; planted bugs are the native outputs of the program with one
// attribute or one input changed, checked at the output and with every intermediate value probed
// (oracle/check/probes.h). The spread of legitimate results is max |got - ref| over
// the compiled O0..O3 and two random pass orders, per element; a second table sets two correct
// implementations at the extremes of rounding side by side (twin_table).
//
// Usage: sensitivity_bench [--programs N] [--members M] [--no-compile] [--no-planted] [--only NAME]
//   --programs N   generated programs of seeds 1..N for the per-dtype table (default 200)
//   --members M    the ensemble's size (default 8)
//   --no-compile   skip the allowance-to-spread column (no compiles)
//   --no-planted   skip the planted bugs (the Gemma layer at n = 520)
//   --only NAME    only the corpus subjects whose label contains NAME (and no generated programs)
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "backends/builtin/builtin_compiler.h"
#include "backends/builtin/random_orders.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/pipeline/pipelines.h"
#include "compiler/tensor/float_format.h"
#include "fuzz/generator.h"
#include "oracle/check/check.h"
#include "oracle/check/probes.h"
#include "reference/inputs.h"
#include "reference/reference.h"
#include "reference/summary.h"
#include "tolerance/compare.h"

namespace {

using namespace difftest;

struct Flags {
  int programs = 200, members = 8;
  bool compile = true, planted = true;
  std::string only;
};

// One program under one binding: the oracle's case (inputs, bounds, calibration) and a correct
// candidate.
struct Case {
  std::string label;
  Program program;
  oracle::CheckOptions options;  // what the oracle's check would use
  oracle::Case bounded;
  std::vector<Tensor> native;
  const tolerance::BoundedProgram& sound() const { return bounded.bounds; }
  const tolerance::Calibration* calibration() const { return bounded.calibration ? &*bounded.calibration : nullptr; }
};

Case make_case(const std::string& label, const Program& p, const sym::Env& env, int members) {
  Case c{label, p, {}, {}, {}};
  c.options.compiler = &backends::builtin_compiler();
  c.options.ensemble.members = members;
  // The check's compile-run path runs each pipeline in a child under a CPU budget; a
  // measurement on a slow host must not turn into a timeout.
  c.options.limits.cpu_seconds = 600;
  c.bounded = oracle::make_case(p, env, c.options.cases());
  if (!c.bounded.invalid()) c.native = reference::evaluate(p, env, c.bounded.inputs, reference::Mode::Native).outputs;
  return c;
}

bool covered(const Case& c, size_t o) {
  const DType t = c.program.outputs()[o].type().dtype;
  return tolerance::statistical_dtype(t) && !c.sound().invalid;
}

// `got` compared for output `o` by the sound tier, and by the statistical tier when calibrated.
tolerance::OutputComparison compare(const Case& c, size_t o, const Tensor& got) {
  tolerance::OutputComparison r = tolerance::compare_output(*c.sound().outputs[o], got, c.options.tolerance);
  if (c.calibration()) {
    tolerance::compare_statistically(*c.sound().outputs[o], *c.calibration()->bounds.outputs[o],
                                     c.calibration()->outputs[o], got, c.options.tolerance, c.calibration()->options,
                                     r);
  }
  return r;
}

struct Detection {
  bool sound = false, either = false;
};

// Whether `got` is caught for output `o`: by the sound tier, and by either tier.
Detection detect(const Case& c, size_t o, const Tensor& got) {
  const tolerance::OutputComparison r = compare(c, o, got);
  return {!r.passed(), !r.passed() || r.has_outlier()};
}

// Shares of the elements of output `o` that the sound tier and either tier compare.
std::pair<double, double> shares(const Case& c, size_t o) {
  const tolerance::OutputComparison r = compare(c, o, c.native[o]);
  const auto n = static_cast<double>(std::max<int64_t>(1, r.compared + r.uncertain));
  return {static_cast<double>(r.compared) / n, r.checked_share()};
}

constexpr double kDeltas[] = {1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 0.1, 0.3, 1, 3, 10};

// The smallest relative change of element `i` detected (by the sound tier, by either); inf if none.
std::pair<double, double> smallest_change(const Case& c, size_t o, size_t i) {
  double sound = INFINITY, either = INFINITY;
  for (double delta : kDeltas) {
    Tensor got = c.native[o];
    got.set(static_cast<int64_t>(i), c.sound().outputs[o]->ref[i] * (1 + delta));
    if (got.get(static_cast<int64_t>(i)) == c.native[o].get(static_cast<int64_t>(i))) continue;  // below an ulp
    const Detection d = detect(c, o, got);
    if (d.sound && std::isinf(sound)) sound = delta;
    if (d.either && std::isinf(either)) either = delta;
    if (!std::isinf(sound)) break;
  }
  return {sound, either};
}

// The element of median |ref| and the element of largest |ref| among the nonzero ones, by flat index.
std::pair<size_t, size_t> median_and_max(const Case& c, size_t o) {
  std::vector<std::pair<double, size_t>> v;
  const tolerance::Bounded& s = *c.sound().outputs[o];
  for (size_t i = 0; i < s.ref.size(); ++i) {
    if (s.ref[i] != 0) v.emplace_back(std::fabs(s.ref[i]), i);
  }
  if (v.empty()) return {0, 0};
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2].second, v.back().second};
}

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

std::string pct(double x) { return std::isnan(x) ? "-" : fmt::format("{:.1f}%", 100 * x); }
std::string change(double x) { return std::isinf(x) ? "none <= 10x" : fmt::format("{:g}%", 100 * x); }

// Median over elements of allowance / spread and sound bound / spread, where spread is the
// largest deviation of O0..O3 and two random orders; also whether any of them was flagged.
struct Tightness {
  double allowance_ratio = NAN, bound_ratio = NAN;
  int flagged = 0, runs = 0;
};

Tightness tightness(const Case& c, size_t o) {
  Tightness t;
  std::vector<pipeline::Pipeline> pipes;
  for (const char* name : {"O0", "O1", "O2", "O3"}) pipes.push_back(pipeline::find_pipeline(name));
  for (auto& order : backends::random_pass_orders(c.program, 2)) pipes.push_back(std::move(order));
  const tolerance::Bounded& s = *c.sound().outputs[o];
  std::vector<double> spread(s.ref.size(), 0);
  for (const auto& pipe : pipes) {
    const oracle::CaseRun r = oracle::run_case(c.program, backends::variant_of_pipeline(pipe), c.bounded, c.options);
    ++t.runs;
    if (!r.result) {  // a crash or a timeout of the clean compiler: flagged, no spread
      ++t.flagged;
      continue;
    }
    t.flagged += !r.result->comparison.passed() || r.result->comparison.has_outlier();
    for (size_t i = 0; i < spread.size(); ++i) {
      spread[i] = std::max(spread[i], std::fabs(r.result->outputs[o].get(static_cast<int64_t>(i)) - s.ref[i]));
    }
  }
  std::vector<double> allowance, bound;
  const tolerance::Bounded& cal = *c.calibration()->bounds.outputs[o];
  for (size_t i = 0; i < spread.size(); ++i) {
    if (!(spread[i] > 0)) continue;
    if (!cal.uncertain[i]) allowance.push_back(cal.err[i] / spread[i]);
    if (!s.uncertain[i]) bound.push_back(s.err[i] / spread[i]);
  }
  t.allowance_ratio = median(allowance);
  t.bound_ratio = median(bound);
  return t;
}

Program load(const std::string& relative) {
  Program p = parse_program_file(std::string(DIFFTEST_SOURCE_DIR) + "/" + relative);
  verify(p);
  return p;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  if (at == std::string::npos) throw std::runtime_error("planted bug: no '" + from + "' in the program");
  return text.replace(at, from.size(), to);
}

void subject_table(const std::vector<Case>& cases, const Flags& f) {
  fmt::print(
      "\n| subject | binding | output | elements | compared: sound | both tiers | smallest change, median "
      "element: sound | both | max element: sound | both | allowance / spread | sound bound / spread | "
      "flagged runs |\n|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const Case& c : cases) {
    for (size_t o = 0; o < c.program.outputs().size(); ++o) {
      if (!covered(c, o)) continue;
      const auto [sound_share, both_share] = shares(c, o);
      const auto [med, max] = median_and_max(c, o);
      const auto med_change = smallest_change(c, o, med);
      const auto max_change = smallest_change(c, o, max);
      Tightness t;
      if (f.compile && c.calibration()) t = tightness(c, o);
      fmt::print("| {} | {} | %{} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", c.label,
                 reference::binding_str(c.bounded.env), c.program.outputs()[o].name(), c.sound().outputs[o]->numel(),
                 pct(sound_share), pct(both_share), change(med_change.first), change(med_change.second),
                 change(max_change.first), change(max_change.second),
                 std::isnan(t.allowance_ratio) ? "-" : fmt::format("{:.3g}", t.allowance_ratio),
                 std::isnan(t.bound_ratio) ? "-" : fmt::format("{:.3g}", t.bound_ratio),
                 t.runs ? fmt::format("{} of {}", t.flagged, t.runs) : "-");
    }
  }
}

// Two correct implementations at the extremes of rounding: op by op in the declared dtypes,
// rounding every intermediate (the native outputs), and every intermediate exact with one
// rounding at the output (the f64 reference rounded to the output's dtype, as a fully fused
// kernel computing wide would give). Their difference, relative to |ref| at the elements within
// 2x of the median |ref|, is a floor under any allowance that never flags a correct result: no
// oracle can catch a single-element change there smaller than it. Printed with the allowance
// (the calibrated bound) at the same elements, and their median ratio.
void twin_table(const std::vector<Case>& cases) {
  fmt::print(
      "\n| subject | binding | output | elements within 2x of the median |ref| | op by op vs rounded once: "
      "median | p99 | max | share > 1% | allowance: median | allowance / difference: median |\n"
      "|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const Case& c : cases) {
    for (size_t o = 0; o < c.program.outputs().size(); ++o) {
      if (!covered(c, o) || !c.calibration()) continue;
      const tolerance::Bounded& s = *c.sound().outputs[o];
      const tolerance::Bounded& cal = *c.calibration()->bounds.outputs[o];
      const DType t = c.program.outputs()[o].type().dtype;
      const double med = std::fabs(s.ref[median_and_max(c, o).first]);
      std::vector<double> difference, allowance, ratio;
      for (size_t i = 0; i < s.ref.size(); ++i) {
        const double r = std::fabs(s.ref[i]);
        if (!(r >= med / 2 && r <= 2 * med) || cal.uncertain[i]) continue;
        const double d = std::fabs(c.native[o].get(static_cast<int64_t>(i)) - round_to_float_dtype(s.ref[i], t));
        difference.push_back(d / r);
        allowance.push_back(cal.err[i] / r);
        if (d > 0) ratio.push_back(cal.err[i] / d);
      }
      if (difference.empty()) continue;
      std::sort(difference.begin(), difference.end());
      const size_t n = difference.size();
      const auto above = std::count_if(difference.begin(), difference.end(), [](double x) { return x > 0.01; });
      fmt::print("| {} | {} | %{} | {} | {:.3g}% | {:.3g}% | {:.3g}% | {} | {:.3g}% | {:.3g} |\n", c.label,
                 reference::binding_str(c.bounded.env), c.program.outputs()[o].name(), n, 100 * difference[n / 2],
                 100 * difference[n * 99 / 100], 100 * difference.back(),
                 pct(static_cast<double>(above) / static_cast<double>(n)), 100 * median(allowance), median(ratio));
    }
  }
}

// The first value of the probed program (oracle/check/probes.h), in program order, at which
// `got` is caught: "%v: mismatch (N elements)", "%v: outlier (...)", or "NO".
std::string first_caught_value(const Case& probed, const std::vector<Tensor>& got) {
  for (size_t o = 0; o < probed.program.outputs().size(); ++o) {
    const tolerance::OutputComparison r = compare(probed, o, got[o]);
    const std::string& name = probed.program.outputs()[o].name();
    if (!r.passed()) return fmt::format("%{}: mismatch ({} of {} elements)", name, r.failing, r.compared);
    if (r.outliers > 0) return fmt::format("%{}: outlier ({} of {} elements)", name, r.outliers, r.checked);
    if (r.bias.biased()) return fmt::format("%{}: biased (z {:.3g})", name, r.bias.z_signed);
  }
  return "NO";
}

// Planted bugs in the Gemma-3 local layer: the native outputs of a changed program (or input)
// compared with the original's bounds and calibration; and with every value probed.
void planted_table(const Case& c, const Flags& f) {
  const oracle::ProbeSelection every_value{true, {}};
  const Case probed =
      make_case(c.label, oracle::probe_values(c.program, every_value, "probes"), c.bounded.env, f.members);
  fmt::print(
      "\n| planted bug in {} at {} | exact effect: largest (output ulps) | elements moved >= 1 ulp | largest "
      "(sigmas) | mean square (sigmas) | sound: failing elements | statistical: outliers | bias z (limit) | detected "
      "| every value probed: first caught |\n|---|---:|---:|---:|---:|---:|---:|---:|---|---|\n",
      c.label, reference::binding_str(c.bounded.env));
  const std::string text = print(c.program);
  struct Bug {
    std::string name;
    std::string program;
    std::map<std::string, Tensor> inputs;
  };
  std::vector<Bug> bugs;
  bugs.push_back({"none (the clean program: a correct result)", text, c.bounded.inputs});
  bugs.push_back(
      {"sliding window one key too wide (513)", replaced(text, "window=512", "window=513"), c.bounded.inputs});
  bugs.push_back({"RoPE position of the queries off by one", replaced(text, "rope(%qn)", "rope(%qn, offset=1)"),
                  c.bounded.inputs});
  std::map<std::string, Tensor> scaled = c.bounded.inputs;
  Tensor& scale = scaled.at("sq");
  scale.set(0, scale.get(0) * 1.01);
  bugs.push_back({"one q4 group's scale x 1.01 (%sq[0, 0])", text, scaled});
  bugs.push_back({"softmax over one extra (future) masked key",
                  replaced(text, "causal=true,", "causal=true, offset=1,"), c.bounded.inputs});
  for (const Bug& b : bugs) {
    Program p = parse_program(b.program, "planted.ir");
    verify(p);
    const std::vector<Tensor> got = reference::evaluate(p, c.bounded.env, b.inputs, reference::Mode::Native).outputs;
    const tolerance::OutputComparison r = compare(c, 0, got[0]);
    // What any oracle could see: the bug's exact (f64) effect on the output in units of the
    // output dtype's ulp at the clean value.
    const Tensor exact = reference::evaluate(p, c.bounded.env, b.inputs, reference::Mode::F64).outputs[0];
    const tolerance::Bounded& clean = *c.sound().outputs[0];
    // The same effect in units of the ensemble's sigma per element: its largest, and its mean
    // square, which a test of the deviations' energy would have to find against a correct
    // result's own (a mean square near 1 in these units, by sigma's definition).
    const std::vector<double>& sigma = c.calibration()->outputs[0].sigma;
    double largest = 0, largest_sigmas = 0, square_sigmas = 0;
    int64_t moved = 0;
    for (int64_t i = 0; i < exact.numel(); ++i) {
      const double r0 = clean.ref[static_cast<size_t>(i)];
      const double near = round_to_float_dtype(r0, clean.dtype);
      const double ulp =
          std::fabs(reference::float_neighbour(near, near >= 0 ? INFINITY : -INFINITY, clean.dtype) - near);
      const double effect = std::fabs(exact.get(i) - r0) / ulp;
      largest = std::max(largest, effect);
      moved += effect >= 1;
      if (!sigma.empty() && sigma[static_cast<size_t>(i)] > 0) {
        const double z = std::fabs(exact.get(i) - r0) / sigma[static_cast<size_t>(i)];
        largest_sigmas = std::max(largest_sigmas, z);
        square_sigmas += z * z;
      }
    }
    square_sigmas /= static_cast<double>(std::max<int64_t>(1, exact.numel()));
    const Program probed_bug = oracle::probe_values(p, every_value, "probes");
    const std::vector<Tensor> probed_got =
        reference::evaluate(probed_bug, c.bounded.env, b.inputs, reference::Mode::Native).outputs;
    fmt::print("| {} | {:.3g} | {} | {:.3g} | {:.3g} | {} | {} | {:.3g} ({:.3g}) | {} | {} |\n", b.name, largest, moved,
               largest_sigmas, square_sigmas, r.failing, r.outliers, r.bias.z_signed, r.bias.limit,
               !r.passed()       ? "mismatch"
               : r.has_outlier() ? "outlier"
                                 : "NO",
               first_caught_value(probed, probed_got));
  }
}

// Generated programs: per output dtype, the shares compared and how often a 1% change of the
// median element is caught.
void generated_table(const Flags& f) {
  struct Row {
    int outputs = 0;
    std::vector<double> sound_share, both_share, sound_change, both_change;
  };
  std::map<std::string, Row> rows;
  for (int seed = 1; seed <= f.programs; ++seed) {
    GeneratorOptions g;
    const Program p = generate_program(static_cast<uint64_t>(seed), g);
    const sym::Env env = reference::resolve_binding(p, {}, nullptr);
    const Case c = make_case(fmt::format("seed {}", seed), p, env, f.members);
    if (c.sound().invalid) continue;
    for (size_t o = 0; o < p.outputs().size(); ++o) {
      if (!covered(c, o)) continue;
      Row& r = rows[dtype_name(p.outputs()[o].type().dtype)];
      ++r.outputs;
      const auto [sound_share, both_share] = shares(c, o);
      r.sound_share.push_back(sound_share);
      r.both_share.push_back(both_share);
      const auto [med, max] = median_and_max(c, o);
      (void)max;
      if (c.sound().outputs[o]->ref.empty() || c.sound().outputs[o]->ref[med] == 0) continue;
      const auto ch = smallest_change(c, o, med);
      r.sound_change.push_back(ch.first);
      r.both_change.push_back(ch.second);
    }
  }
  fmt::print(
      "\n| generated (seeds 1..{}, lower bounds) | outputs | median compared: sound | both | median smallest "
      "change, median element: sound | both | 1% caught: sound | both |\n|---|---:|---:|---:|---:|---:|---:|---:|\n",
      f.programs);
  for (const auto& [dtype, r] : rows) {
    const auto caught = [](const std::vector<double>& v) -> double {
      if (v.empty()) return NAN;
      return static_cast<double>(std::count_if(v.begin(), v.end(), [](double d) { return d <= 1e-2; })) /
             static_cast<double>(v.size());
    };
    fmt::print("| {} | {} | {} | {} | {} | {} | {} | {} |\n", dtype, r.outputs, pct(median(r.sound_share)),
               pct(median(r.both_share)), change(median(r.sound_change)), change(median(r.both_change)),
               pct(caught(r.sound_change)), pct(caught(r.both_change)));
  }
}

}  // namespace

int main(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--programs" && i + 1 < argc) {
      f.programs = std::atoi(argv[++i]);
    } else if (a == "--members" && i + 1 < argc) {
      f.members = std::atoi(argv[++i]);
    } else if (a == "--no-compile") {
      f.compile = false;
    } else if (a == "--no-planted") {
      f.planted = false;
    } else if (a == "--only" && i + 1 < argc) {
      f.only = argv[++i];
    } else {
      fmt::print(stderr,
                 "usage: sensitivity_bench [--programs N] [--members M] [--no-compile] [--no-planted] "
                 "[--only NAME]\n");
      return 2;
    }
  }
  const auto t0 = std::chrono::steady_clock::now();
  struct Subject {
    const char* file;
    const char* dim;
    std::vector<int64_t> values;
  };
  const std::vector<Subject> subjects = {{"corpus/gemma3_local_attention.ir", "n", {1, 64, 520}},
                                         {"corpus/gemma3_global_attention.ir", "kv", {256}},
                                         {"corpus/geglu_mlp.ir", "n", {32}},
                                         {"corpus/kokoro_decoder_block.ir", "t", {128}},
                                         {"corpus/sliding_window_sink_decode.ir", "n", {64}}};
  std::vector<Case> cases;
  for (const auto& s : subjects) {
    if (!f.only.empty() && std::string(s.file).find(f.only) == std::string::npos) continue;
    const Program p = load(s.file);
    for (int64_t v : s.values) cases.push_back(make_case(s.file, p, {{s.dim, v}}, f.members));
  }
  fmt::print("sensitivity_bench: ensemble of {} members, probabilistic sound bounds (lambda 6), inputs from seed 0\n",
             f.members);
  subject_table(cases, f);
  twin_table(cases);
  if (f.planted && f.members > 0) {
    for (const Case& c : cases) {
      if (c.label.find("gemma3_local") != std::string::npos && c.bounded.env.at("n") == 520) planted_table(c, f);
    }
  }
  if (f.only.empty() && f.programs > 0) generated_table(f);
  fmt::print("\n{:.1f} s\n", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  return 0;
}
