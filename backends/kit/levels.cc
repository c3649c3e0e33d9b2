#include "backends/kit/levels.h"

namespace difftest::backends {

namespace {
const std::string kSpecializedSuffix = "-specialized";
}

oracle::Variant specialized_level(const oracle::Variant& symbolic) {
  oracle::Variant v = symbolic;
  v.kind = oracle::VariantKind::Specialized;
  v.label += kSpecializedSuffix;
  return v;
}

std::string level_of_recorded_name(const std::string& name, bool& specialized) {
  const size_t n = kSpecializedSuffix.size();
  specialized = name.size() > n && name.compare(name.size() - n, n, kSpecializedSuffix) == 0;
  return specialized ? name.substr(0, name.size() - n) : name;
}

}  // namespace difftest::backends
