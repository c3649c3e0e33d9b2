#include "oracle/campaign/coverage_map.h"

namespace difftest::oracle {

namespace {

std::vector<std::string> program_cells(const Program& p) {
  std::vector<std::string> out;
  for (const auto& b : p.bindings()) {
    if (!b.is_call()) continue;
    for (auto& c : coverage::call_cells(b)) out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

void CoverageMap::add(const Program& p, const std::vector<std::string>& exercised, double seconds) {
  const size_t before = counts_.cells.size();
  counts_.add_program(p);
  for (const auto& e : exercised) ++exercised_[e];
  if (counts_.cells.size() != before || growth_.empty()) growth_.push_back({counts_.programs, seconds, counts_.cells.size()});
}

uint64_t CoverageMap::steer(const std::vector<uint64_t>& candidates, const std::function<Program(uint64_t)>& program_of) {
  uint64_t best = candidates.front();
  size_t best_new = 0;
  std::vector<std::string> best_cells;
  bool first = true;
  for (const uint64_t seed : candidates) {
    std::vector<std::string> cells = program_cells(program_of(seed));
    std::set<std::string> fresh;
    for (const auto& c : cells) {
      if (!handed_out_.count(c)) fresh.insert(c);
    }
    if (first || fresh.size() > best_new) {
      best = seed;
      best_new = fresh.size();
      best_cells = std::move(cells);
      first = false;
    }
  }
  handed_out_.insert(best_cells.begin(), best_cells.end());
  return best;
}

nlohmann::json CoverageMap::to_json() const {
  nlohmann::json growth = nlohmann::json::array();
  for (const auto& g : growth_) growth.push_back({{"programs", g.programs}, {"seconds", g.seconds}, {"cells", g.cells}});
  return {{"programs", counts_.programs},
          {"calls", counts_.calls},
          {"distinct_cells", counts_.cells.size()},
          {"growth", growth},
          {"cells", counts_.cells},
          {"ops", counts_.ops},
          {"attribute_classes", counts_.attribute_classes},
          {"shape_classes", counts_.shape_classes},
          {"constant_values", counts_.constant_values},
          {"result_dtypes", counts_.result_dtypes},
          {"exercised", exercised_}};
}

}  // namespace difftest::oracle
