// A status line for commands that run for minutes (fuzz, gate, reduce, bisect). On a terminal
// it is redrawn in place, at most four times a second; when the output is not a terminal (a CI
// log) a plain line is printed at most every `log_every` seconds, so a log shows the command
// is alive without filling up. DIFFTEST_PROGRESS_EVERY=S overrides `log_every`.
#pragma once

#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>

namespace difftest::commands {

class ProgressLine {
 public:
  explicit ProgressLine(std::FILE* out = stderr, double log_every = 30);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // The current status; shown now or later according to the cadence. Thread-safe.
  void update(const std::string& line);
  // A line that stays (the status line is cleared first, and redrawn by the next update).
  void note(const std::string& line);
  // Shows the last status once more (in a log: whether or not it is due) and ends the line.
  void finish();

 private:
  void draw(const std::string& line);

  std::FILE* out_;
  bool terminal_;
  double every_;
  std::mutex mutex_;
  std::string last_;    // the latest status
  std::string shown_;   // the status last drawn
  bool drawn_ = false;  // a status line is on the terminal, not yet ended
  std::chrono::steady_clock::time_point last_shown_;
};

}  // namespace difftest::commands
