// How many seeds a test campaign runs. The sanitizer run of the suite sets
// DIFFTEST_TEST_SCALE (a fraction) so that its long campaigns stay inside CI's time budget while
// every code path they reach still runs under ASan/UBSan; RapidCheck properties are scaled by
// RC_PARAMS=max_success=N in the same run.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>

namespace difftest::testing {

inline uint64_t campaign_size(uint64_t full) {
  const char* s = std::getenv("DIFFTEST_TEST_SCALE");
  if (!s) return full;
  const double scale = std::strtod(s, nullptr);
  if (!(scale > 0)) return full;
  return std::max<uint64_t>(1, static_cast<uint64_t>(static_cast<double>(full) * std::min(scale, 1.0)));
}

}  // namespace difftest::testing
