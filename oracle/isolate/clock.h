// Elapsed wall time, for the timings verdicts and campaigns report (never for limits: those are
// CPU time, see isolate.h).
#pragma once

#include <chrono>

namespace difftest::oracle {

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

inline double ms_since(std::chrono::steady_clock::time_point t0) { return seconds_since(t0) * 1000; }

}  // namespace difftest::oracle
