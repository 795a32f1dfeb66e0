// Clamping data-dependent indices: a statement mutator over every expression
// (passes.h). Affine indices are left alone: check_arguments proves them in
// bounds.
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

Stmt clamp_indices(const Stmt& s, const LoweringState& state) {
  StmtClamper clamper(state.prover);
  return clamper.mutate(s);
}

} // namespace trapeze::lower
