// Compile cost at O0 (LegalizeOps + LLVM codegen + JIT) for every corpus program: the price
// the fuzzer pays per program. Prints a markdown table with the median over --repeats runs,
// per program and per kernel. A measurement, never an assertion.
//   build/bench/compile_bench [--repeats N] [--corpus DIR] [--opt O0]
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "compiler/ir/parser.h"
#include "compiler/ir/verifier.h"
#include "compiler/pipeline/compile.h"

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : (v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2);
}

}  // namespace

int main(int argc, char** argv) {
  int repeats = 5;
  std::string corpus = std::string(DIFFTEST_SOURCE_DIR) + "/corpus", opt = "O0";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--repeats")) repeats = std::max(1, std::atoi(argv[i + 1]));
    if (!std::strcmp(argv[i], "--corpus")) corpus = argv[i + 1];
    if (!std::strcmp(argv[i], "--opt")) opt = argv[i + 1];
  }
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(corpus)) {
    if (e.path().extension() == ".ir") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  const auto& pipe = difftest::pipeline::find_pipeline(opt);
  fmt::print("| program | kernels | compile ms (median of {}) | ms per kernel |\n|---|---|---|---|\n", repeats);
  std::vector<double> per_program, per_kernel;
  for (const auto& f : files) {
    try {
      const difftest::Program p = difftest::parse_program_file(f.string());
      difftest::verify(p);
      std::vector<double> times;
      size_t kernels = 0;
      for (int r = 0; r < repeats; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        const auto exe = difftest::pipeline::compile(p, pipe);
        times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        kernels = exe.module().funcs.size();
      }
      const double m = median(times);
      per_program.push_back(m);
      per_kernel.push_back(m / static_cast<double>(std::max<size_t>(kernels, 1)));
      fmt::print("| {} | {} | {:.2f} | {:.3f} |\n", f.stem().string(), kernels, m, per_kernel.back());
    } catch (const std::exception& e) {
      fmt::print("| {} | - | failed: {} | - |\n", f.stem().string(), e.what());
    }
  }
  fmt::print("\nmedian over {} programs at {}: {:.2f} ms per program, {:.3f} ms per kernel\n", per_program.size(), opt,
             median(per_program), median(per_kernel));
  return 0;
}
