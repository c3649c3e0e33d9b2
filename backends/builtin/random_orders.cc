#include "backends/builtin/random_orders.h"

#include <fmt/format.h>

#include "compiler/ir/printer.h"
#include "compiler/pipeline/pass_manager.h"

namespace difftest::backends {

namespace {

std::vector<std::string> draw(ChoiceSource& choices, pipeline::PassKind kind) {
  std::vector<std::string> pool;
  for (const auto& p : pipeline::all_passes()) {
    if (p.kind == kind) pool.push_back(p.name);
  }
  std::vector<std::string> out;
  if (pool.empty()) return out;
  const auto n = static_cast<size_t>(choices.range(0, static_cast<int64_t>(pool.size()) + 1));
  for (size_t i = 0; i < n; ++i) out.push_back(choices.pick(pool));
  return out;
}

}  // namespace

pipeline::Pipeline random_pass_order(ChoiceSource& choices, const std::string& name) {
  pipeline::Pipeline p;
  p.name = name;
  p.passes = draw(choices, pipeline::PassKind::Graph);
  p.passes.push_back("LegalizeOps");
  for (auto& pass : draw(choices, pipeline::PassKind::Loop)) p.passes.push_back(std::move(pass));
  p.llvm_opt_level = static_cast<int>(choices.range(0, 3));
  p.fma_contraction = choices.chance(1, 2);
  return p;
}

std::vector<pipeline::Pipeline> random_pass_orders(const Program& p, int count) {
  PcgChoices choices(program_hash(p), 0x6f72646572);  // "order"
  std::vector<pipeline::Pipeline> out;
  for (int i = 1; i <= count; ++i) out.push_back(random_pass_order(choices, fmt::format("order{}", i)));
  return out;
}

}  // namespace difftest::backends
