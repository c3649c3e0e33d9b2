// Error rules of quantize and dequantize.
//   dequantize: exact decoding, so only the scales' errors propagate (|q - zp| e_s) plus one
//               rounding to the result dtype.
//   quantize:   its arithmetic is the format's definition, so exact weights give exact codes and
//               scales. Weights carrying errors move the scale (by at most max e_w / 7 or / 8)
//               and each code's rounding point; a code whose decision point lies within that
//               movement of a boundary is uncertain, and so is the word (or byte) holding it.
//               GGML's code trunc(x * id + 8.5) is a multiply-add that C compilers contract
//               into an FMA (GCC does by default on FMA hardware), which rounds once instead of
//               twice: a code whose x * id + 8.5 lies within those roundings of an integer is
//               uncertain even for exact weights (found by the clean-compiler campaign once
//               inputs stopped being multiples of 1/8: x * id = -4.50000023, unfused code 4,
//               fused 3). Where f16 may run in f32 (Options::half_may_compute_in_f32), MLC's
//               f16 steps may be skipped: a code they decide is uncertain (each way of skipping
//               them computed, not bounded).
#include <cmath>

#include "compiler/tensor/float_format.h"
#include "reference/quantize.h"
#include "tolerance/bounds.h"

namespace difftest::tolerance {

namespace {

bool is_ggml(const std::string& f) { return f == "q4_0"; }

// Whether an implementation that runs q4f16_1's f16 nodes in f32 (rounding to f16 only where the
// graph casts: Options::half_may_compute_in_f32) may give weight x another code than `code`, the
// format's. Where the casts fall depends on which kernels the compiler has, so every placement
// is computed: w as it is, in f32 or in f16; each of `scales` (the f16 scale and f32 values of it,
// max |w| / 7 over w or over w in f16); the quotient w / s and the sum + 7 each rounded to f16 or to f32.
// Each combination is computed, not bounded, so a code is uncertain only where one of them
// really lands on the other side of a boundary. Found needed: ONNX Runtime's code 2 for an f64
// weight whose w / s rounds to -4.5 in f16 only when w itself is not rounded first (seed 700370:
// the format's steps give 2.50390625, code 3).
bool code_may_skip_f16_steps(double x, const std::vector<double>& scales, int64_t code) {
  const auto rounded = [](double v, bool half) { return round_to_float_dtype(v, half ? DType::f16 : DType::f32); };
  for (const double w : {x, rounded(x, false), rounded(x, true)}) {
    for (const double scale : scales) {
      if (scale == 0) continue;
      for (const bool half_quotient : {false, true}) {
        for (const bool half_sum : {false, true}) {
          const double t = rounded(rounded(w / scale, half_quotient) + 7, half_sum);
          if (!std::isfinite(t)) return true;  // a weight beyond f16's range: no code to compare
          if (std::min<int64_t>(14, std::max<int64_t>(0, static_cast<int64_t>(std::nearbyint(t)))) != code) {
            return true;
          }
        }
      }
    }
  }
  return false;
}

void dequantize(RuleContext& c) {
  const Bounded &packed = *c.in[0], &scales = *c.in[1];
  Bounded& out = c.out[0];
  const std::string format = c.attrs().get_string("format");
  const int64_t group = is_ggml(format) ? 32 : c.attrs().get_int("group");
  const int64_t groups = scales.shape().back(), per_row = packed.shape().back();
  const int64_t k = out.shape().back(), rows = out.numel() / k;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t i = 0; i < k; ++i) {
      const auto at = static_cast<size_t>(r * k + i);
      const auto s_at = static_cast<size_t>(r * groups + i / group);
      const auto p_at = static_cast<size_t>(r * per_row + (is_ggml(format) ? (i / 32) * 16 + (i % 32) % 16 : i / 8));
      const double s = scales.ref[s_at];
      const double level = s != 0 ? std::fabs(out.ref[at] / s) : 8;  // |q - zero point|
      out.err[at] = level * scales.err[s_at] + rounding_error(out.ref[at], out.dtype);
      out.uncertain[at] = packed.uncertain[p_at] || scales.uncertain[s_at];
    }
  }
}

void quantize(RuleContext& c) {
  const Bounded& w = *c.in[0];
  Bounded &packed = c.out[0], &scales = c.out[1];
  const std::string format = c.attrs().get_string("format");
  const int64_t group = c.attrs().get_int("group");
  const int64_t k = w.shape().back(), rows = w.numel() / k;
  const int64_t groups = scales.shape().back(), per_row = packed.shape().back();
  const DType sdt = is_ggml(format) ? DType::f32 : (format == "q4f32_1" ? DType::f32 : DType::f16);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t g = 0; g < groups; ++g) {
      const int64_t lo = g * group, hi = std::min(k, lo + group);
      const auto s_at = static_cast<size_t>(r * groups + g);
      double e_max = 0;
      bool any_uncertain = false;
      for (int64_t i = lo; i < hi; ++i) {
        e_max = std::max(e_max, w.err[static_cast<size_t>(r * k + i)]);
        any_uncertain = any_uncertain || w.uncertain[static_cast<size_t>(r * k + i)];
      }
      const double s = scales.ref[s_at];
      // The scale as an f32 evaluation of the format's f16 nodes computes it: max |w| / 7 in f32,
      // over w as it is or cast to f16 first.
      std::vector<double> placed_scales;
      if (c.opt.half_may_compute_in_f32) {
        double max_abs = 0;
        for (int64_t i = lo; i < hi; ++i) max_abs = std::max(max_abs, std::fabs(w.ref[static_cast<size_t>(r * k + i)]));
        for (const double m : {max_abs, round_to_float_dtype(max_abs, DType::f16)}) {
          placed_scales.push_back(round_to_float_dtype(m / 7, DType::f32));
        }
        placed_scales.push_back(s);
      }
      const double id = is_ggml(format) ? reference::q4_0_inverse_scale(w.ref.data() + r * k + lo, hi - lo) : 0;
      const double e_s = e_max / (is_ggml(format) ? 8 : 7) + (e_max > 0 ? rounding_error(s, sdt) : 0);
      scales.err[s_at] = e_s;
      scales.uncertain[s_at] = any_uncertain;
      for (int64_t i = lo; i < hi; ++i) {
        const double x = w.ref[static_cast<size_t>(r * k + i)], ex = w.err[static_cast<size_t>(r * k + i)];
        bool unsure = any_uncertain;
        if (!unsure && id != 0) {
          // Exact in double wherever t is near an integer (there |x * id| >= 1/2).
          const double product = round_to_float_dtype(x, DType::f32) * id, t = product + 8.5;
          const double fused_or_not = unit_roundoff(DType::f32) * (std::fabs(product) + std::fabs(t));
          unsure = std::fabs(t - std::round(t)) <= fused_or_not;
        }
        if (!unsure && sdt == DType::f16 && c.opt.half_may_compute_in_f32) {
          unsure = code_may_skip_f16_steps(x, placed_scales, s != 0 ? reference::mlc_code(x, s, sdt) : 7);
        }
        if (!unsure && (ex > 0 || e_s > 0)) {
          if (std::fabs(s) <= e_s) {
            unsure = true;
          } else {
            // Decision variable: t = x / s + 7 rounded (MLC) or x / d + 8.5 truncated (GGML; d = -s).
            const double t = is_ggml(format) ? x / s + 8.5 : x / s + 7;
            // + the format's own roundings: f16 steps of t (MLC), or GGML's codes using the
            // unrounded scale while s is its f16 rounding.
            const double et = ex / std::fabs(s) + std::fabs(x) * e_s / (std::fabs(s) * (std::fabs(s) - e_s)) +
                              2 * rounding_error(16, sdt) +
                              (is_ggml(format) ? std::fabs(x / s) * unit_roundoff(DType::f16) : 0);
            const double boundary = is_ggml(format) ? std::round(t) : std::floor(t) + 0.5;
            unsure = std::fabs(t - boundary) <= et;
          }
        }
        if (!unsure) continue;
        const auto p_at = static_cast<size_t>(r * per_row + (is_ggml(format) ? g * 16 + (i - lo) % 16 : i / 8));
        packed.uncertain[p_at] = 1;
      }
    }
  }
}

}  // namespace

void register_quantization_rules(RuleTable& t) {
  t.add("quantize", quantize);
  t.add("dequantize", dequantize);
}

}  // namespace difftest::tolerance
