// Fault injection: named, documented compiler bugs that can be switched on.
//
// A fault is declared once, at namespace scope of the file whose code it breaks, as LLVM
// declares its debug counters where they count:
//
//   const faults::Fault kMulDropsTail({.name = "mul-drops-tail", .pass = "LegalizeOps",
//                                      .description = "...", .models = "..."});
//
// and its guarded branch checks it by value in the compile's context,
// `if (c.compile.fault(kMulDropsTail)) { ... }` (compiler/context/compile_context.h), so that a
// misspelt fault does not compile. The declaration enters it into the catalog (all_faults():
// nothing else lists the faults). Each models a real bug class, so that the harness can be
// tested against known bugs: the oracle must turn each one into the right verdict. With no
// fault on the compiler is unchanged. docs/faults.md lists the faults.
//
// The planted set below (enable, enabled_faults, ScopedFaults) is the harness's: the faults a
// process plants in the compiler it checks (`--inject`, the gate, the tests). No pass reads it:
// whoever compiles puts it into a CompileContext (the builtin compiler under test, in the
// oracle's child, which inherits the set through fork). Change it before compiling, not while
// another thread compiles: it has no lock (a lock held at fork time would deadlock the child).
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

namespace difftest::faults {

struct FaultInfo {
  std::string name;         // lowercase kebab-case
  std::string pass;         // the pass (or "codegen") it lives in: a name of the pass registry
  std::string description;  // one line: what breaks, and where
  std::string models;       // the real bug (class) it models, with its upstream issue where there is one
  // Written apart from the generator and never used to tune it: the detection benchmark
  // reports these faults as its held-out set (docs/faults.md, "Tuning set and held-out set").
  bool held_out = false;
};

// A declared fault (see above). Declare it at namespace scope only: its construction, during
// static initialization, is what enters it into the catalog.
class Fault {
 public:
  explicit Fault(FaultInfo info);
  Fault(const Fault&) = delete;
  Fault& operator=(const Fault&) = delete;
  const FaultInfo& info() const { return info_; }
  const std::string& name() const { return info_.name; }

 private:
  FaultInfo info_;
};

// Every declared fault, sorted by name.
const std::vector<FaultInfo>& all_faults();
// The declared fault of that name, or null.
const Fault* find(const std::string& name);
// The declared fault of that name; UserError(Usage) naming the known faults when there is none.
const Fault& declared(const std::string& name);

// Plants a fault. UserError(ErrorKind::Usage) naming the known faults when `name` is unknown.
void enable(const std::string& name);
void disable_all();

// The planted faults, sorted (for verdicts, reproducers and the compile contexts built from them).
std::vector<std::string> enabled_faults();

// Enables `names` (in addition to those already on) for the scope and restores the previous
// set when it ends. `Off` turns faults off for the scope instead: `names`, or every one.
class ScopedFaults {
 public:
  struct Off {};
  explicit ScopedFaults(Off, const std::vector<std::string>& names = {});
  explicit ScopedFaults(const std::vector<std::string>& names);
  ScopedFaults(std::initializer_list<std::string> names) : ScopedFaults(std::vector<std::string>(names)) {}
  ~ScopedFaults();
  ScopedFaults(const ScopedFaults&) = delete;
  ScopedFaults& operator=(const ScopedFaults&) = delete;

 private:
  std::vector<std::string> previous_;
};

}  // namespace difftest::faults
