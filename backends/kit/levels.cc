#include "backends/kit/levels.h"

#include "compiler/support/diagnostics.h"
#include "oracle/check/check.h"

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

std::vector<oracle::Variant> LevelCompiler::variants(const Program&, const oracle::CheckOptions& options) const {
  std::vector<oracle::Variant> out;
  for (const auto& name : options.levels) out.push_back(named(name, "--opt"));
  return out;
}

oracle::CompiledRuns LevelCompiler::compile_and_run(const Program&, const oracle::Variant& variant,
                                                    const std::vector<const oracle::Case*>&, oracle::Progress&) const {
  DT_CHECK(false, identity() + " runs in its own worker, not in a forked child (" + variant.name() + ")");
  return {};
}

}  // namespace difftest::backends
