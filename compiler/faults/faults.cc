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

// The planted faults, sorted.
std::vector<std::string>& enabled_set() {
  static std::vector<std::string> set;
  return set;
}

void set_enabled(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  enabled_set() = std::move(names);
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

void enable(const std::string& name) {
  declared(name);
  std::vector<std::string> names = enabled_set();
  names.push_back(name);
  set_enabled(std::move(names));
}

void disable_all() { set_enabled({}); }


std::vector<std::string> enabled_faults() { return enabled_set(); }

ScopedFaults::ScopedFaults(const std::vector<std::string>& names) : previous_(enabled_set()) {
  try {
    for (const auto& n : names) enable(n);
  } catch (...) {
    set_enabled(previous_);
    throw;
  }
}

ScopedFaults::ScopedFaults(Off, const std::vector<std::string>& names) : previous_(enabled_set()) {
  if (names.empty()) {
    disable_all();
    return;
  }
  std::vector<std::string> kept;
  for (const auto& n : previous_) {
    if (std::find(names.begin(), names.end(), n) == names.end()) kept.push_back(n);
  }
  set_enabled(std::move(kept));
}

ScopedFaults::~ScopedFaults() { set_enabled(std::move(previous_)); }

}  // namespace difftest::faults
