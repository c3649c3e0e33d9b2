// NaN, infinity, signed-zero and zero-divisor semantics of every op (docs/ops.md "Special
// values"), grouped by rule.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace difftest {

struct SpecialValueRule {
  std::string text;
  std::vector<std::string> ops;
};

const std::vector<SpecialValueRule>& special_value_rules();
// The rule naming `op`, or null.
const SpecialValueRule* special_values_of(std::string_view op);
std::string special_values_markdown();

}  // namespace difftest
