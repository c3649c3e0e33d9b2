#include "compiler/faults/faults.h"

#include <fmt/format.h>

#include <algorithm>

#include "compiler/support/diagnostics.h"

namespace difftest::faults {

namespace {

// The faults declared so far, in the order their files were initialized.
std::vector<const Fault*>& declarations() {
  static std::vector<const Fault*> faults;
  return faults;
}

}  // namespace

Fault::Fault(FaultInfo info) : info_(std::move(info)) { declarations().push_back(this); }

const std::vector<FaultInfo>& all_faults() {
  // Built at the first call, in main: every declaration's static initialization has run by then.
  static const std::vector<FaultInfo> faults = [] {
    std::vector<FaultInfo> v;
    for (const Fault* f : declarations()) v.push_back(f->info());
    std::sort(v.begin(), v.end(), [](const FaultInfo& a, const FaultInfo& b) { return a.name < b.name; });
    for (size_t i = 1; i < v.size(); ++i) {
      DT_CHECK(v[i - 1].name != v[i].name, fmt::format("the fault '{}' is declared twice", v[i].name));
    }
    return v;
  }();
  return faults;
}

const Fault* find(const std::string& name) {
  for (const Fault* f : declarations()) {
    if (f->name() == name) return f;
  }
  return nullptr;
}

const Fault& declared(const std::string& name) {
  if (const Fault* f = find(name)) return *f;
  std::vector<std::string> names;
  for (const auto& f : all_faults()) names.push_back(f.name);
  throw UserError(ErrorKind::Usage, fmt::format("unknown fault '{}' (known: {})", name, fmt::join(names, ", ")));
}

}  // namespace difftest::faults
