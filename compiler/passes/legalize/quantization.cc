#include "compiler/passes/legalize/lowering.h"

namespace difftest::passes {

void register_quantization_lowerings() {}

}  // namespace difftest::passes
