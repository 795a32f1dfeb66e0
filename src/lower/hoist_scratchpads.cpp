// Per-thread scratchpads around parallel loops (passes.h).
#include "lower/passes.h"
#include "trapeze/ir_visitor.h"

#include <set>

namespace trapeze::lower {

using namespace ir;

namespace {

// Whether an extent is the same in every iteration: it reads no loop
// variable and no let (only the pipeline's parameters and constants).
bool invariant(const Expr& e, const std::set<std::string>& params) {
  bool same = true;
  for_each_node(e, [&](const Expr& x) {
    if (x.as<VarRef>()) same = false;
    if (const auto* q = x.as<ParamRef>(); q && !params.count(q->name)) same = false;
  });
  return same;
}

// In the body of one parallel loop: its invariant stack buffers become Reuse
// of a PerThread buffer; `hoisted` receives them (outermost first).
class ReuseInvariantBuffers : public StmtMutator {
public:
  ReuseInvariantBuffers(const std::set<std::string>& params, std::vector<const Allocate*>& hoisted)
      : params_(params), hoisted_(hoisted) {}

protected:
  Stmt mutate_node(const Allocate* n, const Stmt& self) override {
    const Stmt body = mutate(n->body);
    bool same = n->scope == MemoryScope::Stack;
    for (const Expr& e : n->extents)
      same = same && invariant(e, params_);
    if (!same)
      return body.same_as(n->body) ? self
                                   : Allocate::make(n->name, n->producer, n->type, n->origin,
                                                    n->extents, n->scope, n->slot, body, n->memory);
    hoisted_.push_back(n);
    return Allocate::make(n->name, n->producer, n->type, n->origin, n->extents, MemoryScope::Reuse,
                          -1, body);
  }

private:
  const std::set<std::string>& params_;
  std::vector<const Allocate*>& hoisted_;
};

// The outermost parallel loops (a parallel loop inside one runs serially).
class HoistAroundParallelLoops : public StmtMutator {
public:
  explicit HoistAroundParallelLoops(const std::set<std::string>& params) : params_(params) {}

protected:
  Stmt mutate_node(const For* n, const Stmt& self) override {
    if (!is_parallel(n->kind)) return StmtMutator::mutate_node(n, self);
    std::vector<const Allocate*> hoisted;
    const Stmt body = ReuseInvariantBuffers(params_, hoisted).mutate(n->body);
    if (hoisted.empty()) return self;
    Stmt loop = For::make(n->var, n->min, n->max, n->kind, body, n->collapse, n->schedule);
    for (auto it = hoisted.rbegin(); it != hoisted.rend(); ++it) {
      const Allocate* a = *it;
      loop = Allocate::make(a->name, a->producer, a->type,
                            std::vector<Expr>(a->extents.size(), Expr(std::int64_t{0})), a->extents,
                            MemoryScope::PerThread, -1, loop);
    }
    return loop;
  }

private:
  const std::set<std::string>& params_;
};

} // namespace

Stmt hoist_scratchpads(const Stmt& s, const LoweringState& state) {
  return HoistAroundParallelLoops(state.param_names).mutate(s);
}

} // namespace trapeze::lower
