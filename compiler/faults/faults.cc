#include "compiler/faults/faults.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>

#include "compiler/faults/catalog.h"
#include "compiler/support/diagnostics.h"

namespace difftest::faults {

namespace {

std::vector<FaultInfo> registry() {
  std::vector<FaultInfo> v;
  for (auto part : {lowering_faults, graph_faults, schedule_faults, quantization_faults, held_out_faults}) {
    for (auto& f : part()) v.push_back(std::move(f));
  }
  std::sort(v.begin(), v.end(), [](const FaultInfo& a, const FaultInfo& b) { return a.name < b.name; });
  return v;
}

// The enabled faults, sorted, and whether there are any (the fast path of enabled()).
std::vector<std::string>& enabled_set() {
  static std::vector<std::string> set;
  return set;
}
std::atomic<bool> any_enabled{false};

bool known(const std::string& name) {
  const auto& all = all_faults();
  return std::any_of(all.begin(), all.end(), [&](const FaultInfo& f) { return f.name == name; });
}

void set_enabled(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  enabled_set() = std::move(names);
  any_enabled.store(!enabled_set().empty(), std::memory_order_relaxed);
}

}  // namespace

const std::vector<FaultInfo>& all_faults() {
  static const std::vector<FaultInfo> faults = registry();
  return faults;
}

void enable(const std::string& name) {
  if (!known(name)) {
    std::vector<std::string> names;
    for (const auto& f : all_faults()) names.push_back(f.name);
    throw UserError(ErrorKind::Usage, fmt::format("unknown fault '{}' (known: {})", name, fmt::join(names, ", ")));
  }
  std::vector<std::string> names = enabled_set();
  names.push_back(name);
  set_enabled(std::move(names));
}

void disable_all() { set_enabled({}); }

bool enabled(const std::string& name) {
  if (!any_enabled.load(std::memory_order_relaxed)) return false;
  DT_CHECK(known(name), fmt::format("faults::enabled: no fault named '{}' is registered", name));
  const auto& set = enabled_set();
  return std::binary_search(set.begin(), set.end(), name);
}

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
