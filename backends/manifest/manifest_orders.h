// Random valid orders of a manifest compiler's steps, drawn as difftest draws its own
// (backends/builtin/random_orders.h): per program, seeded by its hash, from the phases the
// manifest declares (`random_orders`), so that an order is valid by construction: a required
// step always runs, steps that only make sense together run together, and steps whose relative
// order the compiler fixes keep it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/support/rng.h"

namespace difftest::backends {

struct OrderPhase {
  enum class Kind {
    Any,     // any number of its steps (0 to its length), each drawn from it: any order, repeats
    All,     // all of its steps, in order (a required step)
    Maybe,   // all of its steps in order, or none (steps that only make sense together)
    Subset,  // each of its steps or not, in order (steps whose order the compiler fixes)
  };
  Kind kind = Kind::Any;
  std::vector<std::string> steps;
};

struct RandomOrders {
  int count = 0;  // orders a default check adds (0: none declared)
  // The worker's settings for an order (it receives the order as the request's "steps").
  nlohmann::json config = nlohmann::json::object();
  std::vector<OrderPhase> phases;
  // Every step an order can hold.
  std::vector<std::string> all_steps() const;
};

// "any", "all", "maybe", "subset"; nullopt for another name.
std::optional<OrderPhase::Kind> parse_order_phase(const std::string& name);

// One order's steps, phase after phase.
std::vector<std::string> draw_order(const RandomOrders& orders, ChoiceSource& choices);
// `count` orders of `p` (the same program, the same orders).
std::vector<std::vector<std::string>> draw_orders(const RandomOrders& orders, const Program& p, int count);

}  // namespace difftest::backends
