// Reproducers: what a user needs to replay a verdict without the generator — the program's
// text, the inputs of the failing binding as .npy, and the verdict as JSON (with the faults
// that were injected). Every file is written atomically.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "oracle/check/verdict.h"

namespace difftest::oracle {

// Writes DIR/program.ir, DIR/in_<name>.npy (inputs from `input_seed` under the first failing
// variant's binding, else the lower bounds), DIR/README.txt and DIR/verdict.json. Creates DIR.
void save_reproducer(const std::string& dir, const Program& p, const Verdict& v, uint64_t input_seed);

// The same from a verdict's JSON (as a campaign journals it) and the binding whose inputs to
// save, into a directory that appears whole or not at all: written under a temporary name next
// to DIR, then renamed. DIR must not exist yet.
void save_reproducer_atomically(const std::string& dir, const Program& p, const sym::Env& binding,
                                const nlohmann::json& verdict, uint64_t input_seed);

// What the verdict.json beside a saved program (a reproducer or a reduction's output) records
// of how it was checked, so that replaying it switches the faults on again and compiles for the
// same target; empty when there is no such file. UserError(Io) naming the file when it exists
// but is not a verdict.
struct RecordedSettings {
  std::vector<std::string> faults;
  std::string target;  // "": none recorded (a verdict from before targets, or an external compiler)
};
RecordedSettings recorded_settings(const std::string& program_file);

}  // namespace difftest::oracle
