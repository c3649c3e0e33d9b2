#include "tolerance/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "compiler/support/diagnostics.h"

namespace difftest::tolerance {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

std::vector<int64_t> coords(int64_t flat, const std::vector<int64_t>& shape) {
  std::vector<int64_t> c(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    c[d] = flat % shape[d];
    flat /= shape[d];
  }
  return c;
}

// The choice of `choices` nearest to v.
double nearest_choice(const std::vector<double>& choices, double v) {
  double best = choices.front();
  for (double c : choices) {
    if (std::fabs(v - c) < std::fabs(v - best)) best = c;
  }
  return best;
}

// The shared loop: element i passes when |x_i - y_i| <= safety * allowance_i + tiny. An
// uncertain element with choices (Bounded::choices) is compared with the choice nearest to x_i,
// and with `both`, x_i and y_i each with the one nearest to it (two candidates may decide
// differently).
template <typename X, typename Y, typename E>
OutputComparison run(const Bounded& ref, X x, Y y, E allowance, const Options& opt, bool both) {
  OutputComparison c;
  c.dtype = ref.dtype;
  c.exact = !is_float(ref.dtype);
  const double tiny = smallest_normal(ref.dtype);
  bool have_worst = false;
  for (int64_t i = 0; i < ref.numel(); ++i) {
    const auto k = static_cast<size_t>(i);
    const std::vector<double>* choices = nullptr;
    if (ref.uncertain[k]) {
      const auto it = ref.choices.find(k);
      if (it == ref.choices.end()) {
        ++c.uncertain;
        continue;
      }
      choices = &it->second;
    }
    ++c.compared;
    double a = x(i), b = y(i), e = allowance(i);
    if (choices != nullptr) {
      // Judged against the outcome nearest to each value, within the element's own bound.
      e = ref.err[k];
      const double a_choice = nearest_choice(*choices, a);
      const double b_choice = both ? nearest_choice(*choices, b) : a_choice;
      if (both && std::fabs(b - b_choice) - std::fabs(a - a_choice) > 0) {
        a = b;
        b = b_choice;
      } else {
        b = a_choice;
      }
    }
    const double diff = std::fabs(a - b);
    double ratio;
    bool fail;
    if (c.exact) {
      fail = !(a == b);
      ratio = fail ? std::numeric_limits<double>::infinity() : 0;
    } else {
      fail = !(diff <= opt.safety * e + tiny);  // NaN fails
      ratio = e > 0 ? diff / e : (diff <= tiny ? 0 : std::numeric_limits<double>::infinity());
      if (std::isnan(diff)) ratio = std::numeric_limits<double>::infinity();
    }
    c.failing += fail;
    if (!have_worst || ratio > c.worst_ratio) {
      have_worst = true;
      c.worst_ratio = ratio;
      c.worst_index = coords(i, ref.shape());
      c.got = a;
      c.want = b;
      c.bound = e;
    }
  }
  return c;
}

void check_shape(const Bounded& ref, const Tensor& got) {
  if (got.shape() != ref.shape()) {
    throw UserError(ErrorKind::Shape, fmt::format("candidate has shape {}, the reference {}", shape_str(got.shape()),
                                                  shape_str(ref.shape())));
  }
}

nlohmann::json number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

}  // namespace

OutputComparison compare_output(const Bounded& ref, const Tensor& got, const Options& opt) {
  check_shape(ref, got);
  return run(
      ref, [&](int64_t i) { return got.get(i); }, [&](int64_t i) { return ref.ref[static_cast<size_t>(i)]; },
      [&](int64_t i) { return ref.err[static_cast<size_t>(i)]; }, opt, false);
}

OutputComparison compare_candidates(const Bounded& ref, const Tensor& a, const Tensor& b, const Options& opt) {
  check_shape(ref, a);
  check_shape(ref, b);
  return run(
      ref, [&](int64_t i) { return a.get(i); }, [&](int64_t i) { return b.get(i); },
      [&](int64_t i) { return 2 * ref.err[static_cast<size_t>(i)]; }, opt, true);
}

double OutputComparison::checked_share() const {
  const int64_t total = compared + uncertain;
  if (total == 0) return 1;
  return static_cast<double>(calibrated ? checked : compared) / static_cast<double>(total);
}

void compare_statistically(const Bounded& sound, const Bounded& calibrated, const OutputSpread& spread,
                           const Tensor& got, const Options& opt, const EnsembleOptions& options, OutputComparison& c) {
  check_shape(sound, got);
  c.calibrated = true;
  if (c.exact || !statistical_dtype(sound.dtype)) {
    c.checked = c.compared;
    return;
  }
  const double tiny = smallest_normal(sound.dtype);
  std::vector<uint8_t> statistical(static_cast<size_t>(sound.numel()), 0);
  std::vector<double> values(statistical.size());
  for (size_t i = 0; i < statistical.size(); ++i) {
    values[i] = got.get(static_cast<int64_t>(i));
    const double allowance = calibrated.err[i];
    statistical[i] = !calibrated.uncertain[i] && std::isfinite(allowance);
    if (!sound.uncertain[i] || statistical[i] || sound.choices.count(i) > 0) ++c.checked;
    if (!statistical[i]) continue;
    const double diff = std::fabs(values[i] - sound.ref[i]);
    const bool sound_failure = !sound.uncertain[i] && !(diff <= opt.safety * sound.err[i] + tiny);
    // Beyond the slack of `tiny` only, as the outlier test counts: above 1 exactly at an outlier.
    const double excess = diff <= tiny ? 0 : allowance > 0 ? (diff - tiny) / allowance : kInfinity;
    const bool outlier = !sound_failure && !(diff <= allowance + tiny);
    c.outliers += outlier;
    if (sound_failure || !(excess > c.worst_excess || (std::isnan(diff) && c.excess_index.empty()))) continue;
    c.worst_excess = std::isnan(diff) ? kInfinity : excess;
    c.excess_index = coords(static_cast<int64_t>(i), sound.shape());
    c.excess_got = values[i];
    c.excess_want = sound.ref[i];
    c.excess_allowance = allowance;
    c.excess_sigma = spread.sigma.empty() ? 0 : spread.sigma[i];
  }
  c.bias = bias_check(calibrated, spread, statistical, values, options.bias_margin);
}

Comparison compare_outputs(const Program& p, const BoundedProgram& bp, const std::vector<Tensor>& got,
                           const Options& opt, const Calibration* calibration) {
  if (got.size() != bp.outputs.size()) {
    throw UserError(ErrorKind::Arity, fmt::format("{} candidate outputs for {} program outputs", got.size(),
                                                  bp.outputs.size()));
  }
  Comparison c;
  c.options = opt;
  for (size_t i = 0; i < got.size(); ++i) {
    OutputComparison o;
    try {
      o = compare_output(*bp.outputs[i], got[i], opt);
      if (calibration != nullptr && !calibration->bounds.invalid) {
        compare_statistically(*bp.outputs[i], *calibration->bounds.outputs[i], calibration->outputs[i], got[i], opt,
                              calibration->options, o);
      }
    } catch (const UserError& e) {
      throw UserError(e.kind(), fmt::format("output {} (%{}): {}", i, p.outputs()[i].name(), e.message()));
    }
    o.index = i;
    o.name = "%" + p.outputs()[i].name();
    c.outputs.push_back(o);
  }
  return c;
}

std::string bound_summary(const Bounded& b) {
  std::vector<double> abs_b, rel_b;
  for (size_t i = 0; i < b.err.size(); ++i) {
    if (b.uncertain[i]) continue;
    abs_b.push_back(b.err[i]);
    if (b.ref[i] != 0) rel_b.push_back(b.err[i] / std::fabs(b.ref[i]));
  }
  auto stat = [](std::vector<double>& v, double q) {
    if (v.empty()) return 0.0;
    const auto k = static_cast<size_t>(q * static_cast<double>(v.size() - 1));
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
    return v[k];
  };
  const double mn = stat(abs_b, 0), md = stat(abs_b, 0.5), mx = stat(abs_b, 1);
  const double rmd = stat(rel_b, 0.5), rmx = stat(rel_b, 1);
  return fmt::format("bound min={:.3g} median={:.3g} max={:.3g}, relative to |ref|: median={:.3g} max={:.3g}, "
                     "uncertain={} of {}",
                     mn, md, mx, rmd, rmx, b.uncertain_count(), b.numel());
}

std::string statistical_summary(const OutputComparison& o) {
  std::string s = fmt::format("statistical: checked {:.1f}% ({} of {}), {} outlier{}", 100 * o.checked_share(),
                              o.checked, o.compared + o.uncertain, o.outliers, o.outliers == 1 ? "" : "s");
  if (!o.excess_index.empty()) {
    s += fmt::format(", worst excess {:.3g} at [{}]: got {:.9g}, want {:.9g}, allowance {:.3g}, sigma {:.3g}",
                     o.worst_excess, fmt::join(o.excess_index, ", "), o.excess_got, o.excess_want, o.excess_allowance,
                     o.excess_sigma);
  }
  if (o.bias.elements > 0) s += "; " + o.bias.describe();
  return s;
}

bool Comparison::has_outlier() const {
  for (const auto& o : outputs) {
    if (o.has_outlier()) return true;
  }
  return false;
}

bool Comparison::has_unchecked(double min_share) const {
  return std::any_of(outputs.begin(), outputs.end(), [&](const OutputComparison& o) { return o.unchecked(min_share); });
}

bool Comparison::passed() const {
  for (const auto& o : outputs) {
    if (!o.passed()) return false;
  }
  return true;
}

double Comparison::worst_ratio() const {
  double w = 0;
  for (const auto& o : outputs) w = std::max(w, o.worst_ratio);
  return w;
}

nlohmann::json Comparison::to_json() const {
  nlohmann::json j;
  j["passed"] = passed();
  j["outlier"] = has_outlier();
  j["unchecked"] = has_unchecked();
  j["bound_mode"] = bound_mode_name(options.mode);
  j["safety"] = options.safety;
  if (options.mode == BoundMode::Probabilistic) j["lambda"] = options.lambda;
  j["outputs"] = nlohmann::json::array();
  for (const auto& o : outputs) {
    nlohmann::json x;
    x["index"] = o.index;
    x["name"] = o.name;
    x["dtype"] = dtype_name(o.dtype);
    x["exact"] = o.exact;
    x["compared"] = o.compared;
    x["uncertain"] = o.uncertain;
    x["failing"] = o.failing;
    x["passed"] = o.passed();
    x["worst"] = {{"ratio", number(o.worst_ratio)}, {"index", o.worst_index}, {"got", number(o.got)},
                  {"want", number(o.want)}, {"bound", number(o.bound)}};
    if (o.calibrated) {
      x["statistical"] = {{"checked", o.checked},
                          {"checked_share", o.checked_share()},
                          {"outliers", o.outliers},
                          {"worst",
                           {{"excess", number(o.worst_excess)},
                            {"index", o.excess_index},
                            {"got", number(o.excess_got)},
                            {"want", number(o.excess_want)},
                            {"allowance", number(o.excess_allowance)},
                            {"sigma", number(o.excess_sigma)}}},
                          {"bias",
                           {{"elements", o.bias.elements},
                            {"z_signed", number(o.bias.z_signed)},
                            {"z_toward_zero", number(o.bias.z_toward_zero)},
                            {"null_spread", number(o.bias.null_spread)},
                            {"limit", number(o.bias.limit)},
                            {"biased", o.bias.biased()}}}};
    }
    j["outputs"].push_back(x);
  }
  return j;
}

}  // namespace difftest::tolerance
