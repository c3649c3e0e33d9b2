// A ChoiceSource backed by RapidCheck, so generators written against ChoiceSource run inside
// RC_GTEST_PROP properties and shrink (every choice shrinks toward index 0).
//
// Each choice is drawn at RapidCheck's nominal size (100), where inRange is uniform over the whole
// range: at the sizes RapidCheck ramps through, inRange(0, n) only reaches the first size% of the
// range, which skewed every weighted pick toward the first entries (the generator's ops under
// properties differed from the seeded ones by 0.35 in total variation; tests/fuzz/rc_breadth_test.cc).
#pragma once

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include "compiler/support/rng.h"

namespace difftest::testing {

class RcChoices : public ChoiceSource {
 public:
  uint64_t below(uint64_t n) override {
    if (n <= 1) return 0;
    return *rc::gen::resize(100, rc::gen::inRange<uint64_t>(0, n));
  }
};

}  // namespace difftest::testing
