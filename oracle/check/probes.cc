#include "oracle/check/probes.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <unordered_set>

#include "compiler/support/diagnostics.h"

namespace difftest::oracle {

std::string ProbeSelection::str() const {
  if (all) return "all";
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "%" : ",%") + name;
  return text;
}

ProbeSelection parse_probe_selection(const std::string& text, const std::string& flag) {
  ProbeSelection s;
  if (text == "all") {
    s.all = true;
    return s;
  }
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    std::string name = text.substr(start, comma - start);
    if (!name.empty() && name.front() == '%') name.erase(0, 1);
    if (!is_valid_value_name(name)) {
      throw UserError(ErrorKind::Usage, fmt::format("{}: '{}' is not a value name (want all, or names such as %q,%k)",
                                                    flag, text.substr(start, comma - start)));
    }
    s.names.push_back(std::move(name));
    start = comma + 1;
  }
  return s;
}

Program probe_values(const Program& p, const ProbeSelection& selection, const std::string& flag) {
  std::set<std::string> wanted(selection.names.begin(), selection.names.end());
  std::unordered_set<const ValueNode*> returned;
  for (const auto& o : p.outputs()) returned.insert(o.get());
  for (const auto& b : p.bindings()) {
    for (const auto& v : b.results()) {
      if (!wanted.count(v.name())) continue;
      if (!b.is_call()) {
        throw UserError(ErrorKind::Usage, fmt::format("{}: %{} is a {}, not a computed value", flag, v.name(),
                                                      b.kind() == BindingKind::Param ? "param" : "constant"));
      }
      wanted.erase(v.name());
      returned.insert(v.get());
    }
    if (selection.all && b.is_call()) {
      for (const auto& v : b.results()) returned.insert(v.get());
    }
  }
  if (!wanted.empty()) {
    throw UserError(ErrorKind::Usage,
                    fmt::format("{}: @{} defines no value %{}", flag, p.name(), fmt::join(wanted, ", %")));
  }
  std::vector<Value> outputs;
  for (const auto& b : p.bindings()) {
    for (const auto& v : b.results()) {
      if (returned.count(v.get())) outputs.push_back(v);
    }
  }
  return Program::make(p.name(), p.dims(), p.bindings(), std::move(outputs), p.loc());
}

}  // namespace difftest::oracle
