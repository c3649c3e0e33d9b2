#include "oracle/isolate/isolate.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "compiler/support/diagnostics.h"

namespace difftest::oracle {
namespace {

using Status = ChildOutcome::Status;

IsolationLimits quick(double seconds = 5) {
  IsolationLimits l;
  l.cpu_seconds = seconds;
  l.memory_bytes = size_t{1} << 30;
  return l;
}

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

double thread_cpu_seconds() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Computes until this thread has used `seconds` of CPU time.
void burn_cpu(double seconds) {
  const double until = thread_cpu_seconds() + seconds;
  volatile uint64_t sink = 0;
  while (thread_cpu_seconds() < until) sink = sink + 1;
}

TEST(Isolate, TheLimitIsOnCpuTimeNotOnTheWallClock) {
  // A child that sleeps uses no CPU: 1.5 s of wall time passes a 0.5 s CPU budget (the backstop
  // is 10x the budget).
  const auto slept = run_isolated(
      [] {
        ::usleep(1'500'000);
        return std::string("woke");
      },
      quick(0.5));
  ASSERT_EQ(slept.status, Status::Ok) << status_name(slept.status);
  EXPECT_GE(slept.seconds, 1.5);
  EXPECT_LT(slept.cpu_seconds, 0.5);
  // One that computes is stopped once it has used its budget, however long that takes.
  const auto busy = run_isolated(
      [] {
        burn_cpu(30);
        return std::string("done");
      },
      quick(0.5));
  EXPECT_EQ(busy.status, Status::TimedOut);
  EXPECT_FALSE(busy.blocked);
  EXPECT_GE(busy.cpu_seconds, 0.5);
  EXPECT_LT(busy.cpu_seconds, 20.0);
}

TEST(Isolate, CpuTimeCountsEveryThreadOfTheChild) {
  const auto out = run_isolated(
      [] {
        std::thread a([] { burn_cpu(0.4); });
        std::thread b([] { burn_cpu(0.4); });
        a.join();
        b.join();
        return std::string("joined");
      },
      quick(5));
  ASSERT_EQ(out.status, Status::Ok);
  EXPECT_GE(out.cpu_seconds, 0.8) << "both threads' CPU time counts";
}

TEST(Isolate, ABlockedChildIsStoppedByTheBackstop) {
  IsolationLimits limits = quick(0.2);
  limits.wall_factor = 3;  // 0.6 s
  const auto out = run_isolated(
      [] {
        ::pause();  // waits for a signal that never comes
        return std::string();
      },
      limits);
  EXPECT_EQ(out.status, Status::TimedOut);
  EXPECT_TRUE(out.blocked);
  EXPECT_GE(out.seconds, 0.6);
  EXPECT_LT(out.cpu_seconds, 0.2);
}

TEST(Isolate, AChildThatKeepsUsingCpuSlowlyIsNotBlocked) {
  // A child on a busy machine gets CPU in slices far apart: here 5 ms of CPU, then 50 ms with
  // none, 30 times over, about 1.6 s of wall time for 0.15 s of CPU. The backstop counts time
  // without any CPU (0.6 s), which never passes, so the child finishes within its 0.2 s budget.
  IsolationLimits limits = quick(0.2);
  limits.wall_factor = 3;
  const auto out = run_isolated(
      [] {
        for (int i = 0; i < 30; ++i) {
          burn_cpu(0.005);
          ::usleep(50'000);
        }
        return std::string("done");
      },
      limits);
  EXPECT_EQ(out.status, Status::Ok) << status_name(out.status) << (out.blocked ? " (blocked)" : "");
  EXPECT_GT(out.seconds, 0.6) << "longer than the backstop in wall time";
}

TEST(Isolate, EachStageGetsItsOwnBudgetWhenAskedTo) {
  IsolationLimits limits = quick(0.6);
  limits.timeout_per_stage = true;
  const auto three_stages = [](Progress& p) {
    for (int i = 0; i < 3; ++i) {
      p.stage("stage " + std::to_string(i));
      burn_cpu(0.4);
    }
    return std::string("three stages");
  };
  const auto out = run_isolated(three_stages, limits);
  EXPECT_EQ(out.status, Status::Ok) << "1.2 s in all, 0.4 s per stage";
  limits.timeout_per_stage = false;
  const auto whole = run_isolated(three_stages, limits);
  EXPECT_EQ(whole.status, Status::TimedOut);
  EXPECT_EQ(whole.stage, "stage 1") << "0.6 s of CPU is reached in the second stage (0.4 to 0.8 s)";
}

TEST(Isolate, TheCallersDeadlineCancelsTheChild) {
  IsolationLimits limits = quick(30);
  limits.deadline = deadline_in(0.3);
  const auto out = run_isolated(
      [] {
        burn_cpu(20);
        return std::string();
      },
      limits);
  EXPECT_EQ(out.status, Status::Cancelled);
  EXPECT_LT(out.seconds, 5);
  EXPECT_TRUE(passed(limits.deadline));
  EXPECT_FALSE(passed(deadline_in(0)));  // no deadline
}

TEST(Isolate, AChildDiesWithItsParent) {
  // A process that isolates an endless child and is then killed: the child must not outlive it.
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t middle = ::fork();
  ASSERT_GE(middle, 0);
  if (middle == 0) {
    ::close(fds[0]);
    run_isolated(
        [&] {
          const pid_t me = ::getpid();
          (void)!::write(fds[1], &me, sizeof me);
          burn_cpu(60);
          return std::string();
        },
        quick(120));
    ::_exit(0);
  }
  ::close(fds[1]);
  pid_t grandchild = 0;
  ASSERT_EQ(::read(fds[0], &grandchild, sizeof grandchild), static_cast<ssize_t>(sizeof grandchild));
  ::close(fds[0]);
  ::kill(middle, SIGKILL);
  ::waitpid(middle, nullptr, 0);
  // Gone: no such process, or a zombie (dead, waiting for whoever inherited it to reap it).
  const auto dead = [](pid_t pid) {
    if (::kill(pid, 0) != 0) return true;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string pid_text, name, state;
    stat >> pid_text >> name >> state;
    return state == "Z" || state == "X";
  };
  bool gone = false;
  for (int i = 0; i < 500 && !gone; ++i) {  // up to 5 s for the kernel to deliver the signal
    gone = dead(grandchild);
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(gone) << "the isolated child " << grandchild << " outlived its parent";
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
      [] {
        IsolationLimits l = quick(10);
        l.memory_bytes = size_t{256} << 20;
        return l;
      }());
  EXPECT_EQ(out.status, Status::Error);
  EXPECT_NE(out.message.find("bad_alloc"), std::string::npos) << out.message;
}

TEST(Isolate, ExitingWithoutAReportIsLost) {
  const auto out = run_isolated([]() -> std::string { std::_Exit(7); }, quick());
  EXPECT_EQ(out.status, Status::Lost);
  EXPECT_NE(out.message.find("status 7"), std::string::npos);
}

// IsolatedWorks: one child serves a table of works.

using Work = std::function<std::string(Progress&)>;

Work returns_pid() {
  return [](Progress&) { return std::to_string(::getpid()); };
}

TEST(IsolatedWorks, OneChildRunsTheWorksOneAfterAnother) {
  IsolatedWorks works({returns_pid(), returns_pid(), [](Progress& progress) {
                         progress.stage("second stage");
                         burn_cpu(0.05);
                         return std::string("third");
                       }});
  const auto first = works.run(0, quick());
  const auto second = works.run(1, quick());
  ASSERT_EQ(first.status, Status::Ok) << first.message;
  ASSERT_EQ(second.status, Status::Ok) << second.message;
  EXPECT_EQ(first.payload, second.payload);  // the same child
  EXPECT_NE(first.payload, std::to_string(::getpid()));
  const auto third = works.run(2, quick());
  ASSERT_EQ(third.status, Status::Ok);
  EXPECT_EQ(third.payload, "third");
  EXPECT_EQ(third.stage, "second stage");
  EXPECT_GE(third.cpu_seconds, 0.05);  // its own CPU time, not the child's since it started
  EXPECT_LT(third.cpu_seconds, 2.0);
  EXPECT_EQ(works.run(0, quick()).payload, first.payload);  // a work may run again
}

TEST(IsolatedWorks, AWorkThatFailsEndsOnlyItsChild) {
  IsolatedWorks works({returns_pid(),
                       [](Progress&) -> std::string {
                         volatile bool forever = true;
                         while (forever) {
                         }
                         return "";
                       },
                       [](Progress&) -> std::string { throw UserError(ErrorKind::Usage, "refused"); }});
  const auto before = works.run(0, quick());
  EXPECT_EQ(works.run(1, quick(0.3)).status, Status::TimedOut);
  EXPECT_EQ(works.child(), -1);
  const auto after = works.run(0, quick());
  ASSERT_EQ(after.status, Status::Ok);
  EXPECT_NE(after.payload, before.payload);  // a new child
  const auto refused = works.run(2, quick());
  EXPECT_EQ(refused.status, Status::Error);
  EXPECT_TRUE(refused.user_error);
  EXPECT_EQ(works.run(0, quick()).payload, after.payload);  // an exception leaves the child serving
}

// What an earlier work leaves behind in the child (as a stray write into the heap would).
bool poisoned = false;

TEST(IsolatedWorks, ACrashStandsOnlyIfTheWorkCrashesInAChildOfItsOwn) {
  IsolatedWorks works({[](Progress&) {
                         poisoned = true;
                         return std::string("poisons");
                       },
                       [](Progress&) -> std::string {
                         if (poisoned) std::abort();
                         return "clean";
                       },
                       [](Progress&) -> std::string { std::abort(); }});
  ASSERT_EQ(works.run(0, quick()).status, Status::Ok);
  const auto victim = works.run(1, quick());
  ASSERT_EQ(victim.status, Status::Ok) << victim.message;  // rerun alone: not its crash
  EXPECT_EQ(victim.payload, "clean");
  ASSERT_EQ(works.run(0, quick()).status, Status::Ok);
  const auto crash = works.run(2, quick());
  EXPECT_EQ(crash.status, Status::Crashed);
  EXPECT_EQ(crash.signal, SIGABRT);
  EXPECT_FALSE(poisoned);  // the parent never ran a work
}

}  // namespace
}  // namespace difftest::oracle
