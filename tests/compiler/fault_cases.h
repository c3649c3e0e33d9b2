// Test cases of the fault catalog: for each fault, a program containing what it breaks, the
// verdict the oracle must give with the fault on, and a program it must leave alone. One file
// per catalog area (fault_cases_<area>.cc), like compiler/faults/catalog_<area>.cc.
#pragma once

#include <cstdint>
#include <ostream>
#include <vector>

#include "oracle/check/verdict.h"

namespace difftest::testing {

struct FaultCase {
  const char* fault;
  const char* affected;    // a program with the op the fault breaks
  oracle::VerdictKind expected;
  const char* stage;       // where: the segfault while compiling, the hang while running
                           // (a compile crash may instead name the pass it happened in)
  const char* unaffected;  // a program without it: ok with the fault on
  const char* pipeline = "O0";  // the one checked: it must run the fault's pass
  // A mismatch: how many elements of %y (n = 3) differ, and the innermost index of the worst.
  const char* differing = "";
  int64_t worst_last_index = -1;  // -1: any
};

inline void PrintTo(const FaultCase& c, std::ostream* os) { *os << c.fault; }

std::vector<FaultCase> lowering_fault_cases();
std::vector<FaultCase> graph_fault_cases();
std::vector<FaultCase> schedule_fault_cases();
std::vector<FaultCase> quantization_fault_cases();
std::vector<FaultCase> held_out_fault_cases();

// Every case: the files above, in that order.
const std::vector<FaultCase>& all_fault_cases();

}  // namespace difftest::testing
