// Where in the check of one variant something happened: the reference, a pass of the compile,
// code generation, the run under one binding, or the comparison. The child reports its stages
// to the parent as these (check/wire.h), a timeout records the one it stopped in, and a
// failure's signature keeps its name.
#pragma once

#include <string>

#include "compiler/sym/sym.h"

namespace difftest::oracle {

struct Stage {
  enum class Kind { Reference, Compile, Codegen, Run, Compare };
  Kind kind = Kind::Compile;
  std::string pass;  // Compile: the pass being applied ("" before the first one starts)
  sym::Env binding;  // Run: the binding it runs under (empty for a program without dims)

  static Stage reference() { return {Kind::Reference, "", {}}; }
  static Stage compile(std::string pass = "") { return {Kind::Compile, std::move(pass), {}}; }
  static Stage codegen() { return {Kind::Codegen, "", {}}; }
  static Stage run(sym::Env binding) { return {Kind::Run, "", std::move(binding)}; }
  static Stage compare() { return {Kind::Compare, "", {}}; }

  bool compiling() const { return kind == Kind::Compile || kind == Kind::Codegen; }
  // What a signature and a verdict's "stage" keep: the pass, "compile" (before the first pass),
  // "codegen", "run", "compare" or "reference".
  std::string name() const;
  // The whole stage for a person: "compile FuseOps", "compile codegen", "run n=3".
  std::string describe() const;
  // The stage a verdict's "stage" field names (as name() writes it; any other word is a pass).
  static Stage from_name(const std::string& name);
  // The stage describe() wrote (a timeout's record); UserError(Syntax) naming `where` for a
  // binding that does not parse.
  static Stage from_description(const std::string& text, const std::string& where);

  bool operator==(const Stage&) const = default;
};

}  // namespace difftest::oracle
