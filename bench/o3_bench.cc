// What the O3 schedule rules buy: f32 matmul GFLOP/s next to single-threaded OpenBLAS in the
// same run, and a q4f16_1 dequantize + linear GEMV (decode, batch 1) in GB/s of weight bytes
// next to memcpy of the same bytes. Prints a markdown table; a measurement, never an assertion.
//   build/bench/o3_bench [--repeats N] [--max-size S]
//
// Our kernels are compiled with the O3 pipeline (parallel loops on DIFFTEST_THREADS threads;
// run with DIFFTEST_THREADS=1 for a single-threaded comparison) and called directly on buffers
// allocated once (as cblas_sgemm is): the executor allocates and copies every tensor on each
// run, and page faults are expensive enough on some hosts to hide the kernels. The end-to-end
// executor time is printed too. Last, kernels and intermediate bytes of corpus models per level.
#include <cblas.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "compiler/codegen/jit.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/verifier.h"
#include "compiler/pipeline/compile.h"
#include "compiler/runtime/thread_pool.h"
#include "reference/inputs.h"
#include "reference/summary.h"

extern "C" void openblas_set_num_threads(int);  // in libopenblas; not every cblas.h declares it

namespace {

using namespace difftest;

// The O3 pipeline, and O3 without the two passes that fuse a dequantize into its matmul.
const std::vector<std::string>& o3_passes() { return pipeline::find_pipeline("O3").passes; }
std::vector<std::string> o3_unfused_passes() {
  std::vector<std::string> out;
  for (const auto& p : o3_passes()) {
    if (p != "FuseDequantizeMatmul" && p != "FuseOps") out.push_back(p);
  }
  return out;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Median seconds of `f` over `repeats` runs after one warm-up run.
double time_of(int repeats, const std::function<void()>& f) {
  f();
  std::vector<double> t;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return median(t);
}

// A compiled program with every tensor allocated once, its kernels called in module order.
class Bound {
 public:
  Bound(const Program& p, const std::map<std::string, Tensor>& inputs, const std::vector<std::string>& passes)
      : Bound(p, inputs, pipeline::run_passes(p, passes).module) {}
  // `module` stands for p (its calls name p's values).
  Bound(const Program& p, const std::map<std::string, Tensor>& inputs, loop::Module module)
      : module_(std::move(module)), jit_(module_, codegen::JitOptions{3, true}) {
    for (const auto& b : p.bindings()) {
      for (const auto& v : b.results()) {
        std::vector<int64_t> shape;
        for (const auto& d : v.type().shape) shape.push_back(sym::eval(d, {}));
        tensors_[v.name()] = b.kind() == BindingKind::Param ? inputs.at(v.name()) : Tensor(v.type().dtype, shape);
      }
    }
    for (const auto& c : module_.calls) {
      std::vector<void*> bufs;
      for (const auto& name : c.buffers) bufs.push_back(tensors_.at(name).data());
      calls_.push_back({jit_.kernel(c.func), std::move(bufs)});
    }
  }
  void run() {
    const int64_t no_dims = 0;
    for (auto& [kernel, bufs] : calls_) kernel(bufs.data(), &no_dims);
  }
  const Tensor& tensor(const std::string& name) const { return tensors_.at(name); }

 private:
  loop::Module module_;
  codegen::JitModule jit_;
  std::map<std::string, Tensor> tensors_;
  std::vector<std::pair<codegen::KernelFn, std::vector<void*>>> calls_;
};

double end_to_end(const Program& p, const std::map<std::string, Tensor>& inputs, int repeats) {
  const auto exe = pipeline::compile(p, pipeline::find_pipeline("O3"));
  return time_of(repeats, [&] { exe.run(inputs); });
}

Program parse(const std::string& text) {
  Program p = parse_program(text, "<o3_bench>");
  verify(p);
  return p;
}

void matmul_rows(int repeats, int64_t max_size) {
  fmt::print("| f32 matmul | ours GFLOP/s | OpenBLAS 1-thread GFLOP/s | ours / OpenBLAS | ours through the executor GFLOP/s |\n"
             "|---|---|---|---|---|\n");
  openblas_set_num_threads(1);
  for (const int64_t s : {256, 512, 1024}) {
    if (s > max_size) continue;
    const Program p = parse(fmt::format(R"(program @mm() {{
  %a: f32[{0}, {0}] = param
  %b: f32[{0}, {0}] = param
  %y: f32[{0}, {0}] = matmul(%a, %b)
  return %y
}})",
                                        s));
    const auto inputs = reference::generate_inputs(p, {}, 1);
    Bound ours_bound(p, inputs, o3_passes());
    const double ours = time_of(repeats, [&] { ours_bound.run(); });
    const double e2e = end_to_end(p, inputs, repeats);
    const auto* a = reinterpret_cast<const float*>(inputs.at("a").data());
    const auto* b = reinterpret_cast<const float*>(inputs.at("b").data());
    std::vector<float> c(static_cast<size_t>(s * s));
    const int n = static_cast<int>(s);
    const double blas = time_of(repeats, [&] {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0F, a, n, b, n, 0.0F, c.data(), n);
    });
    const double flops = 2.0 * static_cast<double>(s * s * s);
    fmt::print("| {0}x{0}x{0} | {1:.1f} | {2:.1f} | {3:.2f} | {4:.1f} |\n", s, flops / ours / 1e9, flops / blas / 1e9,
               blas / ours, flops / e2e / 1e9);
  }
}

void gemv_row(int repeats) {
  const int64_t n = 4096, k = 4096;
  const Program p = parse(fmt::format(R"(program @gemv() {{
  %x: f16[1, {1}] = param
  %wq: u32[{0}, {2}] = param
  %sq: f16[{0}, {3}] = param
  %w: f16[{0}, {1}] = dequantize(%wq, %sq, format="q4f16_1", group=32)
  %y: f16[1, {0}] = linear(%x, %w, acc=f32)
  return %y
}})",
                                      n, k, k / 8, k / 32));
  const auto inputs = reference::generate_inputs(p, {}, 1);
  const size_t bytes = inputs.at("wq").nbytes() + inputs.at("sq").nbytes();
  Bound ours_bound(p, inputs, o3_passes());
  const double ours = time_of(repeats, [&] { ours_bound.run(); });
  const double e2e = end_to_end(p, inputs, repeats);
  Bound unfused_bound(p, inputs, o3_unfused_passes());
  const double unfused = time_of(repeats, [&] { unfused_bound.run(); });
  std::vector<uint8_t> src(bytes, 1), dst(bytes);
  const double copy = time_of(repeats, [&] {
    std::memcpy(dst.data(), src.data(), bytes);
    asm volatile("" : : "r"(dst.data()) : "memory");  // keep the copy
  });
  fmt::print("\n| q4f16_1 GEMV {}x{} batch 1, {:.1f} MB of packed weights + scales | GB/s of weights | memcpy GB/s "
             "| ratio to memcpy | through the executor GB/s |\n|---|---|---|---|---|\n",
             n, k, static_cast<double>(bytes) / 1e6);
  fmt::print("| O3 (FuseDequantizeMatmul + FuseLoops: one kernel reading packed weights) | {:.2f} | {:.2f} | {:.3f} | "
             "{:.2f} |\n",
             static_cast<double>(bytes) / ours / 1e9, static_cast<double>(bytes) / copy / 1e9, copy / ours,
             static_cast<double>(bytes) / e2e / 1e9);
  const bool same = std::memcmp(ours_bound.tensor("y").data(), unfused_bound.tensor("y").data(),
                                ours_bound.tensor("y").nbytes()) == 0;
  fmt::print("| O3 without the fusion passes (dequantize writes f16 weights; outputs {} the fused ones) | {:.2f} | "
             "{:.2f} | {:.3f} | - |\n",
             same ? "bit-identical to" : "DIFFER from", static_cast<double>(bytes) / unfused / 1e9,
             static_cast<double>(bytes) / copy / 1e9, copy / unfused);
}

// Kernels and bytes of intermediates (values the executor allocates that are neither inputs,
// constants nor results; one buffer per PlanMemory slot) of a corpus model file per level.
void fusion_rows(const std::string& file, const sym::Env& env) {
  const Program p = parse_program_file(std::string(DIFFTEST_SOURCE_DIR) + "/corpus/" + file);
  verify(p);
  fmt::print("\n| {} ({}) | kernels | intermediate bytes |\n|---|---|---|\n", file, reference::binding_str(env));
  for (const std::string level : {"O0", "O1", "O2", "O3"}) {
    const pipeline::Lowered l = pipeline::run_passes(p, pipeline::find_pipeline(level).passes);
    std::map<std::string, int64_t> bytes_of;  // of the program the module was lowered from
    std::set<std::string> external;
    for (const auto& b : l.graph.bindings()) {
      for (const auto& v : b.results()) {
        int64_t n = dtype_bytes(v.type().dtype);
        for (const auto& d : v.type().shape) n *= sym::eval(d, env);
        bytes_of[v.name()] = n;
        if (!b.is_call()) external.insert(v.name());
      }
    }
    for (const auto& o : l.graph.outputs()) external.insert(o.name());
    std::set<std::string> referenced, planned;
    for (const auto& c : l.module.calls) referenced.insert(c.buffers.begin(), c.buffers.end());
    int64_t total = 0;
    for (const auto& slot : l.module.storage) {
      int64_t biggest = 0;
      for (const auto& v : slot) biggest = std::max(biggest, bytes_of.at(v));
      total += biggest;
      planned.insert(slot.begin(), slot.end());
    }
    for (const auto& v : referenced) {
      if (!external.count(v) && !planned.count(v)) total += bytes_of.at(v);
    }
    fmt::print("| {} | {} | {} |\n", level, l.module.calls.size(), total);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int repeats = 5;
  int64_t max_size = 1024;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--repeats")) repeats = std::max(1, std::atoi(argv[i + 1]));
    if (!std::strcmp(argv[i], "--max-size")) max_size = std::atoll(argv[i + 1]);
  }
  fmt::print("O3: {}; LLVM -O3, FMA contraction; parallel loops on {} thread(s) (DIFFTEST_THREADS), host has {} "
             "hardware threads\n\n",
             fmt::join(o3_passes(), ", "), runtime::parallel_threads(), std::thread::hardware_concurrency());
  matmul_rows(repeats, max_size);
  gemv_row(repeats);
  fusion_rows("gemma3_local_attention.ir", {{"n", 128}});
  fusion_rows("geglu_mlp.ir", {{"n", 32}});
  return 0;
}
