// Clamping data-dependent indices (passes.h). Whether an index is
// data-dependent is decided on the stage's definition, as the interpreter
// decides it: it reads memory. So the pass runs before inline_stages, which can
// turn such an index into a constant or an affine expression (a look-up
// through an inlined stage whose case is a constant) that no check has proven
// in bounds. Affine indices of the definitions are left alone: check_arguments
// proves them in bounds.
#include "lower/clamp_indices.h"

#include "lower/passes.h"
#include "trapeze/ir_visitor.h"

namespace trapeze::lower {

using namespace ir;

namespace {

class IndexClamper : public ExprMutator {
public:
  explicit IndexClamper(const analysis::BoundsProver& prover) : prover_(prover) {}

protected:
  Expr mutate_node(const Access* n, const Expr& self) override {
    const std::vector<Interval> domain = n->func ? n->func->domain() : n->image->domain();
    std::vector<Expr> args;
    bool changed = false;
    for (std::size_t d = 0; d < n->args.size(); ++d) {
      Expr a = mutate(n->args[d]); // inner look-ups first
      if (reads_memory(n->args[d])) {
        a = Binary::make(BinaryOp::Min,
                         Binary::make(BinaryOp::Max, Cast::make(ScalarType::Int64, a),
                                      prover_.simplify(domain[d].lo)),
                         prover_.simplify(domain[d].hi));
      }
      changed = changed || !a.same_as(n->args[d]);
      args.push_back(std::move(a));
    }
    if (!changed) return self;
    return n->func ? Access::make(n->func, std::move(args), n->where)
                   : Access::make(n->image, std::move(args), n->where);
  }

private:
  const analysis::BoundsProver& prover_;
};

class StmtClamper : public StmtMutator {
public:
  explicit StmtClamper(const analysis::BoundsProver& prover) : clamper_(prover) {}

protected:
  Expr mutate_expr(const Expr& e) override { return clamper_.mutate(e); }

private:
  IndexClamper clamper_;
};

} // namespace

Expr clamp_data_dependent_indices(const Expr& e, const analysis::BoundsProver& prover) {
  return e.defined() ? IndexClamper(prover).mutate(e) : e;
}

void clamp_indices(GroupState& g, LoweringState& state) {
  StmtClamper clamper(state.prover);
  for (TileNest& n : g.nests) {
    TRAPEZE_ASSERT(n.nest.as<Produce>(), "clamp_indices runs on Produces");
    n.nest = clamper.mutate(n.nest);
  }
}

} // namespace trapeze::lower
