// A campaign's coverage map (`difftest fuzz --coverage FILE`) and its steering (`--steer K`).
//
// The map counts, over the programs a campaign journaled, the cells of fuzz/coverage.h (op x
// dtype x attribute class x shape class), the attribute, shape and value classes, and how many
// distinct cells were covered after how many programs and seconds (its growth curve).
//
// Steering picks, from each window of K consecutive seeds of the campaign, the one program whose
// cells add the most to those already handed out (ties: the smallest seed), and skips the others.
// A program is still a function of its seed alone (`difftest --seed N` checks the same one); only
// which seeds a campaign checks depends on the window, and it is decided from generated programs
// before any is checked, so the same campaign checks the same seeds on any machine and with any
// number of jobs.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "fuzz/coverage.h"

namespace difftest::oracle {

class CoverageMap {
 public:
  // A journaled program and what its compiles exercised (SeedRecord::exercised): counted, and a
  // point of the growth curve when its cells are new.
  void add(const Program& p, const std::vector<std::string>& exercised, double seconds);

  // Of `candidates` (their programs from `program_of`), the one whose cells add the most to those
  // handed out so far; its cells then count as handed out.
  uint64_t steer(const std::vector<uint64_t>& candidates, const std::function<Program(uint64_t)>& program_of);

  size_t cells() const { return counts_.cells.size(); }
  const coverage::Counts& counts() const { return counts_; }
  nlohmann::json to_json() const;

 private:
  coverage::Counts counts_;
  std::map<std::string, int64_t> exercised_;  // item -> programs whose compiles exercised it
  std::set<std::string> handed_out_;
  struct Point {
    int64_t programs;
    double seconds;
    size_t cells;
  };
  std::vector<Point> growth_;
};

}  // namespace difftest::oracle
