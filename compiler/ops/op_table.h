// The one list of op families and the one table type every per-op aspect registers in: the
// reference kernels, the bound rules and the lowerings are each filled by one function per
// family (`register_<family>_<aspect>(table)`, called for every family of
// DIFFTEST_OP_FAMILIES), and every table refuses an op the registry lacks, an op of another
// family than the one being registered, and an op registered twice. docs/adding-an-op.md is
// the checklist; tests/op_checklist_test.cc checks that every op has every aspect.
#pragma once

#include <fmt/format.h>

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/support/diagnostics.h"
#include "compiler/ops/op.h"

// The op families, in docs/ops.md's order; OpDef::family is one of them. X(family, arg).
#define DIFFTEST_OP_FAMILY_LIST(X, arg)                                                                      \
  X(elementwise, arg)                                                                                        \
  X(reduction, arg)                                                                                          \
  X(linalg, arg) X(normalization, arg) X(shape, arg) X(creation, arg) X(attention, arg) X(quantization, arg) \
      X(conv, arg)

#define DIFFTEST_REGISTER_FAMILY(family, aspect) \
  table.begin_family(#family);                   \
  register_##family##_##aspect(table);
// In a function holding an OpTable named `table`: register_<family>_<aspect>(table) for every
// family, in order.
#define DIFFTEST_REGISTER_ALL_FAMILIES(aspect) DIFFTEST_OP_FAMILY_LIST(DIFFTEST_REGISTER_FAMILY, aspect)
// An aspect's table, filled by every family: `static const T t = DIFFTEST_BUILD_OP_TABLE(T, "what", aspect);`
#define DIFFTEST_BUILD_OP_TABLE(Table, description, aspect) \
  [] {                                                      \
    Table table(description);                               \
    DIFFTEST_REGISTER_ALL_FAMILIES(aspect)                  \
    return table;                                           \
  }()

namespace difftest {

#define DIFFTEST_FAMILY_NAME(family, unused) #family,
inline const std::vector<std::string>& op_families() {
  static const std::vector<std::string> families = {DIFFTEST_OP_FAMILY_LIST(DIFFTEST_FAMILY_NAME, _)};
  return families;
}
#undef DIFFTEST_FAMILY_NAME

template <typename Entry>
class OpTable {
 public:
  explicit OpTable(std::string aspect) : aspect_(std::move(aspect)) {}

  // The ops added from here on must be of `family` (one family file's registration).
  void begin_family(std::string family) { family_ = std::move(family); }

  void add(const std::string& op, Entry entry) {
    const OpDef* def = OpRegistry::get().find(op);
    DT_CHECK(def != nullptr, fmt::format("{}: '{}' is not a registered op", aspect_, op));
    DT_CHECK(
        family_.empty() || def->family == family_,
        fmt::format("{}: '{}' is registered with the {} family but is a {} op", aspect_, op, family_, def->family));
    DT_CHECK(entries_.emplace(op, std::move(entry)).second, fmt::format("{}: '{}' registered twice", aspect_, op));
  }

  const Entry* find(std::string_view op) const {
    const auto it = entries_.find(op);
    return it == entries_.end() ? nullptr : &it->second;
  }

  std::vector<std::string> ops() const {
    std::vector<std::string> out;
    for (const auto& [name, entry] : entries_) out.push_back(name);
    return out;
  }

  const std::string& aspect() const { return aspect_; }

 private:
  std::string aspect_, family_;
  std::map<std::string, Entry, std::less<>> entries_;
};

}  // namespace difftest
