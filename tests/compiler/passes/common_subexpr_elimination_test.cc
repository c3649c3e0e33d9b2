// CommonSubexprElimination: the property that it preserves the reference.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "fuzz/generator.h"
#include "tests/support/pass_testing.h"
#include "tests/support/rc_choices.h"

namespace difftest {
namespace {

// Every call repeated under a new name must merge back into the original.
Program with_every_call_repeated(const Program& p) {
  std::vector<Binding> bindings = p.bindings();
  std::vector<Value> outputs = p.outputs();
  for (const auto& b : p.bindings()) {
    if (!b.is_call()) continue;
    std::vector<Value> results;
    for (const auto& r : b.results()) results.push_back(Value::make("again_" + r.name(), r.type()));
    bindings.push_back(Binding::call(results, &b.op(), b.args(), b.attrs()));
    outputs.push_back(results.front());
  }
  return Program::make(p.name(), p.dims(), std::move(bindings), std::move(outputs));
}

RC_GTEST_PROP(CommonSubexprElimination, PreservesTheReference, ()) {
  testing::RcChoices choices;
  GeneratorOptions options;
  options.max_ops = 6;
  const Program p = generate_program(choices, options);
  const Program doubled = with_every_call_repeated(p);
  const Program after = pipeline::find_pass("CommonSubexprElimination").graph(doubled, testing::test_context());
  verify(after);
  RC_ASSERT(after.num_calls() <= p.num_calls());
  const auto preserved = testing::preserves_reference(doubled, after);
  if (!preserved) RC_FAIL(preserved.message());
}

}  // namespace
}  // namespace difftest
