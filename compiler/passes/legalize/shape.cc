#include "compiler/passes/legalize/lowering.h"

namespace difftest::passes {

void register_shape_lowerings() {}

}  // namespace difftest::passes
