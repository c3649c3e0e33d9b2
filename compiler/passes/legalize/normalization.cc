#include "compiler/passes/legalize/lowering.h"

namespace difftest::passes {

void register_normalization_lowerings() {}

}  // namespace difftest::passes
