// A long-lived helper process (an external compiler's worker) spoken to one line at a time
// over pipes: a request line on its stdin, an answer line on its stdout, and whatever it logs
// on stderr up to a marker line it writes after each answer.
//
// Its stderr is an unlinked regular file, not a pipe: Node.js puts a stderr pipe into
// non-blocking mode, the native library inside it (ONNX Runtime's log, through std::clog) then
// meets EAGAIN whenever the pipe is full, and a C++ stream that failed once stays silent for the
// rest of the process. A file never refuses a write, however slowly the harness reads.
//
// Timeouts are on the worker's CPU time, as the kernel counts it (all its threads), like the
// isolated children's (isolate.h): a busy machine slows the worker down but does not make
// it use more CPU, so the verdict does not depend on the load. A worker that blocks uses no CPU;
// a backstop stops it once its CPU clock has stood still for a multiple of the CPU budget
// (BlockedWatch, isolate.h). A worker that dies or is
// killed is started again at the next request.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "oracle/isolate/isolate.h"

namespace difftest::oracle {

struct WorkerAnswer {
  enum class Status {
    Ok,          // `line` holds the answer
    Died,        // the worker exited or was killed by a signal before answering (`signal`)
    TimedOut,    // killed at the CPU budget, or (`blocked`) at the backstop (no CPU used for that long)
    Cancelled,   // killed at the caller's deadline: says nothing about the request
    NotStarted,  // the worker could not be started (`line` says why)
  };
  Status status = Status::Ok;
  std::string line;   // the answer, without its newline
  std::string log;    // what the worker wrote on stderr for this request, markers removed
  std::string stage;  // the last "@@stage TEXT" line the worker logged before it died or hung
  int signal = 0;
  int exit_code = 0;
  bool blocked = false;
  double cpu_seconds = 0;  // the worker's CPU time over this request
  double wall_seconds = 0;
};

class WorkerProcess {
 public:
  // `argv[0]` is looked up on PATH. The worker writes "@@done" (and anything after it) on a
  // line of stderr when it has done a request, before its answer line, and may write
  // "@@stage TEXT" lines before each step.
  explicit WorkerProcess(std::vector<std::string> argv);
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  // Sends `line` (no newline in it) and waits for the answer within `limits.cpu_seconds` of the
  // worker's CPU time (backstop: `limits.wall_factor` times that without using CPU) and before
  // `limits.deadline`. The worker is (re)started first when it is not running, and stopped when
  // the request does not end with an answer.
  WorkerAnswer request(const std::string& line, const IsolationLimits& limits);
  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  // Closes the worker's stdin and waits for it to exit (killing it after a second).
  void stop();

 private:
  std::string start();  // "" or why it could not start
  void kill_and_reap(WorkerAnswer& answer);
  void read_log();           // appends what the worker logged since the last read to log_buffer_
  void start_log_afresh();   // between requests: empties the log file

  std::vector<std::string> argv_;
  pid_t pid_ = -1;
  pid_t owner_ = -1;  // the process that started it: a forked copy of this object must not use it
  int to_worker_ = -1, from_worker_ = -1, worker_log_ = -1;
  off_t log_read_at_ = 0;
  std::string out_buffer_, log_buffer_;
};

}  // namespace difftest::oracle
