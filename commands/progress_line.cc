#include "commands/progress_line.h"

#include <unistd.h>

#include <cstdlib>
#include <string>

namespace difftest::commands {

namespace {

constexpr double kTerminalEvery = 0.25;

double every_from_environment(double fallback) {
  const char* s = std::getenv("DIFFTEST_PROGRESS_EVERY");
  if (!s || !*s) return fallback;
  char* end = nullptr;
  const double v = std::strtod(s, &end);
  return end && *end == '\0' && v >= 0 ? v : fallback;
}

}  // namespace

ProgressLine::ProgressLine(std::FILE* out, double log_every)
    : out_(out),
      terminal_(::isatty(::fileno(out)) != 0),
      every_(every_from_environment(terminal_ ? kTerminalEvery : log_every)),
      last_shown_(std::chrono::steady_clock::now()) {}

ProgressLine::~ProgressLine() {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (drawn_) std::fputs("\n", out_);
}

void ProgressLine::draw(const std::string& line) {
  if (terminal_) {
    std::fprintf(out_, "\r\033[K%s", line.c_str());
    drawn_ = true;
  } else {
    std::fprintf(out_, "%s\n", line.c_str());
  }
  std::fflush(out_);
  shown_ = line;
  last_shown_ = std::chrono::steady_clock::now();
}

void ProgressLine::update(const std::string& line) {
  const std::lock_guard<std::mutex> lock(mutex_);
  last_ = line;
  if (std::chrono::duration<double>(std::chrono::steady_clock::now() - last_shown_).count() >= every_) draw(line);
}

void ProgressLine::note(const std::string& line) {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (drawn_) std::fputs("\r\033[K", out_);
  drawn_ = false;
  std::fprintf(out_, "%s\n", line.c_str());
  std::fflush(out_);
}

void ProgressLine::finish() {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (!last_.empty() && last_ != shown_) draw(last_);
  if (drawn_) std::fputs("\n", out_);
  drawn_ = false;
  last_.clear();
  std::fflush(out_);
}

}  // namespace difftest::commands
