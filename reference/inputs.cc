#include "reference/inputs.h"

#include <fmt/format.h>

#include <filesystem>
#include <set>

#include "compiler/support/diagnostics.h"
#include "compiler/ir/printer.h"
#include "compiler/ops/op.h"
#include "compiler/tensor/constant.h"
#include "compiler/tensor/npy.h"
#include "reference/quantize.h"
#include "reference/reference.h"

namespace difftest::reference {

std::map<std::string, Tensor> load_inputs(const Program& p, const std::string& dir) {
  std::map<std::string, Tensor> out;
  for (const auto& v : p.params()) {
    const std::string path = (std::filesystem::path(dir) / fmt::format("in_{}.npy", v.name())).string();
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      throw UserError(ErrorKind::Io, fmt::format("missing input file '{}' for parameter %{}", path, v.name()));
    }
    Tensor t = read_npy(path);
    if (t.dtype() != v.type().dtype) {
      throw UserError(ErrorKind::TypeMismatch, fmt::format("'{}' holds {} but parameter %{} is {}", path,
                                                           dtype_name(t.dtype()), v.name(), v.type().str()));
    }
    if (t.rank() != v.type().rank()) {
      throw UserError(ErrorKind::Shape, fmt::format("'{}' has shape {} but parameter %{} is {}", path,
                                                    shape_str(t.shape()), v.name(), v.type().str()));
    }
    out[v.name()] = std::move(t);
  }
  return out;
}

sym::Env parse_binding(const std::string& text, const std::string& flag) {
  sym::Env env;
  size_t start = 0;
  while (start <= text.size() && !text.empty()) {
    const size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const size_t eq = item.find('=');
    auto bad = [&] {
      return UserError(ErrorKind::Usage,
                       fmt::format("{}: expected NAME=VALUE[,NAME=VALUE...], got '{}'", flag, item));
    };
    if (eq == std::string::npos || eq == 0 || !is_valid_identifier(item.substr(0, eq))) throw bad();
    const std::string value = item.substr(eq + 1);
    if (value.empty() || value.size() > 18 || value.find_first_not_of("0123456789") != std::string::npos) throw bad();
    if (env.count(item.substr(0, eq))) {
      throw UserError(ErrorKind::Usage, fmt::format("{}: '{}' is bound twice", flag, item.substr(0, eq)));
    }
    env[item.substr(0, eq)] = std::stoll(value);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return env;
}

sym::Env resolve_binding(const Program& p, const sym::Env& given, const std::map<std::string, Tensor>* inputs) {
  sym::Env env = given;
  for (const auto& [name, v] : given) {
    bool known = false;
    for (const auto& d : p.dims()) known = known || d.name == name;
    if (!known) throw UserError(ErrorKind::Usage, fmt::format("--bind: @{} has no dim variable '{}'", p.name(), name));
  }
  std::map<std::string, std::string> source;  // which parameter fixed a variable
  if (inputs) {
    for (const auto& v : p.params()) {
      auto it = inputs->find(v.name());
      if (it == inputs->end() || it->second.rank() != v.type().rank()) continue;
      for (int i = 0; i < v.type().rank(); ++i) {
        const sym::Expr& d = v.type().shape[static_cast<size_t>(i)];
        if (!d.is_var()) continue;
        const int64_t value = it->second.shape()[static_cast<size_t>(i)];
        auto [pos, inserted] = env.emplace(d.name(), value);
        if (!inserted && pos->second != value) {
          throw UserError(ErrorKind::Shape,
                          fmt::format("{} gives {}={}, but {} says {}={}", "%" + v.name(), d.name(), value,
                                      source.count(d.name()) ? "%" + source[d.name()] : std::string("--bind"),
                                      d.name(), pos->second));
        }
        source.emplace(d.name(), v.name());
      }
    }
  }
  for (const auto& d : p.dims()) {
    env.emplace(d.name, d.range.lo);
    const int64_t v = env[d.name];
    if (v < d.range.lo || v > d.range.hi) {
      throw UserError(ErrorKind::Usage, fmt::format("{}={} is outside its range {}..{}", d.name, v, d.range.lo, d.range.hi));
    }
  }
  return env;
}

std::vector<sym::Env> standard_bindings(const Program& p) {
  std::vector<sym::Env> out;
  auto add = [&](const sym::Env& e) {
    if (std::find(out.begin(), out.end(), e) == out.end()) out.push_back(e);
  };
  sym::Env lows, highs;
  for (const auto& d : p.dims()) {
    lows[d.name] = d.range.lo;
    highs[d.name] = d.range.hi;
  }
  add(lows);
  for (const auto& d : p.dims()) {
    int64_t mid = d.range.lo + (d.range.hi - d.range.lo) / 2;
    if (mid % 2 == 0) mid = mid + 1 <= d.range.hi ? mid + 1 : mid - 1 >= d.range.lo ? mid - 1 : mid;
    for (int64_t v : {mid, d.range.hi}) {
      sym::Env e = lows;
      e[d.name] = v;
      add(e);
    }
  }
  add(highs);
  return out;
}

}  // namespace difftest::reference
