#include "compiler/loop/analysis.h"
#include "compiler/passes/plan_memory.h"

#include <map>
#include <set>

#include "compiler/faults/faults.h"
#include "compiler/loop/visitor.h"

namespace difftest::passes {

// Test faults of this file (docs/faults.md): off unless switched on.

const faults::Fault kPlanMemoryReusesLiveBuffer({
    .name = "plan-memory-reuses-live-buffer",
    .pass = "PlanMemory",
    .description = "PlanMemory ends a value's live interval before its last use, so a call's output may share a "
        "storage slot with an input that dies at that call and the kernel overwrites what it still reads (a matmul "
        "or a reduction; an elementwise kernel reading the element it writes survives): an off-by-one in a memory "
        "planner's liveness",
    .models = "an off-by-one in the liveness of a memory planner",
});

std::string plan_memory_precondition(const loop::Module& m) {
  if (m.outputs.empty()) return "the module does not list the program's outputs (PlanMemory runs on LegalizeOps' output)";
  return "";
}

loop::Module plan_memory(const loop::Module& m, const CompileContext& compile) {
  const std::set<std::string> outputs(m.outputs.begin(), m.outputs.end());
  std::map<std::string, size_t> last_use;
  std::vector<std::vector<std::string>> defined_at(m.calls.size());
  std::set<std::string> defined;
  for (size_t k = 0; k < m.calls.size(); ++k) {
    const loop::Call& c = m.calls[k];
    const loop::PrimFunc* f = m.find(c.func);
    const std::set<std::string> stored = loop::footprint(f->body).stored;
    for (size_t i = 0; i < c.buffers.size(); ++i) {
      const std::string& v = c.buffers[i];
      last_use[v] = k;
      if (stored.count(f->params[i].name()) && !outputs.count(v) && defined.insert(v).second) {
        defined_at[k].push_back(v);
      }
    }
  }
  // Fault plan-memory-reuses-live-buffer: liveness ends before the last use instead of after
  // it, so a call's output may take the slot of an input that dies at that very call (an
  // off-by-one in the live interval's end): the kernel overwrites what it still reads.
  const size_t last_use_counted = compile.fault(kPlanMemoryReusesLiveBuffer) ? 0 : 1;
  std::vector<std::vector<std::string>> slots;
  std::vector<std::string> occupant;  // per slot, its latest member
  for (size_t k = 0; k < m.calls.size(); ++k) {
    for (const auto& v : defined_at[k]) {
      size_t s = 0;
      while (s < slots.size() && last_use.at(occupant[s]) + last_use_counted > k) ++s;
      if (s == slots.size()) {
        slots.emplace_back();
        occupant.emplace_back();
      }
      slots[s].push_back(v);
      occupant[s] = v;
    }
  }
  if (slots == m.storage) return m;
  loop::Module out = m;
  out.storage = std::move(slots);
  return out;
}

}  // namespace difftest::passes
