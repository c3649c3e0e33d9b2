// Front-end costs the fuzzer pays per program: generate, print, parse, verify, simplify.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/sym/sym_parse.h"
#include "compiler/sym/sym_simplify.h"
#include "compiler/ir/verifier.h"
#include "fuzz/generator.h"

namespace {

std::vector<std::string> corpus_texts() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(DIFFTEST_SOURCE_DIR "/corpus")) {
    if (e.path().extension() == ".ir") out.push_back(difftest::read_text_file(e.path().string()));
  }
  return out;
}

void BM_ParseVerifyCorpus(benchmark::State& state) {
  const auto texts = corpus_texts();
  for (auto _ : state) {
    for (const auto& t : texts) {
      difftest::Program p = difftest::parse_program(t);
      difftest::verify(p);
      benchmark::DoNotOptimize(p);
    }
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(texts.size()));
}
BENCHMARK(BM_ParseVerifyCorpus);

void BM_GenerateVerifyPrint(benchmark::State& state) {
  uint64_t seed = 0;
  for (auto _ : state) {
    difftest::Program p = difftest::generate_program(seed++);
    difftest::verify(p);
    benchmark::DoNotOptimize(difftest::print(p));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_GenerateVerifyPrint);

void BM_SimplifyConvLength(benchmark::State& state) {
  const auto e = difftest::sym::parse("(n + 2*2 - 2*(3 - 1) - 1) // 3 + 1 + (n // 8)*8 + n % 8");
  const difftest::sym::Ranges r = {{"n", {1, 4096}}};
  for (auto _ : state) benchmark::DoNotOptimize(difftest::sym::simplify(e, r));
}
BENCHMARK(BM_SimplifyConvLength);

}  // namespace

BENCHMARK_MAIN();
