// What the loop passes and codegen ask of a statement, answered by one walk, and the driver
// that rewrites every function of a module: one place for the questions each pass used to
// answer with a visitor of its own.
#pragma once

#include <functional>
#include <set>
#include <string>

#include "compiler/loop/ir.h"

namespace difftest::loop {

// The buffers and loop variables a statement (or expression) touches.
struct Footprint {
  std::set<std::string> loaded, stored, allocated;  // buffer names
  std::set<std::string> local_scalars;              // local allocations of one element
  std::set<std::string> loop_vars;                  // the variables its loops bind

  // Every buffer it loads, stores or allocates.
  std::set<std::string> buffers() const;
  bool mentions(const std::string& buffer) const;
};

Footprint footprint(const Stmt& s);
Footprint footprint(const Expr& e);

// `m` with the body of each function replaced by rewrite(function): a loop pass's
// per-function driver. Functions whose rewrite hands back their body keep it (same_as).
Module with_bodies(const Module& m, const std::function<Stmt(const PrimFunc&)>& rewrite);

}  // namespace difftest::loop
