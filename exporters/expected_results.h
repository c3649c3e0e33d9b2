// What a correct result is, carried into a reproducer that judges a compiler by itself: the
// failing run's inputs, the reference's values and the difference allowed at each element. The
// oracle fills it (oracle/reduce/expected_results.h); exporters only print it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compiler/tensor/tensor.h"

namespace difftest::exporters {

struct ExpectedOutput {
  std::vector<int64_t> shape;
  std::vector<double> reference;  // in f64, row-major
  std::vector<double> allowed;    // |got - reference| allowed per element; < 0: not compared
};

struct ExpectedResults {
  std::map<std::string, Tensor> inputs;  // per program parameter, the values the failure showed with
  std::vector<ExpectedOutput> outputs;   // per program output
  std::string allowance;                 // how `allowed` was derived, in a reviewer's words
};

// The outputs as reproducers read them: [{name, shape, ref_hex, allowed_hex}], f64 little-endian.
nlohmann::json expected_outputs_json(const ExpectedResults& expected, const std::vector<std::string>& names);

// `check(label, outputs)` in Python (numpy): judges `outputs` against DATA["outputs"] (the JSON
// above), prints PASS or FAIL with the worst element, returns True when the outputs are wrong.
const char* python_check_function();

// Lower-case hex of raw bytes: the form reproducers embed binary data in.
std::string hex_of(const uint8_t* data, size_t n);
std::string hex_of(const std::string& bytes);
std::string hex_of(const std::vector<double>& values);

}  // namespace difftest::exporters
