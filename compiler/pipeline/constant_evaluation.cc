#include "compiler/pipeline/constant_evaluation.h"

#include <fmt/format.h>

#include <map>
#include <mutex>
#include <string>

#include "compiler/ir/printer.h"
#include "compiler/pipeline/compile.h"

namespace difftest::pipeline {

// The values of a one-call program compiled at O0, or nullopt when the op rejects its values at
// run time (left to run time then). The variants of a check run FoldConstant on the same
// program and fold the same calls, so a process compiles each distinct call once: the memo's
// key is everything that compile depends on, the call program's IR text (exact: doubles print
// in their shortest round-trip form), the target and the enabled faults.
std::optional<std::vector<Tensor>> values_at_o0(const Program& one, const CompileContext& compile) {
  static std::mutex mutex;
  static std::map<std::string, std::optional<std::vector<Tensor>>> memo;
  static size_t memo_bytes = 0;
  const std::string key =
      fmt::format("{}\n{}\n{}", compile.target->name, fmt::join(compile.faults.names(), ","), print(one));
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (auto it = memo.find(key); it != memo.end()) return it->second;
  }
  std::optional<std::vector<Tensor>> values;
  try {
    RunOptions options;
    options.context.target = compile.target;
    options.context.faults = compile.faults;
    values = pipeline::compile(one, find_pipeline("O0"), options).run({});
  } catch (const UserError&) {
    values = std::nullopt;
  }
  size_t bytes = key.size();
  if (values) {
    for (const Tensor& t : *values) bytes += t.nbytes();
  }
  const std::lock_guard<std::mutex> lock(mutex);
  // A long-lived process (the test suites, a reduction) stays bounded: a check needs only its
  // own program's folds.
  if (memo_bytes + bytes > (size_t{32} << 20)) {
    memo.clear();
    memo_bytes = 0;
  }
  if (memo.emplace(key, values).second) memo_bytes += bytes;
  return values;
}

}  // namespace difftest::pipeline
