// The fault catalog, one file per area of the compiler (catalog_<area>.cc); faults.cc joins
// the parts into the sorted registry. Adding a fault: an entry in its area's file and the
// guarded branch in the pass (docs/faults.md, "Writing a fault").
#pragma once

#include <vector>

#include "compiler/faults/faults.h"

namespace difftest::faults {

std::vector<FaultInfo> lowering_faults();      // LegalizeOps and codegen
std::vector<FaultInfo> graph_faults();         // graph passes
std::vector<FaultInfo> schedule_faults();      // loop passes and schedule rules
std::vector<FaultInfo> quantization_faults();  // q4 dequantization, fused dequantize-matmul, GEMV
std::vector<FaultInfo> held_out_faults();      // any pass: the detection benchmark's held-out set

}  // namespace difftest::faults
