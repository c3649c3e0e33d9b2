// An external compiler's levels as the oracle's variants: a named level, its compile on the
// program with its dims fixed ("all-specialized"), and the level a recorded name says.
#pragma once

#include <string>

#include "oracle/check/variant.h"

namespace difftest::backends {

// `symbolic` compiled on the program with its dims fixed to one case's binding (the check
// fixes them): the same settings, named "<level>-specialized".
oracle::Variant specialized_level(const oracle::Variant& symbolic);

// The level a recorded variant name says: "all" for "all" and "all-specialized";
// `specialized` says which.
std::string level_of_recorded_name(const std::string& name, bool& specialized);

}  // namespace difftest::backends
