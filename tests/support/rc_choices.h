// A ChoiceSource backed by RapidCheck, so generators written against ChoiceSource run inside
// RC_GTEST_PROP properties and shrink (every choice shrinks toward index 0).
#pragma once

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include "fuzz/rng.h"

namespace difftest::testing {

class RcChoices : public ChoiceSource {
 public:
  uint64_t below(uint64_t n) override {
    if (n <= 1) return 0;
    return *rc::gen::inRange<uint64_t>(0, n);
  }
};

}  // namespace difftest::testing
