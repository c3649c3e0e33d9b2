// Fault injection: a registry of named, documented compiler bugs that can be switched on.
//
// Each fault is a small guarded branch `if (faults::enabled("name")) { ... }` in the pass (or
// in codegen) it breaks, modelled on a real bug class, so that the harness can be tested
// against known bugs: the oracle must turn each one into the right verdict. With no fault
// enabled the compiler is unchanged. docs/faults.md lists the faults.
//
// The set of enabled faults is process-global: a forked child (oracle/isolate.h) inherits it,
// which is how the compiler in the oracle's child sees the faults the parent enabled. Enable
// and disable faults before compiling, not while another thread compiles: the state has no
// lock (a lock held at fork time would deadlock the child).
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

namespace difftest::faults {

struct FaultInfo {
  std::string name;         // lowercase kebab-case
  std::string description;  // one line: what breaks, where, and the real bug class it models
  std::string pass;         // the pass (or "codegen") it lives in
  // Written apart from the generator and never used to tune it: the detection benchmark
  // reports these faults as its held-out set (docs/faults.md, "Tuning set and held-out set").
  bool held_out = false;
};

// Every known fault, sorted by name.
const std::vector<FaultInfo>& all_faults();

// Turns a fault on. UserError(ErrorKind::Usage) naming the known faults when `name` is unknown.
void enable(const std::string& name);
void disable_all();

// Whether a fault is on: the check a guarded branch makes. One relaxed atomic load when no
// fault is enabled. While any fault is on, asking about an unregistered name is an internal
// error (a misspelt guard would otherwise never fire).
bool enabled(const std::string& name);

// The enabled faults, sorted (for verdicts and reproducers).
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
