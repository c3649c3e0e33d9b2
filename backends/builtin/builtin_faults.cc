#include "backends/builtin/builtin_faults.h"

#include "compiler/faults/faults.h"

namespace difftest::backends {

namespace {

class FaultScope final : public oracle::PlantedFaults::Scope {
 public:
  explicit FaultScope(const std::vector<std::string>& on) : scoped_(on) {}
  FaultScope(faults::ScopedFaults::Off off, const std::vector<std::string>& names) : scoped_(off, names) {}

 private:
  faults::ScopedFaults scoped_;
};

class BuiltinFaults final : public oracle::PlantedFaults {
 public:
  std::vector<std::string> known() const override {
    std::vector<std::string> names;
    for (const auto& f : faults::all_faults()) names.push_back(f.name);
    return names;
  }
  std::vector<std::string> enabled() const override { return faults::enabled_faults(); }
  std::unique_ptr<Scope> turn_on(const std::vector<std::string>& names) const override {
    return std::make_unique<FaultScope>(names);
  }
  std::unique_ptr<Scope> turn_off(const std::vector<std::string>& names) const override {
    return std::make_unique<FaultScope>(faults::ScopedFaults::Off{}, names);
  }
};

}  // namespace

const oracle::PlantedFaults& builtin_faults() {
  static const BuiltinFaults planted;
  return planted;
}

}  // namespace difftest::backends
