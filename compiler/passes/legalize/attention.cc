#include "compiler/passes/legalize/lowering.h"

namespace difftest::passes {

void register_attention_lowerings() {}

}  // namespace difftest::passes
