// LLVM IR steps tested on LLVM IR text: parse a module, apply the step, verify and print it.
#pragma once

#include <gtest/gtest.h>
#include <llvm/AsmParser/Parser.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>

#include <memory>
#include <string>

namespace difftest::testing {

struct RewrittenIr {
  int count;       // what the step returned (-1: the text did not parse)
  std::string ir;  // the module printed after the step, from its first definition
};

// `step(module)` returns a count; a module the step leaves invalid fails the calling test.
template <typename Step>
RewrittenIr rewrite_llvm_text(const std::string& text, Step step) {
  llvm::LLVMContext ctx;
  llvm::SMDiagnostic error;
  std::unique_ptr<llvm::Module> m = llvm::parseAssemblyString(text, error, ctx);
  std::string printed;
  llvm::raw_string_ostream os(printed);
  if (!m) {
    error.print("llvm_ir_text", os);
    ADD_FAILURE() << os.str();
    return {-1, ""};
  }
  const int count = step(*m);
  EXPECT_FALSE(llvm::verifyModule(*m, &os)) << os.str();
  m->print(os, nullptr);
  os.flush();
  return {count, printed.substr(printed.find("define"))};
}

}  // namespace difftest::testing
