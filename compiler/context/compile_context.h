// What a compile depends on beyond the program and its pass list, handed to every pass and to
// the code generator, as TVM hands its passes a PassContext and LLVM its PassBuilder options:
// the machine the code is for, the test faults that are on, the bisection limit, and where the
// passes report. No pass reads process-wide state; whoever compiles (the builtin compiler
// under test, in the oracle's child, from its variant; `difftest compile`; a test) builds one.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "compiler/faults/faults.h"
#include "compiler/target/target.h"

namespace difftest {

// The test faults on in one compile, by their declarations.
class FaultSet {
 public:
  FaultSet() = default;
  // UserError(Usage) naming the known faults when a name is not declared.
  static FaultSet of(const std::vector<std::string>& names);

  bool contains(const faults::Fault& fault) const;
  bool empty() const { return on_.empty(); }
  std::vector<std::string> names() const;  // sorted

 private:
  std::vector<const faults::Fault*> on_;  // sorted by name, no repeats
};

struct CompileContext {
  // The machine the module is scheduled and compiled for: the widest the host runs, or
  // DIFFTEST_TARGET's, until whoever compiles names one (the compiler under test, its --target).
  const target::Target* target = &target::default_target();
  FaultSet faults;
  // Run only the first N pass applications (-1: all), like LLVM's opt-bisect.
  int bisect_limit = -1;
  // Where the compile reports, by pass: the IR after every pass that changed it (the pass
  // manager's print-after-all); empty: nowhere.
  std::function<void(const std::string& pass, const std::string& text)> diagnostics;

  // The check a fault's guarded branch makes.
  bool fault(const faults::Fault& f) const { return faults.contains(f); }
};

}  // namespace difftest
