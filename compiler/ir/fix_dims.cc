#include "compiler/ir/fix_dims.h"

#include <fmt/format.h>

#include <algorithm>

#include "compiler/support/diagnostics.h"

namespace difftest {

Program fix_dims(const Program& p, const sym::Env& values) {
  std::vector<DimVar> dims = p.dims();
  bool changed = false;
  for (const auto& [name, value] : values) {
    auto it = std::find_if(dims.begin(), dims.end(), [&](const DimVar& d) { return d.name == name; });
    if (it == dims.end()) {
      throw UserError(ErrorKind::Usage, fmt::format("@{} has no dim variable '{}'", p.name(), name));
    }
    if (value < it->range.lo || value > it->range.hi) {
      throw UserError(ErrorKind::NegativeDim, fmt::format("{} = {} is outside its range {}..{}", name, value,
                                                          it->range.lo, it->range.hi));
    }
    const sym::Range fixed{value, value};
    changed = changed || !(it->range == fixed);
    it->range = fixed;
  }
  if (!changed) return p;
  return Program::make(p.name(), std::move(dims), p.bindings(), p.outputs(), p.loc());
}

}  // namespace difftest
