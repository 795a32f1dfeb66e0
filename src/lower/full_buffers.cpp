// The buffers that live for the whole call (passes.h).
#include "ir/ir_operators.h"
#include "lower/passes.h"

#include <set>

namespace trapeze::lower {

using namespace ir;

namespace {

// The stages in full buffers over their domains: those stored Full (live-outs
// included) and those of lone untiled groups; never an inlined one.
std::set<const ir::Function*> in_full_buffers(const LoweringState& state) {
  std::set<const ir::Function*> out;
  for (const plan::GroupPlan& g : state.plan.groups)
    if (!g.fused) out.insert(g.stages.front().get());
  for (const ir::FunctionPtr& f : state.plan.pipeline.stages())
    if (state.plan.storage_of(f->name()) == Storage::Full) out.insert(f.get());
  for (const ir::FunctionPtr& f : state.plan.pipeline.stages())
    if (state.plan.inlined(f->name())) out.erase(f.get());
  return out;
}

std::vector<Expr> origin_of(const std::vector<Interval>& box,
                            const analysis::BoundsProver& prover) {
  std::vector<Expr> out;
  for (const Interval& range : box)
    out.push_back(prover.simplify(range.lo));
  return out;
}

} // namespace

// Innermost first: heap buffers of the intermediate stages kept in full, then
// the outputs, then the inputs (outermost, in the calling convention's order).
Stmt full_buffers(const Stmt& s, const LoweringState& state) {
  const Pipeline& p = state.plan.pipeline;
  const analysis::BoundsProver& prover = state.prover;
  Stmt body = s;
  const std::set<const ir::Function*> full = in_full_buffers(state);
  const auto& all = p.stages();
  for (auto it = all.rbegin(); it != all.rend(); ++it) {
    const FunctionPtr& f = *it;
    if (p.is_output(*f) || !full.count(f.get())) continue;
    body = Allocate::make(f->name(), f->name(), f->type(), origin_of(f->domain(), prover),
                          prover.extents(f->domain()), MemoryScope::Heap, -1, body);
  }
  for (std::size_t k = p.outputs().size(); k-- > 0;) {
    const FunctionPtr& f = p.outputs()[k];
    body =
        Allocate::make(f->name(), f->name(), f->type(), origin_of(f->domain(), prover),
                       prover.extents(f->domain()), MemoryScope::Output, static_cast<int>(k), body);
  }
  for (std::size_t k = p.inputs().size(); k-- > 0;) {
    const InputImagePtr& in = p.inputs()[k];
    std::vector<Expr> origin(in->extents().size(), i64(0));
    std::vector<Expr> extents;
    for (const Expr& e : in->extents())
      extents.push_back(prover.simplify(e));
    body = Allocate::make(in->name(), in->name(), in->type(), origin, extents, MemoryScope::Input,
                          static_cast<int>(k), body);
  }
  return body;
}

} // namespace trapeze::lower
