// The tile's own part of each private copy into its full buffer (passes.h).
#include "ir/ir_operators.h"
#include "lower/passes.h"

namespace trapeze::lower {

using namespace ir;

// Copies the tile's own part of a full stage (the tile within its domain) from
// its private copy to its full buffer; a stage lacking a tiled dimension
// belongs to the first tile along it (plan::owns_tile).
void copy_out(GroupState& g, LoweringState& state) {
  for (const auto& [s, copy] : g.private_copy) {
    const FunctionPtr& f = g.plan.geometry.stages[s];
    const std::vector<Interval> own = plan::stage_box(g.plan.geometry, s, g.tile);
    std::vector<Expr> point;
    for (const std::string& v : f->vars())
      point.push_back(VarRef::make(v));
    Stmt body = Store::make(f->name(), point, Access::make(f, point));
    for (std::size_t k = own.size(); k-- > 0;) {
      const Interval& range = plan::computed_box(g.plan.geometry, s)[k];
      const bool inner = k + 1 == own.size();
      body = For::make(f->vars()[k], state.prover.simplify(max_of(own[k].lo, range.lo)),
                       state.prover.simplify(min_of(own[k].hi, range.hi)),
                       inner && g.plan.schedule.vectorize ? ForKind::Vectorized : ForKind::Serial,
                       body);
    }
    const Expr owner = plan::owns_tile(g.plan.geometry, s, g.first);
    g.after.push_back(Block::make(
        {Comment::make(f->name() + ": the tile's part, from its scratchpad to its full buffer"),
         owner.defined() ? IfThenElse::make(owner, body) : body}));
  }
}

} // namespace trapeze::lower
