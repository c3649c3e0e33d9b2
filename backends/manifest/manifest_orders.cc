#include "backends/manifest/manifest_orders.h"

#include <algorithm>

namespace difftest::backends {

std::vector<std::string> RandomOrders::all_steps() const {
  std::vector<std::string> out;
  for (const OrderPhase& phase : phases) {
    for (const std::string& s : phase.steps) {
      if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
    }
  }
  return out;
}

std::optional<OrderPhase::Kind> parse_order_phase(const std::string& name) {
  if (name == "any") return OrderPhase::Kind::Any;
  if (name == "all") return OrderPhase::Kind::All;
  if (name == "maybe") return OrderPhase::Kind::Maybe;
  if (name == "subset") return OrderPhase::Kind::Subset;
  return std::nullopt;
}

std::vector<std::string> draw_order(const RandomOrders& orders, ChoiceSource& choices) {
  std::vector<std::string> out;
  for (const OrderPhase& phase : orders.phases) {
    const std::vector<std::string>& steps = phase.steps;
    switch (phase.kind) {
      case OrderPhase::Kind::Any: {
        const int64_t n = choices.range(0, static_cast<int64_t>(steps.size()));
        for (int64_t i = 0; i < n; ++i) out.push_back(choices.pick(steps));
        break;
      }
      case OrderPhase::Kind::All:
        out.insert(out.end(), steps.begin(), steps.end());
        break;
      case OrderPhase::Kind::Maybe:
        if (choices.chance(1, 2)) out.insert(out.end(), steps.begin(), steps.end());
        break;
      case OrderPhase::Kind::Subset:
        for (const std::string& s : steps) {
          if (choices.chance(1, 2)) out.push_back(s);
        }
        break;
    }
  }
  return out;
}

std::vector<std::vector<std::string>> draw_orders(const RandomOrders& orders, const Program& p, int count) {
  PcgChoices choices(program_hash(p), 0x6f72646572);  // "order", as the builtin's
  std::vector<std::vector<std::string>> out;
  for (int i = 0; i < count; ++i) out.push_back(draw_order(orders, choices));
  return out;
}

}  // namespace difftest::backends
