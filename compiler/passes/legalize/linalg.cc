#include "compiler/passes/legalize/lowering.h"

namespace difftest::passes {

void register_linalg_lowerings() {}

}  // namespace difftest::passes
