#include "compiler/loop/analysis.h"
#include "compiler/passes/fuse_loops.h"

#include <fmt/format.h>

#include <cctype>
#include <map>
#include <optional>
#include <set>

#include "compiler/faults/faults.h"
#include "compiler/support/diagnostics.h"
#include "compiler/loop/visitor.h"
#include "compiler/passes/fuse_loops_faults.h"

namespace difftest::passes {

// Test faults of this file (docs/faults.md): off unless switched on.

const faults::Fault kFusedDequantizeMatmulWrongScale({
    .name = "fused-dequantize-matmul-wrong-scale",
    .pass = "FuseLoops",
    .description = "FuseLoops, inlining a dequantize into the matmul/linear it is fused with, reads the scale of "
        "group max(k // group - 1, 0), so every group after the first uses its predecessor's scale: a fused "
        "dequantize-matmul kernel whose scale index is off by one group",
    .models = "a fused dequantize-matmul kernel whose scale index is off by one group",
});

const faults::Fault kFusedEpilogueTwice({
    .name = "fused-epilogue-twice",
    .pass = "FuseLoops",
    .description = "FuseLoops emits an elementwise epilogue that reads the kept result of a matmul or reduction in "
        "its fused kernel twice, the second copy reading what the first wrote (y = f(f(acc))): an epilogue fused "
        "into a reduction's final store and also left in place; invisible for idempotent epilogues such as relu",
    .models = "an epilogue fused into a reduction's final store and also left in place as a separate loop",
});

namespace {

using loop::Buffer;
using loop::Expr;
using loop::ExprKind;
using loop::Stmt;
using loop::StmtKind;

constexpr int64_t kMaxLocalBytes = 1024;

// Member buffers onto the fused function's: params onto the value buffers, allocations onto
// fresh names (two members may both have an `acc`).
class Rename : public loop::Mutator {
 public:
  Rename(std::map<std::string, Buffer> params, std::set<std::string>& taken) : params_(std::move(params)), taken_(taken) {}

 protected:
  Buffer mutate_buffer(const Buffer& b) override {
    if (auto it = params_.find(b.name()); it != params_.end()) return it->second;
    auto it = allocs_.find(b.get());
    if (it != allocs_.end()) return it->second;
    std::string name = b.name();
    for (int k = 1; !taken_.insert(name).second; ++k) name = fmt::format("{}_{}", b.name(), k);
    return allocs_.emplace(b.get(), Buffer::make(name, b.dtype(), b.shape())).first->second;
  }

 private:
  std::map<std::string, Buffer> params_;
  std::map<const loop::BufferNode*, Buffer> allocs_;
  std::set<std::string>& taken_;
};

bool same_expr(const Expr& a, const Expr& b);

// Matches `e` against `pattern`, whose variables in `vars` may stand for any subexpression.
bool unify(const Expr& pattern, const Expr& e, const std::set<std::string>& vars, std::map<std::string, Expr>& bound) {
  const loop::ExprNode& p = pattern.node();
  if (p.kind == ExprKind::Var && vars.count(p.name)) {
    auto [it, fresh] = bound.emplace(p.name, e);
    return fresh || same_expr(it->second, e);
  }
  const loop::ExprNode& n = e.node();
  if (p.kind != n.kind || p.dtype != n.dtype || p.operands.size() != n.operands.size()) return false;
  switch (p.kind) {
    case ExprKind::IntImm: if (p.int_value != n.int_value) return false; break;
    case ExprKind::FloatImm: if (p.float_value != n.float_value) return false; break;
    case ExprKind::Var:
    case ExprKind::Call: if (p.name != n.name) return false; break;
    case ExprKind::Load: if (p.buffer.name() != n.buffer.name()) return false; break;
    case ExprKind::Binary: if (p.bin != n.bin) return false; break;
    case ExprKind::Compare: if (p.cmp != n.cmp) return false; break;
    default: break;
  }
  for (size_t i = 0; i < p.operands.size(); ++i) {
    if (!unify(p.operands[i], n.operands[i], vars, bound)) return false;
  }
  return true;
}

bool same_expr(const Expr& a, const Expr& b) {
  std::map<std::string, Expr> none;
  return unify(a, b, {}, none);
}

class Substitute : public loop::Mutator {
 public:
  explicit Substitute(const std::map<std::string, Expr>& m) : m_(m) {}
  Expr mutate(const Expr& e) override {
    if (e.kind() == ExprKind::Var) {
      if (auto it = m_.find(e.node().name); it != m_.end()) return it->second;
    }
    return mutate_children(e);
  }
  using loop::Mutator::mutate;

 private:
  const std::map<std::string, Expr>& m_;
};

// An inlinable producer: out[index(vars)] = value(vars).
struct Producer {
  std::set<std::string> vars;
  Expr index, value;
};

// The producer form of a member body writing `out`, if it has it.
std::optional<Producer> producer_form(const Stmt& body, const std::string& out) {
  Producer p;
  Stmt s = body;
  while (s.kind() == StmtKind::For) {
    const loop::StmtNode& n = s.node();
    if (n.for_kind != loop::ForKind::Serial || !n.min.is_int_imm(0)) return std::nullopt;
    p.vars.insert(n.var.node().name);
    s = n.body[0];
  }
  if (s.kind() != StmtKind::Store || s.node().buffer.name() != out) return std::nullopt;
  if (loop::footprint(s).loaded.count(out)) return std::nullopt;
  p.index = s.node().index;
  p.value = s.node().value;
  return p;
}

// Replaces loads of inlined producers by their values; a load whose index does not match is
// kept, and its buffer is then needed after all.
class Inline : public loop::Mutator {
 public:
  Inline(const std::map<std::string, Producer>& producers, std::set<std::string>& needed)
      : producers_(producers), needed_(needed) {}
  Expr mutate(const Expr& e) override {
    const Expr x = mutate_children(e);
    if (x.kind() != ExprKind::Load) return x;
    auto it = producers_.find(x.node().buffer.name());
    if (it == producers_.end()) return x;
    std::map<std::string, Expr> bound;
    if (unify(it->second.index, x.node().operands[0], it->second.vars, bound) && bound.size() == it->second.vars.size()) {
      return Substitute(bound).mutate(it->second.value);
    }
    needed_.insert(x.node().buffer.name());
    return x;
  }
  using loop::Mutator::mutate;

 private:
  const std::map<std::string, Producer>& producers_;
  std::set<std::string>& needed_;
};

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

std::string value_buffer_name(const std::string& v) {
  return std::isdigit(static_cast<unsigned char>(v[0])) ? "v" + v : v;
}

// The written params of a call, by value name.
std::set<std::string> written(const loop::PrimFunc& f, const loop::Call& c) {
  const loop::Footprint a = loop::footprint(f.body);
  std::set<std::string> out;
  for (size_t i = 0; i < f.params.size(); ++i) {
    if (a.stored.count(f.params[i].name())) out.insert(c.buffers[i]);
  }
  return out;
}

class Fuser {
 public:
  Fuser(const loop::Module& m, size_t begin, size_t end, std::set<std::string>& func_names, const CompileContext& compile)
      : m_(m), begin_(begin), end_(end), func_names_(func_names), compile_(compile) {}

  std::pair<loop::PrimFunc, loop::Call> run() {
    classify();
    std::set<std::string> taken;
    std::map<std::string, Buffer> value_buffers;  // value name -> fused buffer
    for (size_t k = begin_; k < end_; ++k) {
      const loop::PrimFunc& f = *m_.find(m_.calls[k].func);
      for (size_t i = 0; i < f.params.size(); ++i) {
        const std::string& v = m_.calls[k].buffers[i];
        if (value_buffers.count(v)) continue;
        std::string name = value_buffer_name(v);
        for (int j = 1; !taken.insert(name).second; ++j) name = fmt::format("{}_{}", value_buffer_name(v), j);
        value_buffers.emplace(v, Buffer::make(name, f.params[i].dtype(), f.params[i].shape()));
      }
    }
    // Rename every member first (allocation names must avoid every value buffer's).
    std::vector<Stmt> bodies;
    for (size_t k = begin_; k < end_; ++k) {
      const loop::PrimFunc& f = *m_.find(m_.calls[k].func);
      std::map<std::string, Buffer> params;
      for (size_t i = 0; i < f.params.size(); ++i) params.emplace(f.params[i].name(), value_buffers.at(m_.calls[k].buffers[i]));
      bodies.push_back(Rename(std::move(params), taken).mutate(f.body));
    }
    std::map<std::string, Producer> producers;  // by fused buffer name
    std::map<std::string, size_t> producer_member;
    std::set<std::string> needed;
    std::vector<Stmt> kept(bodies.size());
    for (size_t k = 0; k < bodies.size(); ++k) {
      std::map<std::string, Producer> stale;
      const bool stale_scales = compile_.fault(kFusedDequantizeMatmulWrongScale) && is_dot(k);
      if (stale_scales) stale = with_stale_scales(producers, producer_member);
      const Stmt body = Inline(stale_scales ? stale : producers, needed).mutate(bodies[k]);
      const std::set<std::string>& outs = outs_[k];
      if (outs.size() == 1 && internal_.count(*outs.begin()) && readers_[*outs.begin()] <= 1) {
        const std::string name = value_buffers.at(*outs.begin()).name();
        if (auto p = producer_form(body, name)) {
          producers.emplace(name, std::move(*p));
          producer_member.emplace(name, k);
          bodies[k] = body;
          continue;
        }
      }
      kept[k] = compile_.fault(kFusedEpilogueTwice) ? with_epilogue_twice(body, k, producers, value_buffers) : body;
    }
    for (const auto& name : needed) kept[producer_member.at(name)] = bodies[producer_member.at(name)];
    std::vector<Stmt> seq;
    for (const auto& s : kept) {
      if (s.defined()) seq.push_back(s);
    }
    Stmt body = Stmt::seq(std::move(seq));
    // Allocations outermost-first in production order, so the text reads top-down.
    for (auto it = internal_order_.rbegin(); it != internal_order_.rend(); ++it) {
      const Buffer& b = value_buffers.at(*it);
      if (producers.count(b.name()) && !needed.count(b.name())) continue;
      const Expr n = b.numel();
      const bool small = n.kind() == ExprKind::IntImm && n.node().int_value * dtype_bytes(b.dtype()) <= kMaxLocalBytes;
      body = Stmt::allocate(b, small ? loop::Scope::Local : loop::Scope::Global, body);
    }
    const loop::Call& first = m_.calls[begin_];
    loop::PrimFunc f;
    std::string name = fmt::format("fused_{}", first.func);
    for (int j = 1; !func_names_.insert(name).second; ++j) name = fmt::format("fused_{}_{}", first.func, j);
    f.name = name;
    f.dims = m_.find(first.func)->dims;
    f.body = body;
    loop::Call call{name, {}, first.dims, first.group};
    for (const auto& v : inputs_) {
      f.params.push_back(value_buffers.at(v));
      call.buffers.push_back(v);
    }
    for (const auto& v : outputs_) {
      f.params.push_back(value_buffers.at(v));
      call.buffers.push_back(v);
    }
    return {std::move(f), std::move(call)};
  }

 private:
  // Member k (of the run) is a matmul or linear kernel (LegalizeOps names them <op>_<n>).
  bool is_dot(size_t k) const {
    const std::string& f = m_.calls[begin_ + k].func;
    return starts_with(f, "matmul_") || starts_with(f, "linear_");
  }

  // Fault fused-epilogue-twice: an elementwise member that reads the kept (not inlined) result
  // of an earlier member and writes one value of the same type runs a second time, reading what
  // it wrote in place of that result: the epilogue of a matmul or reduction applied twice.
  Stmt with_epilogue_twice(const Stmt& body, size_t k, const std::map<std::string, Producer>& producers,
                           const std::map<std::string, Buffer>& value_buffers) const {
    if (outs_[k].size() != 1 || !producer_form(body, value_buffers.at(*outs_[k].begin()).name())) return body;
    const Buffer& out = value_buffers.at(*outs_[k].begin());
    const std::set<std::string> loaded = loop::footprint(body).loaded;
    for (const auto& v : internal_order_) {
      const Buffer& t = value_buffers.at(v);
      if (!loaded.count(t.name()) || producers.count(t.name()) || t.dtype() != out.dtype()) continue;
      if (!same_expr(t.numel(), out.numel())) continue;
      return Stmt::seq({body, with_loads_redirected(body, t.name(), out)});
    }
    return body;
  }

  // The producers, those of dequantize members with stale scales (fault
  // fused-dequantize-matmul-wrong-scale).
  std::map<std::string, Producer> with_stale_scales(const std::map<std::string, Producer>& producers,
                                                    const std::map<std::string, size_t>& member) const {
    std::map<std::string, Producer> out = producers;
    for (auto& [name, p] : out) {
      if (starts_with(m_.calls[begin_ + member.at(name)].func, "dequantize_")) {
        p.value = with_stale_group_index(p.value, p.vars);
      }
    }
    return out;
  }

  // Inputs, outputs and internal values of the run, each in order of first appearance.
  void classify() {
    std::set<std::string> needed_outside(m_.outputs.begin(), m_.outputs.end());
    for (size_t k = 0; k < m_.calls.size(); ++k) {
      if (k >= begin_ && k < end_) continue;
      needed_outside.insert(m_.calls[k].buffers.begin(), m_.calls[k].buffers.end());
    }
    std::set<std::string> produced, seen_input;
    for (size_t k = begin_; k < end_; ++k) {
      const loop::Call& c = m_.calls[k];
      const std::set<std::string> outs = written(*m_.find(c.func), c);
      for (const auto& v : c.buffers) {
        if (outs.count(v)) continue;
        if (produced.count(v)) {
          ++readers_[v];
        } else if (seen_input.insert(v).second) {
          inputs_.push_back(v);
        }
      }
      for (const auto& v : c.buffers) {
        if (!outs.count(v) || !produced.insert(v).second) continue;
        if (needed_outside.count(v)) {
          outputs_.push_back(v);
        } else {
          internal_.insert(v);
          internal_order_.push_back(v);
        }
      }
      outs_.push_back(outs);
    }
  }

  const loop::Module& m_;
  size_t begin_, end_;
  std::set<std::string>& func_names_;
  const CompileContext& compile_;
  std::vector<std::string> inputs_, outputs_, internal_order_;
  std::set<std::string> internal_;
  std::map<std::string, int> readers_;  // members reading a produced value
  std::vector<std::set<std::string>> outs_;
};

}  // namespace

std::string fuse_loops_precondition(const loop::Module& m) {
  if (m.outputs.empty()) return "the module does not list the program's outputs (FuseLoops runs on LegalizeOps' output)";
  for (size_t k = 0; k < m.calls.size(); ++k) {
    const loop::Call& c = m.calls[k];
    if (c.group < 0) continue;
    const loop::PrimFunc* f = m.find(c.func);
    if (!f) return fmt::format("call of undefined function @{}", c.func);
    for (size_t i = 0; i < f->dims.size() && i < c.dims.size(); ++i) {
      if (f->dims[i].node().name != c.dims[i]) {
        return fmt::format("call of @{} passes dim {} to its dim parameter {}", c.func, c.dims[i], f->dims[i].node().name);
      }
    }
  }
  return "";
}

loop::Module fuse_loops(const loop::Module& m, const CompileContext& compile) {
  DT_CHECK(fuse_loops_precondition(m).empty(), "FuseLoops on a module it refuses");
  std::set<std::string> func_names;
  for (const auto& f : m.funcs) func_names.insert(f.name);
  loop::Module out = m;
  out.calls.clear();
  std::vector<loop::PrimFunc> fused;
  for (size_t k = 0; k < m.calls.size();) {
    size_t end = k + 1;
    while (m.calls[k].group >= 0 && end < m.calls.size() && m.calls[end].group == m.calls[k].group) ++end;
    if (end - k == 1) {
      out.calls.push_back(m.calls[k++]);
      continue;
    }
    auto [f, call] = Fuser(m, k, end, func_names, compile).run();
    fused.push_back(std::move(f));
    out.calls.push_back(std::move(call));
    k = end;
  }
  if (fused.empty()) return m;
  // A memory plan made before fusion shares slots between values whose lifetimes fusion now
  // overlaps inside one kernel: it is void (PlanMemory plans again when it runs later).
  out.storage.clear();
  // Functions in order of first call, then the ones no call uses any more that were never
  // called (a fused member's function goes with its calls).
  std::set<std::string> called;
  for (const auto& c : m.calls) called.insert(c.func);
  out.funcs.clear();
  std::set<std::string> placed;
  for (const auto& c : out.calls) {
    if (!placed.insert(c.func).second) continue;
    const loop::PrimFunc* f = m.find(c.func);
    for (const auto& g : fused) {
      if (g.name == c.func) f = &g;
    }
    out.funcs.push_back(*f);
  }
  for (const auto& f : m.funcs) {
    if (!called.count(f.name)) out.funcs.push_back(f);
  }
  return out;
}

}  // namespace difftest::passes
