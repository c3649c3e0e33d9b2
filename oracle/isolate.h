// Runs work in a forked child process with a wall-clock timeout and a memory cap, so a
// compiler crash, an abort or an infinite loop in generated code becomes a result, never a
// harness crash.
//
// Only the compiler runs in the child: the reference interpreter (OpenBLAS, with its thread
// pool) stays in the parent, because a forked child inherits none of the parent's threads.
#pragma once

#include <functional>
#include <string>

namespace difftest::oracle {

struct IsolationLimits {
  double timeout_seconds = 10;
  size_t memory_bytes = size_t{4} << 30;  // address space the child may add to the parent's (not under ASan)
  // true: the timeout bounds each stage the work reports (Progress::stage) rather than the
  // whole work, so a compile and every run each get `timeout_seconds`.
  bool timeout_per_stage = false;
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
    Ok,          // the work returned; `payload` holds what it returned
    Error,       // the work threw; `message` holds what()
    Crashed,     // killed by a signal (SIGSEGV, SIGABRT, ...); `signal` says which
    TimedOut,    // killed after the timeout
    Lost,        // exited without reporting (e.g. exit() called inside the work)
  };
  Status status = Status::Lost;
  std::string payload;
  std::string message;
  bool user_error = false;  // Error from a difftest::UserError (bad input) rather than an internal one
  int signal = 0;
  double seconds = 0;
  std::string stage;  // the last Progress::stage the child reached ("" when none)
};

const char* status_name(ChildOutcome::Status s);

ChildOutcome run_isolated(const std::function<std::string(Progress&)>& work, const IsolationLimits& limits);
ChildOutcome run_isolated(const std::function<std::string()>& work, const IsolationLimits& limits);

}  // namespace difftest::oracle
