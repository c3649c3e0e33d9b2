#include "compiler/passes/legalize/lowering.h"

namespace difftest::passes {

void register_reduction_lowerings() {}

}  // namespace difftest::passes
