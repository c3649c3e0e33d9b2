// Canonical text form of the graph IR (see ir.h for the grammar by example).
// parse(print(p)) rebuilds p exactly, and print(parse(text)) == text for canonical text:
// two-space indentation, one binding per line, attributes in schema order with defaults
// omitted, floats in shortest round-trip form.
#pragma once

#include <cstdint>
#include <string>

#include "compiler/ir/ir.h"

namespace difftest {

std::string print(const Program& p);
std::string print_binding(const Binding& b);  // one line, without indentation or newline
std::string print_constant(const ConstantInit& c, const TensorType& type);

// FNV-1a 64 of the canonical text: a stable identity for a program on every machine.
uint64_t program_hash(const Program& p);

}  // namespace difftest
