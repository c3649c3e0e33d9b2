// DeadCodeElimination: drops op bindings and constants whose results nothing uses (no later
// binding and no program result). Parameters stay: they are the program's interface, and the
// executor binds dims from their shapes.
#pragma once

#include "compiler/ir/ir.h"

namespace difftest::passes {

Program dead_code_elimination(const Program& p);  // p itself when nothing is dead

}  // namespace difftest::passes
