#include "compiler/passes/legalize_ops.h"

#include <fmt/format.h>

#include <cctype>
#include <set>

#include "compiler/support/diagnostics.h"
#include "compiler/loop/verifier.h"
#include "compiler/ops/op.h"
#include "compiler/passes/legalize/lowering.h"

namespace difftest::passes {

std::string buffer_name(const Value& v) {
  return std::isdigit(static_cast<unsigned char>(v.name()[0])) ? "v" + v.name() : v.name();
}

namespace {

loop::Buffer value_buffer(const Value& v, std::set<std::string>& taken) {
  std::string name = buffer_name(v);
  for (int k = 1; !taken.insert(name).second; ++k) name = fmt::format("{}_{}", buffer_name(v), k);
  return loop::Buffer::make(name, v.type().dtype, to_loop(v.type().shape));
}

}  // namespace

loop::Module legalize_ops(const Program& p, const CompileContext& compile) {
  loop::Module m;
  std::vector<loop::Expr> dims;
  std::vector<std::string> dim_names;
  for (const auto& d : p.dims()) {
    dims.push_back(loop::Expr::var(d.name));
    dim_names.push_back(d.name);
  }
  int k = 0;
  for (const auto& b : p.bindings()) {
    if (!b.is_call()) continue;
    const Lowering* lower = find_lowering(b.op().name);
    if (!lower) throw UserError(ErrorKind::UnknownOp, fmt::format("LegalizeOps: no lowering for op '{}'", b.op().name));
    std::set<std::string> taken;
    LowerContext c{b, compile, {}, {}};
    loop::Call call{fmt::format("{}_{}", b.op().name, k++), {}, dim_names, b.group()};
    for (const auto& a : b.args()) {
      c.in.push_back(value_buffer(a, taken));
      call.buffers.push_back(a.name());
    }
    for (const auto& r : b.results()) {
      c.out.push_back(value_buffer(r, taken));
      call.buffers.push_back(r.name());
    }
    loop::PrimFunc f{call.func, c.in, dims, (*lower)(c)};
    f.params.insert(f.params.end(), c.out.begin(), c.out.end());
    loop::verify(f);
    m.funcs.push_back(std::move(f));
    m.calls.push_back(std::move(call));
  }
  for (const auto& o : p.outputs()) m.outputs.push_back(o.name());
  return m;
}

}  // namespace difftest::passes
