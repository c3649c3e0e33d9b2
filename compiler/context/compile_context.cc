#include "compiler/context/compile_context.h"

#include <algorithm>

namespace difftest {

FaultSet FaultSet::of(const std::vector<std::string>& names) {
  FaultSet set;
  for (const auto& name : names) set.on_.push_back(&faults::declared(name));
  std::sort(set.on_.begin(), set.on_.end(), [](const faults::Fault* a, const faults::Fault* b) { return a->name() < b->name(); });
  set.on_.erase(std::unique(set.on_.begin(), set.on_.end()), set.on_.end());
  return set;
}

bool FaultSet::contains(const faults::Fault& fault) const {
  return std::find(on_.begin(), on_.end(), &fault) != on_.end();
}

std::vector<std::string> FaultSet::names() const {
  std::vector<std::string> out;
  for (const faults::Fault* f : on_) out.push_back(f->name());
  return out;
}

}  // namespace difftest
