#include "compiler/passes/legalize/lowering.h"

namespace difftest::passes {

void register_conv_lowerings() {}

}  // namespace difftest::passes
