#include "compiler/passes/legalize/lowering.h"

namespace difftest::passes {

void register_creation_lowerings() {}

}  // namespace difftest::passes
