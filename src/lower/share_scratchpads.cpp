// One memory for scratchpads whose lifetimes in a tile do not overlap
// (passes.h).
#include "ir/ir_operators.h"
#include "lower/passes.h"
#include "plan/buffer_sharing.h"
#include "trapeze/ir_visitor.h"

#include <algorithm>
#include <map>
#include <set>

namespace trapeze::lower {

using namespace ir;

namespace {

// The statements of one iteration in the order they run: the Blocks under
// the iteration's Reuse buffers flattened, comments left out. A statement
// that is not a Block (a stage's nest, a band loop, a copy-out) is one step.
void flatten(const Stmt& s, std::vector<Stmt>& steps) {
  if (const auto* b = s.as<Block>()) {
    for (const Stmt& t : b->stmts)
      flatten(t, steps);
    return;
  }
  if (!s.as<Comment>()) steps.push_back(s);
}

// The buffers a step stores to and the stages it reads.
struct Touches : StmtVisitor {
  std::set<std::string> stored, read;

protected:
  void visit_expr(const Expr& e) override {
    for_each_node(e, [&](const Expr& node) {
      if (const auto* a = node.as<Access>(); a && a->func) read.insert(a->func->name());
    });
  }
  void visit_node(const Store* n, const Stmt& self) override {
    stored.insert(n->buffer);
    StmtVisitor::visit_node(n, self);
  }
};

// A Reuse buffer of the iteration and the steps it is live in.
struct Lifetime {
  const Allocate* buffer = nullptr;
  std::size_t first = 0, last = 0;
};

// The memory buffers share: its type and the buffers, in the order they use it.
struct Slot {
  ScalarType type;
  std::vector<const Allocate*> members;
};

// The Reuse buffers of the loop's iterations that could share memory, with
// their lifetimes: the chain of them under the tile loops and lets (each
// iteration of those gets them anew); none if the body has another form.
std::vector<Lifetime> lifetimes(const For& loop, const std::set<std::string>& per_thread) {
  Stmt s = loop.body;
  for (;;) {
    if (const auto* let = s.as<LetStmt>())
      s = let->body;
    else if (const auto* inner = s.as<For>())
      s = inner->body;
    else
      break;
  }
  std::vector<const Allocate*> chain;
  while (const auto* a = s.as<Allocate>()) {
    if (a->scope != MemoryScope::Reuse || !a->memory.empty() || !per_thread.count(a->name))
      return {};
    chain.push_back(a);
    s = a->body;
  }
  std::vector<Stmt> steps;
  flatten(s, steps);
  std::vector<Lifetime> out;
  std::vector<Touches> touches(steps.size());
  for (std::size_t i = 0; i < steps.size(); ++i)
    touches[i].visit(steps[i]);
  for (const Allocate* a : chain) {
    Lifetime life{a, steps.size(), 0};
    for (std::size_t i = 0; i < steps.size(); ++i) {
      if (!touches[i].stored.count(a->name) && !touches[i].read.count(a->producer)) continue;
      life.first = std::min(life.first, i);
      life.last = std::max(life.last, i);
    }
    // A buffer no step uses keeps its own memory.
    if (life.first < steps.size()) out.push_back(life);
  }
  return out;
}

// The slots of the buffers, by plan::share_memories.
std::vector<Slot> assign_slots(std::vector<Lifetime> lives) {
  std::stable_sort(lives.begin(), lives.end(),
                   [](const Lifetime& a, const Lifetime& b) { return a.first < b.first; });
  std::vector<plan::BufferLifetime> spans;
  for (const Lifetime& life : lives)
    spans.push_back({life.buffer->type, life.first, life.last});
  const std::vector<int> memory = plan::share_memories(spans);
  std::vector<Slot> slots;
  for (std::size_t i = 0; i < lives.size(); ++i) {
    const auto slot = static_cast<std::size_t>(memory[i]);
    if (slot == slots.size()) slots.push_back(Slot{lives[i].buffer->type, {}});
    slots[slot].members.push_back(lives[i].buffer);
  }
  return slots;
}

// Points the shared buffers' Reuse at their slot's memory.
class UseSlots : public StmtMutator {
public:
  explicit UseSlots(const std::map<std::string, std::string>& memory) : memory_(memory) {}

protected:
  Stmt mutate_node(const Allocate* n, const Stmt& self) override {
    const auto it = n->scope == MemoryScope::Reuse ? memory_.find(n->name) : memory_.end();
    if (it == memory_.end()) return StmtMutator::mutate_node(n, self);
    return Allocate::make(n->name, n->producer, n->type, n->origin, n->extents, n->scope, n->slot,
                          mutate(n->body), it->second);
  }

private:
  const std::map<std::string, std::string>& memory_;
};

// Around each outermost parallel loop with PerThread buffers
// (hoist_scratchpads): buffers of one type whose lifetimes in an iteration
// are apart share one PerThread buffer, as large as the largest of them.
class ShareAroundParallelLoops : public StmtMutator {
public:
  explicit ShareAroundParallelLoops(const LoweringState& state) : state_(state) {}

protected:
  Stmt mutate_node(const Allocate* n, const Stmt& self) override {
    if (n->scope != MemoryScope::PerThread) return StmtMutator::mutate_node(n, self);
    std::vector<const Allocate*> per_thread;
    Stmt inner = self;
    while (const auto* a = inner.as<Allocate>()) {
      TRAPEZE_ASSERT(a->scope == MemoryScope::PerThread,
                     "per-thread buffers must enclose their parallel loop directly");
      per_thread.push_back(a);
      inner = a->body;
    }
    const auto* loop = inner.as<For>();
    TRAPEZE_ASSERT(loop && is_parallel(loop->kind), "per-thread buffers around no parallel loop");
    std::set<std::string> names;
    for (const Allocate* a : per_thread)
      names.insert(a->name);
    std::map<std::string, std::string> memory; // buffer -> its slot's PerThread buffer
    std::vector<std::pair<std::string, Slot>> shared;
    for (Slot& slot : assign_slots(lifetimes(*loop, names))) {
      if (slot.members.size() < 2) continue;
      std::string name = "shared_" + slot.members.front()->name;
      while (names.count(name))
        name += "_";
      names.insert(name);
      for (const Allocate* a : slot.members)
        memory[a->name] = name;
      shared.emplace_back(name, std::move(slot));
    }
    if (shared.empty()) return self;
    Stmt body = UseSlots(memory).mutate(inner);
    for (auto it = per_thread.rbegin(); it != per_thread.rend(); ++it)
      if (!memory.count((*it)->name))
        body = Allocate::make((*it)->name, (*it)->producer, (*it)->type, (*it)->origin,
                              (*it)->extents, MemoryScope::PerThread, -1, body);
    for (auto it = shared.rbegin(); it != shared.rend(); ++it) {
      Expr elements;
      for (const Allocate* a : it->second.members) {
        Expr size = a->extents.front();
        for (std::size_t d = 1; d < a->extents.size(); ++d)
          size = mul(size, a->extents[d]);
        elements = elements.defined() ? max_of(elements, size) : size;
      }
      // It holds its members in turn: the C++ printer says "holds s1, s3".
      std::string members;
      for (const Allocate* a : it->second.members)
        members += (members.empty() ? "" : ", ") + a->name;
      body = Allocate::make(it->first, members, it->second.type, {i64(0)},
                            {state_.prover.simplify(elements)}, MemoryScope::PerThread, -1, body);
    }
    return body;
  }

private:
  const LoweringState& state_;
};

} // namespace

Stmt share_scratchpads(const Stmt& s, const LoweringState& state) {
  return ShareAroundParallelLoops(state).mutate(s);
}

} // namespace trapeze::lower
