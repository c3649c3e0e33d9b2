#include "oracle/isolate.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "compiler/ir/diagnostics.h"

namespace difftest::oracle {
namespace {

using Status = ChildOutcome::Status;

IsolationLimits quick(double seconds = 5) { return IsolationLimits{seconds, size_t{1} << 30}; }

TEST(Isolate, ReturnsThePayloadOfWorkThatFinishes) {
  const auto out = run_isolated([] { return std::string("abc\0def", 7); }, quick());
  ASSERT_EQ(out.status, Status::Ok) << out.message;
  EXPECT_EQ(out.payload, std::string("abc\0def", 7));
}

TEST(Isolate, CarriesLargePayloadsIntact) {
  std::string big(3'000'000, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 7919 % 251);
  const auto out = run_isolated([&] { return big; }, quick());
  ASSERT_EQ(out.status, Status::Ok);
  EXPECT_EQ(out.payload, big);
}

TEST(Isolate, ASegfaultBecomesACrashWithItsSignal) {
  const auto out = run_isolated(
      [] {
        ::raise(SIGSEGV);
        return std::string("unreachable");
      },
      quick());
  EXPECT_EQ(out.status, Status::Crashed);
  EXPECT_EQ(out.signal, SIGSEGV);
}

TEST(Isolate, AnAbortBecomesACrash) {
  const auto out = run_isolated([]() -> std::string { std::abort(); }, quick());
  EXPECT_EQ(out.status, Status::Crashed);
  EXPECT_EQ(out.signal, SIGABRT);
}

TEST(Isolate, AnEndlessLoopIsKilledAtTheTimeout) {
  const auto out = run_isolated(
      [] {
        volatile bool forever = true;
        while (forever) {
        }
        return std::string();
      },
      quick(0.3));
  EXPECT_EQ(out.status, Status::TimedOut);
}

TEST(Isolate, ExceptionsAreReportedWithTheirKind) {
  const auto user = run_isolated([]() -> std::string { throw UserError(ErrorKind::Shape, "bad shape"); }, quick());
  EXPECT_EQ(user.status, Status::Error);
  EXPECT_TRUE(user.user_error);
  EXPECT_NE(user.message.find("bad shape"), std::string::npos);
  const auto internal = run_isolated([]() -> std::string { throw std::runtime_error("boom"); }, quick());
  EXPECT_EQ(internal.status, Status::Error);
  EXPECT_FALSE(internal.user_error);
  EXPECT_EQ(internal.message, "boom");
}

TEST(Isolate, TheLastStageReachedSurvivesACrash) {
  const auto out = run_isolated(
      [](Progress& p) -> std::string {
        p.stage("compile");
        p.stage("run");
        ::raise(SIGSEGV);
        return "unreachable";
      },
      quick());
  EXPECT_EQ(out.status, Status::Crashed);
  EXPECT_EQ(out.stage, "run");
  const auto ok = run_isolated(
      [](Progress& p) {
        p.stage("compile");
        return std::string("P-looking payload");
      },
      quick());
  ASSERT_EQ(ok.status, Status::Ok);
  EXPECT_EQ(ok.stage, "compile");
  EXPECT_EQ(ok.payload, "P-looking payload");
}

TEST(Isolate, TheMemoryCapStopsARunawayAllocation) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "the address-space cap is not applied under AddressSanitizer";
#endif
  const auto out = run_isolated(
      [] {
        std::vector<char> huge(size_t{2} << 30, 1);
        return std::to_string(huge[huge.size() - 1]);
      },
      IsolationLimits{10, size_t{256} << 20});
  EXPECT_EQ(out.status, Status::Error);
  EXPECT_NE(out.message.find("bad_alloc"), std::string::npos) << out.message;
}

TEST(Isolate, ExitingWithoutAReportIsLost) {
  const auto out = run_isolated([]() -> std::string { std::_Exit(7); }, quick());
  EXPECT_EQ(out.status, Status::Lost);
  EXPECT_NE(out.message.find("status 7"), std::string::npos);
}

}  // namespace
}  // namespace difftest::oracle
