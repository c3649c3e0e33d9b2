#include "compiler/codegen/jit.h"

#include <fmt/format.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/Host.h>
#include <llvm/Support/TargetSelect.h>

#include <atomic>
#include <mutex>

#include "compiler/codegen/codegen.h"
#include "compiler/ir/diagnostics.h"

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
  llvm::PassBuilder pb(tm);
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
  auto jtmb = unwrap(llvm::orc::JITTargetMachineBuilder::detectHost(), "host detection");
  const int level = options.llvm_opt_level;
  jtmb.setCodeGenOptLevel(level == 0 ? llvm::CodeGenOpt::None
                          : level == 1 ? llvm::CodeGenOpt::Less
                          : level == 2 ? llvm::CodeGenOpt::Default
                                       : llvm::CodeGenOpt::Aggressive);
  auto tm = unwrap(jtmb.createTargetMachine(), "target machine");
  impl_->jit = unwrap(llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(jtmb).create(), "LLJIT");
  auto& dylib = impl_->jit->getMainJITDylib();
  dylib.addGenerator(unwrap(llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
                                impl_->jit->getDataLayout().getGlobalPrefix()),
                            "process symbols"));
  auto ctx = std::make_unique<llvm::LLVMContext>();
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
