#include "compiler/codegen/jit.h"

#include <fmt/format.h>
#include <llvm/ExecutionEngine/Orc/CompileUtils.h>
#include <llvm/ExecutionEngine/Orc/Core.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/Host.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "compiler/codegen/codegen.h"
#include "compiler/codegen/contract_multiply_adds.h"
#include "compiler/codegen/llvm_passes.h"
#include "compiler/codegen/scalar_halves_as_bits.h"
#include "compiler/support/diagnostics.h"

namespace difftest::codegen {

namespace {

void serial_parallel_for(void (*body)(void*, int64_t, int64_t), void* closure, int64_t begin, int64_t end) {
  if (begin < end) body(closure, begin, end);
}

template <typename T>
T unwrap(llvm::Expected<T> v, const char* what) {
  if (!v) DT_CHECK(false, fmt::format("LLVM {}: {}", what, llvm::toString(v.takeError())));
  return std::move(*v);
}

void check(llvm::Error e, const char* what) {
  if (e) DT_CHECK(false, fmt::format("LLVM {}: {}", what, llvm::toString(std::move(e))));
}

// The level of LLVM's code generator (0, None: FastISel selects the instructions).
int code_generator_level(const JitOptions& options) {
  return options.machine_code == MachineCode::Fast ? 0 : options.llvm_opt_level;
}

// The target's CPU model, not the host's: the machine code depends on the module's target only,
// so a variant replays the same on every host that can run it.
llvm::orc::JITTargetMachineBuilder machine_builder(const target::Target& target, const JitOptions& options) {
  llvm::orc::JITTargetMachineBuilder jtmb{llvm::Triple(llvm::sys::getProcessTriple())};
  jtmb.setCPU(target.llvm_cpu);
  const int level = code_generator_level(options);
  jtmb.setCodeGenOptLevel(level == 0   ? llvm::CodeGenOpt::None
                          : level == 1 ? llvm::CodeGenOpt::Less
                          : level == 2 ? llvm::CodeGenOpt::Default
                                       : llvm::CodeGenOpt::Aggressive);
  // Standard: the code generator contracts no a*b+c of its own. A variant that allows contraction
  // gets its FMAs from contract_multiply_adds, in the IR, so FastISel (which never contracts) and
  // SelectionDAG compile the same products into FMAs; the tolerance allows either rounding.
  jtmb.getOptions().AllowFPOpFusion = llvm::FPOpFusion::Standard;
  // FastISel selects instructions faster than SelectionDAG; only at the None level (LLVM would use
  // it at any level once enabled).
  jtmb.getOptions().EnableFastISel = level == 0;
  return jtmb;
}

// Loop hints LLVM cannot honour ("loop not vectorized") are warnings and remarks printed to
// stderr by default; they are expected (the hints are hints), so only errors get through.
void print_only_errors(llvm::LLVMContext& ctx) {
  ctx.setDiagnosticHandlerCallBack(
      [](const llvm::DiagnosticInfo& d, void*) {
        if (d.getSeverity() != llvm::DS_Error) return;
        llvm::DiagnosticPrinterRawOStream printer(llvm::errs());
        d.print(printer);
        llvm::errs() << "\n";
      },
      nullptr);
}

// `m` as LLVM IR for `tm`'s machine, through the IR passes of `options`' level.
std::unique_ptr<llvm::Module> optimized_module(const loop::Module& m, const std::string& prefix, llvm::LLVMContext& ctx,
                                               llvm::TargetMachine& tm, const JitOptions& options) {
  print_only_errors(ctx);
  auto mod = emit_module(m, prefix, ctx, options.faults);
  mod->setDataLayout(tm.createDataLayout());
  mod->setTargetTriple(tm.getTargetTriple().str());
  run_llvm_passes(*mod, &tm, options.llvm_opt_level);
  // Without FMA instructions an llvm.fma is a libm call: LLVM's own contraction would not fuse there.
  if (options.fma_contraction && target::has_feature(*m.target, "fma")) contract_multiply_adds(*mod, options.faults);
  // FastISel selects F16C's conversions but nothing of type half (without F16C they are libcalls).
  if (code_generator_level(options) == 0 && target::has_feature(*m.target, "f16c")) scalar_halves_as_bits(*mod);
  return mod;
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
  const target::Target& target = *m.target;
  if (const std::string missing = target::missing_host_features(target); !missing.empty()) {
    throw UserError(ErrorKind::Usage,
                    fmt::format("the module is compiled for target {}, which this host cannot run: it "
                                "lacks {} (it runs {})",
                                target.name, missing, target::host_target().name));
  }
  llvm::orc::JITTargetMachineBuilder jtmb = machine_builder(target, options);
  // One target machine serves the IR passes, the data layout and the code generator: left to
  // itself LLJIT would build two more, each with its own subtarget, for every compile.
  std::unique_ptr<llvm::TargetMachine> owned_tm = unwrap(jtmb.createTargetMachine(), "target machine");
  llvm::TargetMachine* tm = owned_tm.get();
  auto compiler = [&owned_tm](llvm::orc::JITTargetMachineBuilder)
      -> llvm::Expected<std::unique_ptr<llvm::orc::IRCompileLayer::IRCompiler>> {
    return std::make_unique<llvm::orc::TMOwningSimpleCompiler>(std::move(owned_tm));
  };
  impl_->jit = unwrap(llvm::orc::LLJITBuilder()
                          .setJITTargetMachineBuilder(jtmb)
                          .setDataLayout(tm->createDataLayout())
                          .setCompileFunctionCreator(compiler)
                          .create(),
                      "LLJIT");
  auto& dylib = impl_->jit->getMainJITDylib();
  dylib.addGenerator(unwrap(llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
                                impl_->jit->getDataLayout().getGlobalPrefix()),
                            "process symbols"));
  // The runtime's entry points, defined into this dylib so the JIT never depends on the host
  // binary exporting them (-rdynamic).
  llvm::orc::SymbolMap runtime;
  runtime[impl_->jit->mangleAndIntern("difftest_parallel_for")] = llvm::JITEvaluatedSymbol(
      llvm::pointerToJITTargetAddress(options.parallel_for != nullptr ? options.parallel_for : &serial_parallel_for),
      llvm::JITSymbolFlags::Exported);
  check(dylib.define(llvm::orc::absoluteSymbols(std::move(runtime))), "defining runtime symbols");
  auto ctx = std::make_unique<llvm::LLVMContext>();
  auto mod = optimized_module(m, impl_->prefix, *ctx, *tm, options);
  check(impl_->jit->addIRModule(llvm::orc::ThreadSafeModule(std::move(mod), std::move(ctx))), "adding the module");
}

JitModule::~JitModule() = default;

KernelFn JitModule::kernel(const std::string& func) const {
  auto sym = unwrap(impl_->jit->lookup(symbol_name(impl_->prefix, func)), "symbol lookup");
  return reinterpret_cast<KernelFn>(sym.getAddress());
}

std::string optimized_llvm_text(const loop::Module& m, const JitOptions& options, const std::string& prefix) {
  initialize_llvm();
  auto tm = unwrap(machine_builder(*m.target, options).createTargetMachine(), "target machine");
  llvm::LLVMContext ctx;
  auto mod = optimized_module(m, prefix, ctx, *tm, options);
  std::string text;
  llvm::raw_string_ostream os(text);
  mod->print(os, nullptr);
  return os.str();
}

}  // namespace difftest::codegen
