// A worker spoken to one line at a time (oracle/isolate/worker_process.h): answers and their
// logs kept apart, a crash, a CPU-bound hang and a blocked worker each a status of their own,
// the stage it last named kept, and the next request served by a new worker. The workers are
// small shell loops (and one Python loop, for a non-blocking stderr).
#include "oracle/isolate/worker_process.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace difftest::oracle {
namespace {

// Echoes each line back after logging it; dies on "crash", spins on "spin", blocks on "block".
const char* kScript = R"(
while read -r line; do
  case "$line" in
    crash) echo "@@stage run 2" >&2; kill -SEGV $$ ;;
    spin) echo "@@stage session" >&2; while :; do :; done ;;
    block) read -r never ;;
  esac
  echo "log of $line" >&2
  echo "@@done" >&2
  echo "answer $line"
done
)";

IsolationLimits budget(double cpu_seconds) {
  IsolationLimits l;
  l.cpu_seconds = cpu_seconds;
  l.wall_factor = 20;
  return l;
}

TEST(WorkerProcess, AnswersEachRequestWithItsOwnLog) {
  WorkerProcess w({"sh", "-c", kScript});
  for (const std::string word : {"one", "two"}) {
    const WorkerAnswer a = w.request(word, budget(10));
    ASSERT_EQ(a.status, WorkerAnswer::Status::Ok) << a.line;
    EXPECT_EQ(a.line, "answer " + word);
    EXPECT_EQ(a.log, "log of " + word + "\n");
  }
}

TEST(WorkerProcess, ACrashIsAStatusWithTheStageItNamedAndTheNextRequestGetsANewWorker) {
  WorkerProcess w({"sh", "-c", kScript});
  ASSERT_EQ(w.request("first", budget(10)).status, WorkerAnswer::Status::Ok);
  const pid_t first = w.pid();
  const WorkerAnswer crashed = w.request("crash", budget(10));
  EXPECT_EQ(crashed.status, WorkerAnswer::Status::Died);
  EXPECT_EQ(crashed.signal, 11);
  EXPECT_EQ(crashed.stage, "run 2");
  EXPECT_FALSE(w.running());
  const WorkerAnswer again = w.request("again", budget(10));
  ASSERT_EQ(again.status, WorkerAnswer::Status::Ok);
  EXPECT_EQ(again.line, "answer again");
  EXPECT_NE(w.pid(), first);
}

TEST(WorkerProcess, ASpinningWorkerTimesOutOnItsCpuBudget) {
  WorkerProcess w({"sh", "-c", kScript});
  const WorkerAnswer a = w.request("spin", budget(0.2));
  EXPECT_EQ(a.status, WorkerAnswer::Status::TimedOut);
  EXPECT_FALSE(a.blocked);
  EXPECT_GE(a.cpu_seconds, 0.2);
  EXPECT_EQ(a.stage, "session");
  EXPECT_EQ(w.request("after", budget(10)).line, "answer after");
}

TEST(WorkerProcess, ABlockedWorkerIsStoppedByTheBackstop) {
  WorkerProcess w({"sh", "-c", kScript});
  IsolationLimits l = budget(0.05);
  l.wall_factor = 4;
  const WorkerAnswer a = w.request("block", l);
  EXPECT_EQ(a.status, WorkerAnswer::Status::TimedOut);
  EXPECT_TRUE(a.blocked);
}

// A worker gone between two requests is replaced before the second is written: the second gets
// its answer rather than the first worker's death.
TEST(WorkerProcess, AWorkerThatDiedBetweenRequestsIsReplacedFirst) {
  WorkerProcess w({"sh", "-c", kScript});
  ASSERT_EQ(w.request("first", budget(10)).status, WorkerAnswer::Status::Ok);
  const pid_t first = w.pid();
  ASSERT_EQ(::kill(first, SIGKILL), 0);
  // Wait until the kernel has made it a zombie (state Z): the death has happened.
  for (;;) {
    std::ifstream stat("/proc/" + std::to_string(first) + "/stat");
    std::string pid, name, state;
    stat >> pid >> name >> state;
    if (!stat || state == "Z") break;
    std::this_thread::yield();
  }
  const WorkerAnswer a = w.request("second", budget(10));
  ASSERT_EQ(a.status, WorkerAnswer::Status::Ok);
  EXPECT_EQ(a.line, "answer second");
  EXPECT_NE(w.pid(), first);
}

TEST(WorkerProcess, AWorkerThatCannotStartSaysWhy) {
  WorkerProcess w({"/nonexistent/worker"});
  const WorkerAnswer a = w.request("x", budget(1));
  EXPECT_EQ(a.status, WorkerAnswer::Status::NotStarted);
  EXPECT_NE(a.line.find("/nonexistent/worker"), std::string::npos) << a.line;
}

TEST(WorkerProcess, AWorkerThatExitsBeforeAnsweringDied) {
  WorkerProcess w({"sh", "-c", "read -r line; echo 'bad things' >&2; exit 3"});
  const WorkerAnswer a = w.request("x", budget(10));
  EXPECT_EQ(a.status, WorkerAnswer::Status::Died);
  EXPECT_EQ(a.exit_code, 3);
  EXPECT_EQ(a.log, "bad things\n");
}

// Node.js makes its stderr non-blocking, and ONNX Runtime's log inside it lost every line after
// the first write that met a full pipe (a campaign's `transformer:` coverage stopped after about
// 230 programs). This worker does the same to its stderr and logs 256 KiB in one write, four
// times the capacity of a pipe: each request gets its whole log, and the log file is emptied
// between requests rather than growing with the campaign.
TEST(WorkerProcess, ALogLargerThanAPipeReachesTheHarnessWholeFromANonBlockingStderr) {
  const char* script = R"(
import os, sys
os.set_blocking(2, False)
for line in sys.stdin:
    written = os.write(2, b"x" * 262143 + b"\n")
    os.write(2, b"@@done\n")
    sys.stdout.write("wrote %d\n" % written)
    sys.stdout.flush()
)";
  WorkerProcess w({"python3", "-c", script});
  for (int request = 0; request < 3; ++request) {
    const WorkerAnswer a = w.request("go", budget(10));
    ASSERT_EQ(a.status, WorkerAnswer::Status::Ok) << a.log.substr(0, 200);
    EXPECT_EQ(a.line, "wrote 262144");
    EXPECT_EQ(a.log.size(), 262144u);
    EXPECT_EQ(a.log.find_first_not_of('x'), 262143u);
    EXPECT_EQ(std::filesystem::file_size("/proc/" + std::to_string(w.pid()) + "/fd/2"), 262144u + 7);
  }
}

}  // namespace
}  // namespace difftest::oracle
