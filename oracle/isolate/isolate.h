// Runs work in a forked child process with a CPU-time limit and a memory cap, so a compiler
// crash, an abort or an infinite loop in generated code becomes a result, never a harness
// crash.
//
// The limit is on CPU time, as the kernel counts it for the child (all its threads), not on
// the wall clock: a busy machine slows a child down but does not make it use more CPU, so a
// verdict does not depend on the load. A child that blocks (waits on a lock that never opens)
// uses no CPU; a backstop stops it once its CPU clock has not moved for a multiple of the CPU
// budget (BlockedWatch).
//
// Only the compiler runs in the child: the reference interpreter (OpenBLAS, with its thread
// pool) stays in the parent, because a forked child inherits none of the parent's threads.
#pragma once

#include <sys/types.h>
#include <time.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace difftest::oracle {

using Deadline = std::optional<std::chrono::steady_clock::time_point>;

// A deadline `seconds` from now; none when `seconds` <= 0.
Deadline deadline_in(double seconds);
// Seconds left before `d` (infinity when there is none, 0 when it has passed).
double seconds_left(const Deadline& d);
bool passed(const Deadline& d);

// The CPU time a process (a child, a worker) has used so far, every thread of it, read from the
// kernel's clock for that process.
class ProcessCpuClock {
 public:
  explicit ProcessCpuClock(pid_t pid) : ok_(::clock_getcpuclockid(pid, &clock_) == 0) {}
  double seconds() {
    timespec ts{};
    if (ok_ && ::clock_gettime(clock_, &ts) == 0) {
      last_ = static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
    }
    return last_;  // a process that has just exited keeps its last reading
  }

 private:
  clockid_t clock_{};
  bool ok_;
  double last_ = 0;
};

// Tells a blocked child from a starved one. A child waiting on a lock that never opens uses
// no CPU; one on a busy machine uses CPU slowly. Counting wall time since the start called the
// second blocked too (a compile that had used 9.9 s of its 10 s budget after 103 s of wall time
// beside a sanitizer build), so the verdict depended on the load. What counts instead is wall
// time since the child's CPU clock last moved.
class BlockedWatch {
 public:
  // `backstop_seconds`: how long a child may go without using any CPU; its clock reads
  // `cpu_seconds` now.
  BlockedWatch(double backstop_seconds, double cpu_seconds) : backstop_(backstop_seconds) { restart(cpu_seconds); }
  // A new stage (or request) starts now, the child's CPU clock reading `cpu_seconds`.
  void restart(double cpu_seconds);
  // True once the clock has not moved for the backstop; `cpu_seconds` is its current reading.
  bool blocked(double cpu_seconds);
  // Wall seconds left before blocked() could turn true (for a poll's timeout).
  double seconds_left() const;

 private:
  double backstop_;
  double last_cpu_ = 0;
  std::chrono::steady_clock::time_point last_progress_;
};

// Writes all of `s` to `fd`, retrying interrupted and short writes; false when the write fails
// (the reader is gone, the disk is full).
bool write_all(int fd, const std::string& s);

struct IsolationLimits {
  double cpu_seconds = 10;                // CPU time the child may use (per stage when `timeout_per_stage`)
  size_t memory_bytes = size_t{4} << 30;  // address space the child may add to the parent's (not under ASan)
  // true: the limit bounds each stage the work reports (Progress::stage) rather than the whole
  // work, so a compile and every run each get `cpu_seconds`.
  bool timeout_per_stage = false;
  // The backstop for a child that blocks: `wall_factor` x `cpu_seconds` of wall time in which it
  // uses no CPU at all (BlockedWatch).
  double wall_factor = 10;
  // The caller's own time limit (a command's --time or --budget): the child is killed when it
  // passes and the outcome is Cancelled, which says nothing about the program.
  Deadline deadline;
};

// Lets the work tell the parent how far it got before it finishes (or dies): the last stage
// reached is reported even when the child crashes or hangs.
class Progress {
 public:
  explicit Progress(int fd) : fd_(fd) {}
  void stage(const std::string& name);

 private:
  int fd_;
};

struct ChildOutcome {
  enum class Status {
    Ok,         // the work returned; `payload` holds what it returned
    Error,      // the work threw; `message` holds what()
    Crashed,    // killed by a signal (SIGSEGV, SIGABRT, ...); `signal` says which
    TimedOut,   // killed at the CPU limit, or (`blocked`) at the backstop (BlockedWatch)
    Lost,       // exited without reporting (e.g. exit() called inside the work)
    Cancelled,  // killed at the caller's deadline: no verdict
  };
  Status status = Status::Lost;
  std::string payload;
  std::string message;
  bool user_error = false;  // Error from a difftest::UserError (bad input) rather than an internal one
  bool blocked = false;     // TimedOut by the backstop (no CPU used for that long), the CPU limit not reached
  int signal = 0;
  double seconds = 0;            // wall clock, the whole child
  double cpu_seconds = 0;        // CPU time of the whole child, all its threads
  double stage_cpu_seconds = 0;  // CPU time of the last stage (of the whole work without stages)
  std::string stage;  // the last Progress::stage the child reached ("" when none)
};

const char* status_name(ChildOutcome::Status s);

// `work` in a child of its own (an IsolatedWorks of one work).
ChildOutcome run_isolated(const std::function<std::string(Progress&)>& work, const IsolationLimits& limits);
ChildOutcome run_isolated(const std::function<std::string()>& work, const IsolationLimits& limits);

// A table of works run in one forked child, one after another on request, each with the
// outcome run_isolated would give it alone: a check forks once per program, not once per
// variant. A fresh child re-touches the heap it writes to (about 12,000 page faults per
// program of the default check); one child reuses it, and checks 17-29% more programs a
// second (docs/fuzzing.md). The works are fixed before the first fork (a child holds the
// parent's memory as it was then). A work that
// crashes, times out, exits or is cancelled ends the child and the next request starts
// another; a crash after other works in the same child is run again in a child of its own and
// stands only if it crashes there too, since a stray write of an earlier work into the heap
// can break a later one.
class IsolatedWorks {
 public:
  explicit IsolatedWorks(std::vector<std::function<std::string(Progress&)>> works);
  ~IsolatedWorks();
  IsolatedWorks(const IsolatedWorks&) = delete;
  IsolatedWorks& operator=(const IsolatedWorks&) = delete;

  // Work `index` under `limits` (the memory cap is the one the child started with).
  ChildOutcome run(size_t index, const IsolationLimits& limits);
  pid_t child() const { return pid_; }  // the live child, or -1

 private:
  void start(const IsolationLimits& limits);
  void stop();
  ChildOutcome run_once(size_t index, const IsolationLimits& limits);

  std::vector<std::function<std::string(Progress&)>> works_;
  pid_t pid_ = -1;
  int requests_ = -1, results_ = -1;
  int served_ = 0;              // reports the live child has sent
  int last_served_before_ = 0;  // ... before the work run last
  std::optional<ProcessCpuClock> cpu_;
};

}  // namespace difftest::oracle
