// Targets: the table the schedules and the JIT read, the host's choice, and the errors a user
// gets for a target that does not exist or that this host cannot run.
#include "compiler/target/target.h"

#include <gtest/gtest.h>

#include "compiler/support/diagnostics.h"

namespace difftest::target {
namespace {

TEST(Target, LanesFillTheWidestRegister) {
  const Target& avx512 = find_target("avx512");
  const Target& avx2 = find_target("avx2");
  EXPECT_EQ(vector_lanes(avx512, 4), 16);  // f32 in a zmm
  EXPECT_EQ(vector_lanes(avx512, 8), 8);   // f64
  EXPECT_EQ(vector_lanes(avx512, 2), 32);  // f16 / bf16
  EXPECT_EQ(vector_lanes(avx2, 4), 8);     // f32 in a ymm
  EXPECT_EQ(vector_lanes(avx2, 8), 4);
  EXPECT_EQ(vector_lanes(find_target("avx"), 4), 8);
  EXPECT_EQ(avx512.vector_registers, 32);
  EXPECT_EQ(avx2.vector_registers, 16);
  EXPECT_EQ(avx2.llvm_cpu, "haswell");
}

TEST(Target, AnUnknownNameListsTheKnownOnes) {
  try {
    find_target("sse2", "--target");
    FAIL() << "accepted";
  } catch (const UserError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
    EXPECT_NE(std::string(e.what()).find("--target: unknown target 'sse2' (known: avx512, avx2, avx)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(runnable_target("avx-512", "--target"), UserError);
}

// The host runs its own target and every narrower one; a wider one names what is missing.
TEST(Target, TheHostRunsItsTargetAndEveryNarrowerOne) {
  const Target& host = host_target();
  EXPECT_EQ(missing_host_features(host), "");
  bool narrower = false;
  for (const auto& t : all_targets()) {
    if (&t == &host) narrower = true;
    if (narrower) {
      EXPECT_EQ(missing_host_features(t), "") << t.name;
      EXPECT_EQ(&runnable_target(t.name, "--target"), &t);
    } else {
      EXPECT_NE(missing_host_features(t), "") << t.name << " is wider than the host's " << host.name;
      try {
        (void)runnable_target(t.name, "--target");
        ADD_FAILURE() << t.name << " accepted on a " << host.name << " host";
      } catch (const UserError& e) {
        EXPECT_NE(std::string(e.what()).find("this host cannot run"), std::string::npos) << e.what();
      }
    }
  }
}

}  // namespace
}  // namespace difftest::target
