#include "compiler/codegen/jit.h"

#include <fmt/format.h>
#include <llvm/ExecutionEngine/Orc/Core.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/Host.h>
#include <llvm/Support/TargetSelect.h>

#include <atomic>
#include <mutex>

#include "compiler/codegen/codegen.h"
#include "compiler/ir/diagnostics.h"
#include "compiler/runtime/thread_pool.h"

namespace difftest::codegen {

namespace {

template <typename T>
T unwrap(llvm::Expected<T> v, const char* what) {
  if (!v) DT_CHECK(false, fmt::format("LLVM {}: {}", what, llvm::toString(v.takeError())));
  return std::move(*v);
}

void check(llvm::Error e, const char* what) {
  if (e) DT_CHECK(false, fmt::format("LLVM {}: {}", what, llvm::toString(std::move(e))));
}

void optimize(llvm::Module& m, llvm::TargetMachine* tm, int level) {
  if (level == 0) return;
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  // LLVM 14's default tuning leaves the SLP vectorizer off; clang turns it on at -O2 and above,
  // and the schedule rules' register tiles depend on it.
  llvm::PipelineTuningOptions tuning;
  // The loop vectorizer takes only the loops the schedule marks `vectorized` (those codegen did
  // not already write as vector operations): left to vectorize every loop it liked, LLVM 14 made
  // an interleaved store of widened booleans that its own AVX-512 instruction selection cannot
  // lower ("Cannot select: v32i8 = X86ISD::VBROADCAST" of a v8i1; seed 4000492's O3-specialized
  // compile), and vectorizing a loop without reassociation changes no result.
  tuning.LoopVectorization = false;
  tuning.SLPVectorization = level > 1;
  // Unrolling is the schedule's decision (the Unroll pass and ScheduleMatmul's register tile,
  // marked llvm.loop.unroll.full, which LLVM still honours): LLVM's own partial and runtime
  // unrolling of every remaining loop doubled the compile time of a generated program
  // (bench/campaign_bench, docs/compiler.md) for kernels that mostly run a few microseconds.
  tuning.LoopUnrolling = false;
  llvm::PassBuilder pb(tm, tuning);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  const llvm::OptimizationLevel o = level == 1 ? llvm::OptimizationLevel::O1
                                    : level == 2 ? llvm::OptimizationLevel::O2
                                                 : llvm::OptimizationLevel::O3;
  pb.buildPerModuleDefaultPipeline(o).run(m, mam);
}

}  // namespace

void initialize_llvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::StringMap<bool> features;
    // f16 rounding after every operation relies on the F16C conversions; without them LLVM
    // would call a half-precision libcall whose ABI differs between GCC 12 and LLVM 14.
    DT_CHECK(llvm::sys::getHostCPUFeatures(features) && features.lookup("f16c"),
             "the JIT needs a host CPU with F16C (x86-64 since 2012)");
  });
}

struct JitModule::Impl {
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::string prefix;
};

JitModule::JitModule(const loop::Module& m, const JitOptions& options) : impl_(std::make_unique<Impl>()) {
  initialize_llvm();
  static std::atomic<uint64_t> counter{0};
  impl_->prefix = fmt::format("difftest{}_", counter++);
  // The target's CPU model, not the host's: the machine code depends on the module's target
  // only, so a variant replays the same on every host that can run it.
  const target::Target& target = *m.target;
  if (const std::string missing = target::missing_host_features(target); !missing.empty()) {
    throw UserError(ErrorKind::Usage,
                    fmt::format("the module is compiled for target {}, which this host cannot run: it "
                                "lacks {} (it runs {})",
                                target.name, missing, target::host_target().name));
  }
  llvm::orc::JITTargetMachineBuilder jtmb{llvm::Triple(llvm::sys::getProcessTriple())};
  jtmb.setCPU(target.llvm_cpu);
  const int level = options.llvm_opt_level;
  jtmb.setCodeGenOptLevel(level == 0 ? llvm::CodeGenOpt::None
                          : level == 1 ? llvm::CodeGenOpt::Less
                          : level == 2 ? llvm::CodeGenOpt::Default
                                       : llvm::CodeGenOpt::Aggressive);
  // Fast: the code generator may contract a*b+c into one FMA (one rounding instead of two);
  // the tolerance allows either.
  jtmb.getOptions().AllowFPOpFusion = options.fma_contraction ? llvm::FPOpFusion::Fast : llvm::FPOpFusion::Standard;
  auto tm = unwrap(jtmb.createTargetMachine(), "target machine");
  impl_->jit = unwrap(llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(jtmb).create(), "LLJIT");
  auto& dylib = impl_->jit->getMainJITDylib();
  dylib.addGenerator(unwrap(llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
                                impl_->jit->getDataLayout().getGlobalPrefix()),
                            "process symbols"));
  // The runtime's entry points, defined into this dylib so the JIT never depends on the host
  // binary exporting them (-rdynamic).
  llvm::orc::SymbolMap runtime;
  runtime[impl_->jit->mangleAndIntern("difftest_parallel_for")] = llvm::JITEvaluatedSymbol(
      llvm::pointerToJITTargetAddress(&difftest_parallel_for), llvm::JITSymbolFlags::Exported);
  check(dylib.define(llvm::orc::absoluteSymbols(std::move(runtime))), "defining runtime symbols");
  auto ctx = std::make_unique<llvm::LLVMContext>();
  // Loop hints LLVM cannot honour ("loop not vectorized") are warnings and remarks printed to
  // stderr by default; they are expected (the hints are hints), so only errors get through.
  ctx->setDiagnosticHandlerCallBack(
      [](const llvm::DiagnosticInfo& d, void*) {
        if (d.getSeverity() != llvm::DS_Error) return;
        llvm::DiagnosticPrinterRawOStream printer(llvm::errs());
        d.print(printer);
        llvm::errs() << "\n";
      },
      nullptr);
  auto mod = emit_module(m, impl_->prefix, *ctx);
  mod->setDataLayout(impl_->jit->getDataLayout());
  mod->setTargetTriple(impl_->jit->getTargetTriple().str());
  optimize(*mod, tm.get(), level);
  check(impl_->jit->addIRModule(llvm::orc::ThreadSafeModule(std::move(mod), std::move(ctx))), "adding the module");
}

JitModule::~JitModule() = default;

KernelFn JitModule::kernel(const std::string& func) const {
  auto sym = unwrap(impl_->jit->lookup(symbol_name(impl_->prefix, func)), "symbol lookup");
  return reinterpret_cast<KernelFn>(sym.getAddress());
}

}  // namespace difftest::codegen
