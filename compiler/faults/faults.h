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
// No set of faults is on for the process: a compile's CompileContext carries the faults on in
// it (a FaultSet), and the harness's compiler under test carries the set it plants
// (backends/builtin/builtin_compiler.h), so a forked child compiles with its parent's.
#pragma once

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

}  // namespace difftest::faults
