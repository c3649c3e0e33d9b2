// The x86-64 machines the compiler schedules and generates code for.
//
// The schedule rules size their vectors and register tiles from the target, and the JIT
// compiles for the target's CPU model rather than the host's, so a module's machine code
// depends on its target and not on the machine it happens to run on: a variant records its
// target and replays with it anywhere that can execute that target's instructions. The default
// is the widest target the host runs; `--target` (or DIFFTEST_TARGET) picks another, so AVX2
// code can be checked on an AVX-512 machine.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace difftest::target {

struct Target {
  std::string name;      // what --target and the records say: avx512, avx2, avx
  std::string llvm_cpu;  // the CPU model LLVM schedules and selects instructions for
  int vector_bits = 0;   // the widest vector register the schedules fill
  int vector_registers = 0;
  // Host features (LLVM's names) without which the target's code cannot run here.
  std::vector<std::string> required_features;
};

// Widest first.
const std::vector<Target>& all_targets();
// UserError(Usage) naming the known targets (and `where`, the flag or file, when given).
const Target& find_target(const std::string& name, const std::string& where = "");
// The target loop IR text means when it names none: the 512-bit schedules every module had
// before targets existed, so hand-written IR and its tests mean the same on every host.
const Target& text_default_target();

// The features `t` needs that the host lacks, comma-separated ("" when the host runs it).
// DIFFTEST_HOST_TARGET=name makes the host count as one that runs that target and no wider one.
std::string missing_host_features(const Target& t);
// The widest target the host runs. InternalError when it runs none (no AVX: the JIT also
// needs F16C, x86-64 since 2012).
const Target& host_target();

// The target a compile uses when nothing names one: DIFFTEST_TARGET's, else the host's. It is
// read, never set: a command's `--target` goes into the compiler under test it builds
// (backends/builtin/builtin_compiler.h) and from there into each compile's context.
const Target& default_target();
// The target `name` when the host can run its code; UserError(Usage) naming `flag` when the name
// is unknown or the host lacks a feature it needs.
const Target& runnable_target(const std::string& name, const std::string& flag = "--target");

// Whether `t`'s code may use the host feature `feature` (LLVM's name: "fma", "f16c", ...).
bool has_feature(const Target& t, const std::string& feature);

// Vector lanes of the target's widest register for elements of `bytes` bytes.
int64_t vector_lanes(const Target& t, int64_t bytes);

}  // namespace difftest::target
