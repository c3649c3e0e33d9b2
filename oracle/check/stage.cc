#include "oracle/check/stage.h"

#include "reference/inputs.h"
#include "reference/summary.h"

namespace difftest::oracle {

namespace {

constexpr const char* kCompile = "compile";
constexpr const char* kCodegen = "codegen";

}  // namespace

std::string Stage::name() const {
  switch (kind) {
    case Kind::Reference:
      return "reference";
    case Kind::Compile:
      return pass.empty() ? kCompile : pass;
    case Kind::Codegen:
      return kCodegen;
    case Kind::Run:
      return "run";
    case Kind::Compare:
      return "compare";
  }
  return "?";
}

std::string Stage::describe() const {
  switch (kind) {
    case Kind::Compile:
      return pass.empty() ? kCompile : std::string(kCompile) + " " + pass;
    case Kind::Codegen:
      return std::string(kCompile) + " " + kCodegen;
    case Kind::Run:
      return "run " + reference::binding_str(binding);
    default:
      return name();
  }
}

Stage Stage::from_name(const std::string& name) {
  for (const Stage& s : {reference(), compile(), codegen(), compare()}) {
    if (s.name() == name) return s;
  }
  if (name == "run") return run({});
  return compile(name);
}

Stage Stage::from_description(const std::string& text, const std::string& where) {
  const std::string compile_prefix = std::string(kCompile) + " ", run_prefix = "run ";
  if (text.rfind(compile_prefix, 0) == 0) {
    const std::string pass = text.substr(compile_prefix.size());
    return pass == kCodegen ? codegen() : compile(pass);
  }
  if (text.rfind(run_prefix, 0) == 0) {
    const std::string binding = text.substr(run_prefix.size());
    return run(binding == reference::binding_str({}) ? sym::Env{} : reference::parse_binding(binding, where));
  }
  return from_name(text);
}

}  // namespace difftest::oracle
