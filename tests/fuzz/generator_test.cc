// The first program generator: deterministic, always valid, and broad.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/ops/op.h"
#include "fuzz/generator.h"

namespace difftest {
namespace {

TEST(Generator, SameSeedSameBytes) {
  for (uint64_t seed = 0; seed < 50; ++seed) {
    EXPECT_EQ(print(generate_program(seed)), print(generate_program(seed))) << seed;
  }
  EXPECT_NE(print(generate_program(1)), print(generate_program(2)));
}

TEST(Generator, ProgramsVerifyAndCoverTheRegistry) {
  std::map<std::string, int> ops;
  std::set<DType> dtypes;
  int dims = 0;
  for (uint64_t seed = 0; seed < 600; ++seed) {
    const Program p = generate_program(seed);
    ASSERT_NO_THROW(verify(p)) << print(p);
    dims += !p.dims().empty();
    for (const auto& b : p.bindings()) {
      if (b.is_call()) ++ops[b.op().name];
      for (const auto& r : b.results()) dtypes.insert(r.type().dtype);
    }
  }
  for (const OpDef* op : OpRegistry::get().all()) EXPECT_GT(ops[op->name], 0) << op->name << " never generated";
  EXPECT_EQ(dtypes.size(), kAllDTypes.size());
  EXPECT_GT(dims, 300);
}

}  // namespace
}  // namespace difftest
