#include "exporters/expected_results.h"

namespace difftest::exporters {

nlohmann::json expected_outputs_json(const ExpectedResults& expected, const std::vector<std::string>& names) {
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < expected.outputs.size(); ++i) {
    const ExpectedOutput& o = expected.outputs[i];
    out.push_back({{"name", i < names.size() ? names[i] : std::to_string(i)},
                   {"shape", o.shape},
                   {"ref_hex", hex_of(o.reference)},
                   {"allowed_hex", hex_of(o.allowed)}});
  }
  return out;
}

// A NaN difference, or a NaN where the reference is finite, is never within the allowance.
const char* python_check_function() {
  return R"PY(def check(label, outputs):
    wrong = False
    for out, got in zip(DATA["outputs"], outputs):
        ref = np.frombuffer(bytes.fromhex(out["ref_hex"]), dtype="<f8").reshape(out["shape"])
        allowed = np.frombuffer(bytes.fromhex(out["allowed_hex"]), dtype="<f8").reshape(out["shape"])
        got = np.asarray(got).astype(np.float64)
        if got.shape != ref.shape:
            print(f"FAIL {label}: {out['name']} has shape {list(got.shape)}, expected {list(ref.shape)}")
            wrong = True
            continue
        diff = np.abs(got - ref)
        bad = (allowed >= 0) & ~(diff <= allowed)
        if not bad.any():
            continue
        excess = np.nan_to_num(diff / np.maximum(allowed, np.finfo(np.float64).tiny), nan=np.inf)
        at = np.unravel_index(int(np.argmax(np.where(bad, excess, -1.0))), ref.shape)
        print(f"FAIL {label}: {int(bad.sum())} of {bad.size} elements of {out['name']} differ from the reference "
              f"by more than allowed; worst at {[int(i) for i in at]}: got {float(got[at])!r}, "
              f"expected {float(ref[at])!r}, allowed difference {float(allowed[at]):.3g}")
        wrong = True
    if not wrong:
        print(f"PASS {label}")
    return wrong
)PY";
}

std::string hex_of(const uint8_t* data, size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * n);
  for (size_t i = 0; i < n; ++i) {
    out += kDigits[data[i] >> 4];
    out += kDigits[data[i] & 15];
  }
  return out;
}

std::string hex_of(const std::string& bytes) {
  return hex_of(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

std::string hex_of(const std::vector<double>& values) {
  return hex_of(reinterpret_cast<const uint8_t*>(values.data()), values.size() * sizeof(double));
}

}  // namespace difftest::exporters
