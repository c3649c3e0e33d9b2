#include "oracle/isolate/worker_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

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
  int in[2], out[2], err[2];
  if (::pipe2(in, O_CLOEXEC) != 0) return std::strerror(errno);
  if (::pipe2(out, O_CLOEXEC) != 0) {
    ::close(in[0]), ::close(in[1]);
    return std::strerror(errno);
  }
  if (::pipe2(err, O_CLOEXEC) != 0) {
    ::close(in[0]), ::close(in[1]), ::close(out[0]), ::close(out[1]);
    return std::strerror(errno);
  }
  posix_spawn_file_actions_t actions;
  ::posix_spawn_file_actions_init(&actions);
  ::posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  ::posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  ::posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  std::vector<char*> args;
  for (auto& a : argv_) args.push_back(a.data());
  args.push_back(nullptr);
  pid_t pid = -1;
  const int rc = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  ::posix_spawn_file_actions_destroy(&actions);
  ::close(in[0]), ::close(out[1]), ::close(err[1]);
  if (rc != 0) {
    ::close(in[1]), ::close(out[0]), ::close(err[0]);
    return std::string("cannot run ") + argv_[0] + ": " + std::strerror(rc);
  }
  pid_ = pid;
  owner_ = ::getpid();
  to_worker_ = in[1];
  from_worker_ = out[0];
  worker_log_ = err[0];
  ::fcntl(from_worker_, F_SETFL, O_NONBLOCK);
  ::fcntl(worker_log_, F_SETFL, O_NONBLOCK);
  out_buffer_.clear();
  log_buffer_.clear();
  return "";
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
      take_log_lines(log_buffer_, answer);
      answer.log += log_buffer_;
      kill_and_reap(answer);
    }
    return answer;
  };
  if (!write_all(to_worker_, line + "\n")) return finish(WorkerAnswer::Status::Died);
  bool have_line = false, log_done = false, out_open = true, log_open = true;
  BlockedWatch watch(limits.cpu_seconds * limits.wall_factor, cpu_start);
  while (!(have_line && log_done)) {
    if (passed(limits.deadline)) return finish(WorkerAnswer::Status::Cancelled);
    const double used = cpu.seconds();
    if (used - cpu_start >= limits.cpu_seconds) return finish(WorkerAnswer::Status::TimedOut);
    if (watch.blocked(used)) {
      answer.blocked = true;
      return finish(WorkerAnswer::Status::TimedOut);
    }
    pollfd fds[2] = {{from_worker_, POLLIN, 0}, {worker_log_, POLLIN, 0}};
    const int r = ::poll(fds, 2, kPollMs);
    if (r < 0 && errno != EINTR) return finish(WorkerAnswer::Status::Died);
    if (out_open && (fds[0].revents & (POLLIN | POLLHUP | POLLERR)))
      out_open = read_available(from_worker_, out_buffer_);
    if (log_open && (fds[1].revents & (POLLIN | POLLHUP | POLLERR)))
      log_open = read_available(worker_log_, log_buffer_);
    if (!log_done) log_done = take_log_lines(log_buffer_, answer);
    const size_t nl = out_buffer_.find('\n');
    if (!have_line && nl != std::string::npos) {
      answer.line = out_buffer_.substr(0, nl);
      out_buffer_.erase(0, nl + 1);
      have_line = true;
    }
    if ((!out_open && !have_line) || (!log_open && !log_done)) return finish(WorkerAnswer::Status::Died);
  }
  return finish(WorkerAnswer::Status::Ok);
}

}  // namespace difftest::oracle
