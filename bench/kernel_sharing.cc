#include "bench/kernel_sharing.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "backends/builtin/builtin_compiler.h"
#include "compiler/codegen/codegen.h"
#include "compiler/support/diagnostics.h"
#include "compiler/ir/fix_dims.h"
#include "compiler/pipeline/pass_manager.h"
#include "compiler/target/target.h"

namespace difftest::oracle {

namespace {

constexpr const char* kPrefix = "k_";

// `text` with every "!<digits>" and "#<digits>" replaced by "!N" and "#N".
std::string mask_numbered_refs(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if ((c == '!' || c == '#') && i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1]))) {
      out += c;
      out += 'N';
      while (i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1]))) ++i;
      continue;
    }
    out += c;
  }
  return out;
}

struct EmittedKernel {
  std::string key;
  int64_t lines = 0;
};

// The module's kernels: each `define` of @k_NAME grouped with its @k_NAME.parallel.* bodies,
// NAME masked.
std::vector<EmittedKernel> kernels_of(const std::string& module_text, const std::string& setting) {
  std::map<std::string, EmittedKernel> by_name;
  std::vector<std::string> order;
  size_t at = 0;
  while ((at = module_text.find("\ndefine ", at)) != std::string::npos) {
    const size_t end = module_text.find("\n}\n", at);
    if (end == std::string::npos) break;
    std::string body = module_text.substr(at + 1, end + 2 - at - 1);
    at = end;
    const size_t name_at = body.find(std::string("@") + kPrefix);
    if (name_at == std::string::npos) continue;
    size_t name_end = name_at + 1;
    while (name_end < body.size() && body[name_end] != '(') ++name_end;
    std::string name = body.substr(name_at + 1, name_end - name_at - 1);
    const size_t parallel = name.find(".parallel");
    const std::string kernel = parallel == std::string::npos ? name : name.substr(0, parallel);
    // Every mention of the kernel's name, its own and its bodies', becomes @K.
    for (size_t p = 0; (p = body.find("@" + kernel, p)) != std::string::npos;) body.replace(p, kernel.size() + 1, "@K");
    if (!by_name.count(kernel)) order.push_back(kernel);
    EmittedKernel& k = by_name[kernel];
    k.key += mask_numbered_refs(body);
    k.lines += static_cast<int64_t>(std::count(body.begin(), body.end(), '\n'));
  }
  std::vector<EmittedKernel> out;
  for (const auto& name : order) {
    EmittedKernel k = std::move(by_name[name]);
    k.key = setting + "\n" + k.key;
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace

KernelSharing measure_kernel_sharing(uint64_t first, uint64_t last, const CheckOptions& check,
                                     const GeneratorOptions& generator) {
  const CompilerUnderTest& compiler = backends::builtin_compiler();
  KernelSharing s;
  std::set<std::string> campaign;
  for (uint64_t seed = first; seed <= last; ++seed) {
    const Program p = generate_program(seed, generator);
    std::vector<std::pair<Variant, Program>> compiles;
    for (const Variant& v : compiler.variants(p, check)) compiles.emplace_back(v, p);
    if (check.specialize && !check.levels.empty() && !p.dims().empty()) {
      const std::vector<sym::Env> bindings = default_bindings(p, 0);
      const sym::Env& middle = bindings[bindings.size() > 1 ? 1 : 0];
      if (auto v = compiler.specialized(compiler.named(check.levels.back(), "--opt"))) {
        compiles.emplace_back(*v, fix_dims(p, middle));
      }
    }
    ++s.programs;
    std::set<std::string> program;
    for (const auto& [variant, compiled] : compiles) {
      const pipeline::Pipeline pipe = backends::builtin_pipeline(variant);
      std::string emitted;
      try {
        emitted = codegen::emit_llvm_text(pipeline::run_passes(compiled, pipe.passes).module, kPrefix);
      } catch (const UserError&) {
        continue;  // a compile_reject: nothing to cache
      }
      const std::string setting = fmt::format("llvm {} fma {} target {}", pipe.llvm_opt_level, pipe.fma_contraction,
                                              target::default_target().name);
      for (const EmittedKernel& k : kernels_of(emitted, setting)) {
        ++s.kernels;
        s.lines += k.lines;
        if (!program.insert(k.key).second) {
          ++s.hits_in_program;
          s.hit_lines_in_program += k.lines;
        }
        if (!campaign.insert(k.key).second) {
          ++s.hits_in_campaign;
          s.hit_lines_in_campaign += k.lines;
        }
      }
    }
  }
  return s;
}

}  // namespace difftest::oracle
