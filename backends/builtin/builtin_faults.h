// The fault catalog of compiler/faults as the oracle switches it (oracle/check/compiler.h,
// PlantedFaults): what `--inject`, a corpus entry's `# fault:` and a campaign's attribution of
// a failure to its faults turn on and off in the builtin compiler.
#pragma once

#include "oracle/check/compiler.h"

namespace difftest::backends {

const oracle::PlantedFaults& builtin_faults();

}  // namespace difftest::backends
