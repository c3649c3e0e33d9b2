#include "oracle/isolate/worker_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "oracle/isolate/clock.h"

extern char** environ;

namespace difftest::oracle {

namespace {

constexpr int kPollMs = 25;
constexpr const char* kDoneMarker = "@@done";
constexpr const char* kStageMarker = "@@stage ";

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// Appends what `fd` has to `buffer`; false at end of file or on an error.
bool read_available(int fd, std::string& buffer) {
  char chunk[65536];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n > 0) {
      buffer.append(chunk, static_cast<size_t>(n));
      if (static_cast<size_t>(n) < sizeof chunk) return true;
      continue;
    }
    if (n == 0) return false;
    if (errno == EINTR) continue;
    return errno == EAGAIN || errno == EWOULDBLOCK;
  }
}

// An unlinked regular file for the worker's stderr, opened for appending; -1 on an error.
int open_log_file() {
  std::error_code ignored;
  const std::string dir = std::filesystem::temp_directory_path(ignored).string();
  int fd = ::open(dir.empty() ? "/tmp" : dir.c_str(), O_TMPFILE | O_RDWR | O_APPEND | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
  std::string name = (dir.empty() ? std::string("/tmp") : dir) + "/difftest-worker-log-XXXXXX";
  fd = ::mkostemp(name.data(), O_APPEND | O_CLOEXEC);
  if (fd >= 0) ::unlink(name.c_str());
  return fd;
}

// Moves the complete lines of `log` before the done marker into `answer` (the last stage
// marker into answer.stage, the rest into answer.log); true once the marker was seen.
bool take_log_lines(std::string& log, WorkerAnswer& answer) {
  size_t at = 0;
  bool done = false;
  for (size_t nl; !done && (nl = log.find('\n', at)) != std::string::npos; at = nl + 1) {
    const std::string line = log.substr(at, nl - at);
    if (line.rfind(kDoneMarker, 0) == 0) {
      done = true;
    } else if (line.rfind(kStageMarker, 0) == 0) {
      answer.stage = line.substr(std::strlen(kStageMarker));
    } else {
      answer.log += line + "\n";
    }
  }
  log.erase(0, at);
  return done;
}

}  // namespace

WorkerProcess::WorkerProcess(std::vector<std::string> argv) : argv_(std::move(argv)) {}

WorkerProcess::~WorkerProcess() { stop(); }

std::string WorkerProcess::start() {
  // A worker that dies between two requests must not take the harness with it at the next write.
  ::signal(SIGPIPE, SIG_IGN);
  int in[2], out[2];
  if (::pipe2(in, O_CLOEXEC) != 0) return std::strerror(errno);
  if (::pipe2(out, O_CLOEXEC) != 0) {
    ::close(in[0]), ::close(in[1]);
    return std::strerror(errno);
  }
  const int log = open_log_file();
  if (log < 0) {
    const std::string why = std::string("cannot create the worker's log file: ") + std::strerror(errno);
    ::close(in[0]), ::close(in[1]), ::close(out[0]), ::close(out[1]);
    return why;
  }
  posix_spawn_file_actions_t actions;
  ::posix_spawn_file_actions_init(&actions);
  ::posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  ::posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  ::posix_spawn_file_actions_adddup2(&actions, log, 2);
  std::vector<char*> args;
  for (auto& a : argv_) args.push_back(a.data());
  args.push_back(nullptr);
  pid_t pid = -1;
  const int rc = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  ::posix_spawn_file_actions_destroy(&actions);
  ::close(in[0]), ::close(out[1]);
  if (rc != 0) {
    ::close(in[1]), ::close(out[0]), ::close(log);
    return std::string("cannot run ") + argv_[0] + ": " + std::strerror(rc);
  }
  pid_ = pid;
  owner_ = ::getpid();
  to_worker_ = in[1];
  from_worker_ = out[0];
  worker_log_ = log;
  log_read_at_ = 0;
  ::fcntl(from_worker_, F_SETFL, O_NONBLOCK);
  out_buffer_.clear();
  log_buffer_.clear();
  return "";
}

void WorkerProcess::read_log() {
  char chunk[65536];
  for (;;) {
    const ssize_t n = ::pread(worker_log_, chunk, sizeof chunk, log_read_at_);
    if (n > 0) {
      log_buffer_.append(chunk, static_cast<size_t>(n));
      log_read_at_ += n;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return;
  }
}

void WorkerProcess::start_log_afresh() {
  // The worker is between requests: what it wrote after its last marker is kept, the file is
  // emptied so that a long campaign does not grow it without end (the worker appends, so its
  // next line lands at the new start).
  read_log();
  if (::ftruncate(worker_log_, 0) == 0) log_read_at_ = 0;
}

void WorkerProcess::kill_and_reap(WorkerAnswer& answer) {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFSIGNALED(status) && answer.signal == 0) answer.signal = WTERMSIG(status);
    if (WIFEXITED(status)) answer.exit_code = WEXITSTATUS(status);
  }
  pid_ = -1;
  close_fd(to_worker_);
  close_fd(from_worker_);
  close_fd(worker_log_);
}

void WorkerProcess::stop() {
  if (pid_ <= 0) return;
  if (owner_ != ::getpid()) {  // a forked copy: the worker belongs to the parent
    pid_ = -1;
    close_fd(to_worker_), close_fd(from_worker_), close_fd(worker_log_);
    return;
  }
  close_fd(to_worker_);
  const auto t0 = std::chrono::steady_clock::now();
  int status = 0;
  while (seconds_since(t0) < 1) {
    const pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_ || (r < 0 && errno != EINTR)) {
      pid_ = -1;
      close_fd(from_worker_), close_fd(worker_log_);
      return;
    }
    ::poll(nullptr, 0, 10);
  }
  WorkerAnswer ignored;
  kill_and_reap(ignored);
}

WorkerAnswer WorkerProcess::request(const std::string& line, const IsolationLimits& limits) {
  WorkerAnswer answer;
  if (pid_ > 0 && owner_ != ::getpid()) stop();  // inherited through a fork: start our own
  if (pid_ > 0) {
    // A worker that died since its last answer (killed from outside) is replaced before this
    // request is written, so its death is not blamed on this request.
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      close_fd(to_worker_), close_fd(from_worker_), close_fd(worker_log_);
    }
  }
  if (pid_ <= 0) {
    const std::string why = start();
    if (!why.empty()) {
      answer.status = WorkerAnswer::Status::NotStarted;
      answer.line = why;
      return answer;
    }
  }
  ProcessCpuClock cpu(pid_);
  const double cpu_start = cpu.seconds();
  const auto t0 = std::chrono::steady_clock::now();
  const auto finish = [&](WorkerAnswer::Status status) {
    answer.status = status;
    answer.cpu_seconds = cpu.seconds() - cpu_start;
    answer.wall_seconds = seconds_since(t0);
    if (status != WorkerAnswer::Status::Ok) {
      read_log();
      take_log_lines(log_buffer_, answer);
      answer.log += log_buffer_;
      log_buffer_.clear();
      kill_and_reap(answer);
    }
    return answer;
  };
  start_log_afresh();
  if (!write_all(to_worker_, line + "\n")) return finish(WorkerAnswer::Status::Died);
  bool have_line = false, log_done = false, out_open = true;
  BlockedWatch watch(limits.cpu_seconds * limits.wall_factor, cpu_start);
  while (!have_line) {
    if (passed(limits.deadline)) return finish(WorkerAnswer::Status::Cancelled);
    const double used = cpu.seconds();
    if (used - cpu_start >= limits.cpu_seconds) return finish(WorkerAnswer::Status::TimedOut);
    if (watch.blocked(used)) {
      answer.blocked = true;
      return finish(WorkerAnswer::Status::TimedOut);
    }
    pollfd fds[1] = {{from_worker_, POLLIN, 0}};
    const int r = ::poll(fds, 1, kPollMs);
    if (r < 0 && errno != EINTR) return finish(WorkerAnswer::Status::Died);
    if (out_open && (fds[0].revents & (POLLIN | POLLHUP | POLLERR)))
      out_open = read_available(from_worker_, out_buffer_);
    read_log();
    if (!log_done) log_done = take_log_lines(log_buffer_, answer);
    const size_t nl = out_buffer_.find('\n');
    if (nl != std::string::npos) {
      answer.line = out_buffer_.substr(0, nl);
      out_buffer_.erase(0, nl + 1);
      have_line = true;
    } else if (!out_open) {
      return finish(WorkerAnswer::Status::Died);
    }
  }
  // The worker logs its marker before it answers, and its log is a file: the read after the
  // answer line has everything it logged for this request. A worker that wrote no marker has
  // its whole log taken.
  read_log();
  if (!log_done && !take_log_lines(log_buffer_, answer)) {
    answer.log += log_buffer_;
    log_buffer_.clear();
  }
  return finish(WorkerAnswer::Status::Ok);
}

}  // namespace difftest::oracle
