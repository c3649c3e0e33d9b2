#include "compiler/passes/fuse_ops.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <queue>
#include <set>
#include <unordered_map>

#include "compiler/ops/op.h"

namespace difftest::passes {

namespace {

bool injective_like(OpPattern p) {
  return p == OpPattern::ElemWise || p == OpPattern::Broadcast || p == OpPattern::Injective;
}

// What a group still admits is decided by its strongest member.
enum class Master { InjectiveLike, Reduce, OutFusable, Closed };

Master master_of(OpPattern p) {
  if (injective_like(p)) return Master::InjectiveLike;
  if (p == OpPattern::CommReduce) return Master::Reduce;
  if (p == OpPattern::OutEWiseFusable) return Master::OutFusable;
  return Master::Closed;
}

bool admits(Master m, OpPattern p) {
  switch (m) {
    case Master::InjectiveLike: return injective_like(p) || p == OpPattern::CommReduce;
    case Master::Reduce:
    case Master::OutFusable: return p == OpPattern::ElemWise || p == OpPattern::Broadcast;
    case Master::Closed: return false;
  }
  return false;
}

// A node of the group graph: a fusion group, or one binding on its own.
struct Node {
  std::vector<size_t> members;  // binding indices, in program order
  Master master = Master::InjectiveLike;
  bool call = false;
  std::set<int> deps;  // nodes this one depends on, transitively
};

class Grouping {
 public:
  explicit Grouping(const Program& p) : p_(p) {}

  std::vector<Binding> run() {
    const auto& bs = p_.bindings();
    std::map<int, int> existing;  // old group id -> node
    for (size_t i = 0; i < bs.size(); ++i) {
      const Binding& b = bs[i];
      int node = -1;
      if (b.is_call() && b.group() >= 0) {
        auto [it, fresh] = existing.emplace(b.group(), static_cast<int>(nodes_.size()));
        if (fresh) new_node(b);
        node = it->second;
      } else if (b.is_call()) {
        node = choose_group(b);
        if (node < 0) node = new_node(b);
      } else {
        node = static_cast<int>(nodes_.size());
        nodes_.emplace_back();
      }
      add_member(node, b, i);
    }
    return schedule();
  }

 private:
  int new_node(const Binding& b) {
    Node n;
    n.call = true;
    n.master = master_of(b.op().pattern);
    nodes_.push_back(std::move(n));
    return static_cast<int>(nodes_.size()) - 1;
  }

  int node_of(const Value& v) const { return node_of_.at(v.get()); }

  // The first operand's group that admits b without a cycle in the group graph, or -1.
  int choose_group(const Binding& b) const {
    const OpPattern pat = b.op().pattern;
    if (pat == OpPattern::Opaque || pat == OpPattern::OutEWiseFusable) return -1;
    for (const auto& a : b.args()) {
      const int g = node_of(a);
      const Node& n = nodes_[static_cast<size_t>(g)];
      if (!n.call || !admits(n.master, pat) || n.members.size() >= static_cast<size_t>(kMaxGroupSize)) continue;
      // Joining adds edges node(x) -> g for the other operands x; a cycle appears when one of
      // them already depends on g.
      bool cycle = false;
      for (const auto& x : b.args()) {
        const int h = node_of(x);
        cycle = cycle || (h != g && nodes_[static_cast<size_t>(h)].deps.count(g));
      }
      if (!cycle) return g;
    }
    return -1;
  }

  void add_member(int node, const Binding& b, size_t index) {
    Node& n = nodes_[static_cast<size_t>(node)];
    n.members.push_back(index);
    if (b.is_call()) {
      const Master m = master_of(b.op().pattern);
      if (static_cast<int>(m) > static_cast<int>(n.master)) n.master = m;
    }
    std::set<int> added;
    for (const auto& a : b.args()) {
      const int h = node_of(a);
      if (h == node) continue;
      added.insert(h);
      const auto& hd = nodes_[static_cast<size_t>(h)].deps;
      added.insert(hd.begin(), hd.end());
    }
    for (const auto& r : b.results()) node_of_[r.get()] = node;
    if (added.empty()) return;
    n.deps.insert(added.begin(), added.end());
    for (auto& other : nodes_) {
      if (other.deps.count(node)) other.deps.insert(added.begin(), added.end());
    }
  }

  // Groups contiguous, in a topological order of the group graph that stays as close to the
  // input order as possible (the ready node whose first member comes first goes next), so an
  // already contiguous program keeps its order.
  std::vector<Binding> schedule() const {
    const auto& bs = p_.bindings();
    const size_t count = nodes_.size();
    std::vector<int> waiting(count, 0);
    std::vector<std::vector<int>> users(count);
    for (size_t n = 0; n < count; ++n) {
      std::set<int> direct;
      for (size_t i : nodes_[n].members) {
        for (const auto& a : bs[i].args()) {
          const int h = node_of(a);
          if (h != static_cast<int>(n)) direct.insert(h);
        }
      }
      waiting[n] = static_cast<int>(direct.size());
      for (int h : direct) users[static_cast<size_t>(h)].push_back(static_cast<int>(n));
    }
    using Item = std::pair<size_t, int>;  // (first member, node)
    std::priority_queue<Item, std::vector<Item>, std::greater<>> ready;
    for (size_t n = 0; n < count; ++n) {
      if (waiting[n] == 0) ready.emplace(nodes_[n].members.front(), static_cast<int>(n));
    }
    std::vector<Binding> out;
    int next_group = 0;
    while (!ready.empty()) {
      const int n = ready.top().second;
      ready.pop();
      const Node& node = nodes_[static_cast<size_t>(n)];
      const int group = node.members.size() > 1 ? next_group++ : -1;
      for (size_t i : node.members) out.push_back(bs[i].is_call() ? bs[i].with_group(group) : bs[i]);
      for (int u : users[static_cast<size_t>(n)]) {
        if (--waiting[static_cast<size_t>(u)] == 0) ready.emplace(nodes_[static_cast<size_t>(u)].members.front(), u);
      }
    }
    DT_CHECK(out.size() == bs.size(), "FuseOps: the group graph has a cycle");
    return out;
  }

  const Program& p_;
  std::vector<Node> nodes_;
  std::unordered_map<const ValueNode*, int> node_of_;
};

bool same_binding(const Binding& a, const Binding& b) {
  return a.results().front().same_as(b.results().front()) && a.group() == b.group();
}

}  // namespace

Program with_renumbered_groups(const Program& p, std::vector<Binding> bindings) {
  std::map<int, int> ids;
  for (auto& b : bindings) {
    if (b.group() < 0) continue;
    const auto [it, fresh] = ids.emplace(b.group(), static_cast<int>(ids.size()));
    b = b.with_group(it->second);
  }
  bool same = bindings.size() == p.bindings().size();
  for (size_t i = 0; same && i < bindings.size(); ++i) same = same_binding(bindings[i], p.bindings()[i]);
  if (same) return p;
  return Program::make(p.name(), p.dims(), std::move(bindings), p.outputs(), p.loc());
}

bool group_pair(std::vector<Binding>& bindings, size_t first, size_t second) {
  DT_CHECK(first < second && second < bindings.size(), "group_pair: bad positions");
  const Binding& a = bindings[first];
  const Binding& b = bindings[second];
  std::set<const ValueNode*> before_first, results;
  for (size_t i = 0; i < first; ++i) {
    for (const auto& r : bindings[i].results()) before_first.insert(r.get());
  }
  for (const auto& r : a.results()) results.insert(r.get());
  bool move_second_up = true;
  for (const auto& x : b.args()) move_second_up = move_second_up && (results.count(x.get()) || before_first.count(x.get()));
  bool move_first_down = true;
  for (size_t i = first + 1; i < second; ++i) {
    for (const auto& x : bindings[i].args()) move_first_down = move_first_down && !results.count(x.get());
  }
  if (!move_second_up && !move_first_down) return false;
  int fresh = 0;
  for (const auto& x : bindings) fresh = std::max(fresh, x.group() + 1);
  Binding ga = a.with_group(fresh), gb = b.with_group(fresh);
  if (move_second_up) {
    bindings.erase(bindings.begin() + static_cast<std::ptrdiff_t>(second));
    bindings[first] = ga;
    bindings.insert(bindings.begin() + static_cast<std::ptrdiff_t>(first) + 1, gb);
  } else {
    bindings[second] = gb;
    bindings.insert(bindings.begin() + static_cast<std::ptrdiff_t>(second), ga);
    bindings.erase(bindings.begin() + static_cast<std::ptrdiff_t>(first));
  }
  return true;
}

std::string existing_groups_contiguous(const Program& p) {
  std::map<int, size_t> last;
  const auto& bs = p.bindings();
  for (size_t i = 0; i < bs.size(); ++i) {
    const int g = bs[i].group();
    if (g < 0) continue;
    if (auto it = last.find(g); it != last.end() && it->second + 1 != i) {
      return fmt::format("fusion group {} is not contiguous (%{} and %{} are apart)", g,
                         bs[it->second].results().front().name(), bs[i].results().front().name());
    }
    last[g] = i;
  }
  return "";
}

namespace {

// A group that another binding interrupts (a graph pass ran between two fusion passes) cannot
// be scheduled as one kernel as it stands; its members are regrouped from scratch instead.
Program dissolve_interrupted_groups(const Program& p) {
  std::set<int> broken;
  std::map<int, size_t> last;
  const auto& bs = p.bindings();
  for (size_t i = 0; i < bs.size(); ++i) {
    const int g = bs[i].group();
    if (g < 0) continue;
    if (auto it = last.find(g); it != last.end() && it->second + 1 != i) broken.insert(g);
    last[g] = i;
  }
  if (broken.empty()) return p;
  std::vector<Binding> out;
  for (const auto& b : bs) out.push_back(broken.count(b.group()) ? b.with_group(-1) : b);
  return Program::make(p.name(), p.dims(), std::move(out), p.outputs(), p.loc());
}

}  // namespace

Program fuse_ops(const Program& p) {
  const Program q = dissolve_interrupted_groups(p);
  return with_renumbered_groups(q, Grouping(q).run());
}

}  // namespace difftest::passes
