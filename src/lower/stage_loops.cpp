// Produces into loop nests (passes.h).
#include "ir/ir_operators.h"
#include "lower/fold.h"
#include "lower/passes.h"
#include "trapeze/ir_visitor.h"

#include <functional>

namespace trapeze::lower {

using namespace ir;

namespace {

class StageLoops {
public:
  StageLoops(const Produce& p, const BoundsProver& prover, const std::set<std::string>& params)
      : p_(p), prover_(prover), param_names_(params) {}

  Stmt run() const {
    if (p_.reduction) return reduction(*p_.reduction);
    return nest(0, p_.otherwise, !p_.loops.parallel, false);
  }

private:
  int dims() const { return p_.stage->dimensions(); }
  const std::string& var_name(int d) const { return p_.stage->vars()[static_cast<std::size_t>(d)]; }

  std::vector<Expr> point() const {
    std::vector<Expr> index;
    for (int d = 0; d < dims(); ++d)
      index.push_back(VarRef::make(var_name(d)));
    return index;
  }

  // A dimension with one point, [e, e]: no loop of its own. partition_cases
  // gives [v, v] for the variable v of an enclosing loop; partition_parity
  // gives [k * c + r, k * c + r].
  bool single_point(int d) const {
    const Interval& range = p_.box[static_cast<std::size_t>(d)];
    return ir::to_string(range.lo) == ir::to_string(range.hi);
  }
  bool looped_outside(int d) const {
    const auto* v = p_.box[static_cast<std::size_t>(d)].lo.as<VarRef>();
    return single_point(d) && v && v->name == var_name(d);
  }

  // The loop over dimension d (its variable, or `var` when given). The
  // outermost loop that has more than one iteration is parallel (a single
  // channel hands parallelism to the loop below it); the innermost one is
  // vectorized.
  Stmt loop(int d, const Expr& lo, const Expr& hi, bool parallel_above,
            const std::function<Stmt(bool)>& body_of, const std::string& var = {}) const {
    const bool inner = d == dims() - 1;
    const auto span = prover_.constant_difference(lo, hi);
    // An innermost loop is parallel only in a one-dimensional stage: a single
    // border row is not worth a parallel region.
    const bool parallel = !parallel_above && (inner ? d == 0 : !span || *span > 0);
    Stmt body = body_of(parallel_above || parallel);
    ForKind kind = ForKind::Serial;
    int collapse = 1;
    if (parallel && inner) {
      kind = p_.loops.vectorize ? ForKind::ParallelVectorized : ForKind::Parallel;
    } else if (inner && p_.loops.vectorize) {
      kind = ForKind::Vectorized;
    } else if (parallel) {
      kind = ForKind::Parallel;
      // A few channels: share the rows below them between the threads too.
      if (span && d + 2 < dims() && body.as<For>()) collapse = 2;
    }
    return For::make(var.empty() ? var_name(d) : var, lo, hi, kind, std::move(body), collapse);
  }

  // A nest over dimensions d.. of the box storing `value`; `by_parity`: inside
  // the coarse loop of the parity split, where the bottom stores each residue.
  Stmt nest(int d, const Expr& value, bool parallel_above, bool by_parity) const {
    if (d == dims()) return by_parity ? residue_stores() : Store::make(p_.buffer, point(), value);
    if (looped_outside(d)) return nest(d + 1, value, parallel_above, by_parity);
    if (single_point(d)) { // the variable's value, for the store
      const Expr& at = p_.box[static_cast<std::size_t>(d)].lo;
      return LetStmt::make(var_name(d),
                           at.type() == ScalarType::Int32 ? at : Cast::make(ScalarType::Int32, at),
                           nest(d + 1, value, parallel_above, by_parity));
    }
    const Interval& range = p_.box[static_cast<std::size_t>(d)];
    const Expr lo = prover_.simplify(range.lo), hi = prover_.simplify(range.hi);
    if (p_.parity && p_.parity->dim == d) return parity_split(d, lo, hi, value, parallel_above);
    return loop(d, lo, hi, parallel_above,
                [&](bool parallel) { return nest(d + 1, value, parallel, by_parity); });
  }

  // Dimension d in groups of k points: the box's points before the first
  // multiple of k, the whole groups (coarse index c, points k*c .. k*c+k-1),
  // and the points after the last whole group. The first and last parts have
  // fewer than k points and are never parallel.
  Stmt parity_split(int d, const Expr& lo, const Expr& hi, const Expr& value,
                    bool parallel_above) const {
    const ProduceParity& parity = *p_.parity;
    const std::int64_t k = parity.factor;
    const auto bound = [&](const Expr& e) { return prover_.simplify(fold(e)); };
    const Expr end = bound(plus(hi, 1));
    const Expr first = bound(floor_div(plus(lo, k - 1), k)); // first whole group
    const Expr last = bound(plus(floor_div(end, k), -1));    // last whole group
    const Expr main_lo = bound(times(k, first));             // its first point
    const Expr main_end = bound(max_of(times(k, plus(last, 1)), main_lo));
    const Expr before_end = bound(min_of(main_lo, end));
    const auto part = [&](const Expr& from, const Expr& to) {
      if (prover_.prove_le(to, from)) return Stmt(); // provably no point
      return loop(d, from, prover_.simplify(plus(to, -1)), true,
                  [&](bool) { return nest(d + 1, value, parallel_above, false); });
    };
    return Block::make(
        {part(lo, before_end),
         loop(
             d, first, last, parallel_above,
             [&](bool parallel) { return nest(d + 1, value, parallel, true); }, parity.coarse),
         part(prover_.simplify(max_of(main_end, before_end)), end)});
  }

  // The stores of one group of the parity split: point k*c + r holds values[r].
  Stmt residue_stores() const {
    const ProduceParity& parity = *p_.parity;
    const Expr coarse = VarRef::make(parity.coarse);
    std::vector<Stmt> stores;
    for (std::int64_t r = 0; r < parity.factor; ++r) {
      std::vector<Expr> index = point();
      const Expr group = Binary::make(BinaryOp::Mul, Expr(static_cast<int>(parity.factor)), coarse);
      index[static_cast<std::size_t>(parity.dim)] =
          r == 0 ? group : Binary::make(BinaryOp::Add, group, Expr(static_cast<int>(r)));
      stores.push_back(Store::make(p_.buffer, index, parity.values[static_cast<std::size_t>(r)]));
    }
    return Block::make(std::move(stores));
  }

  std::string let_name(const std::string& base) const {
    std::string name = base;
    while (param_names_.count(name))
      name += "_";
    return name;
  }

  // An initialization nest over the box, then the updates in order over the
  // whole reduction domain, serial.
  Stmt reduction(const Reduction& r) const {
    std::vector<Stmt> updates;
    for (const ReductionUpdate& u : r.updates) {
      // Clamp the target into the domain (function.h), once per update.
      std::vector<std::pair<std::string, Expr>> targets;
      std::vector<Expr> index;
      for (int d = 0; d < dims(); ++d) {
        const Interval& range = p_.box[static_cast<std::size_t>(d)];
        const std::string name = let_name(var_name(d));
        targets.emplace_back(name, min_of(max_of(as_i64(u.target[static_cast<std::size_t>(d)]),
                                                 prover_.simplify(range.lo)),
                                          prover_.simplify(range.hi)));
        index.push_back(let_ref(name, ScalarType::Int64));
      }
      const Expr old = Access::make(p_.stage, index);
      Expr combined;
      switch (u.op) {
      case ReduceOp::Sum: combined = add(old, u.value); break;
      case ReduceOp::Min: combined = min_of(old, u.value); break;
      case ReduceOp::Max: combined = max_of(old, u.value); break;
      }
      Stmt s = Store::make(p_.buffer, index, Cast::make(p_.stage->type(), combined));
      for (auto it = targets.rbegin(); it != targets.rend(); ++it)
        s = LetStmt::make(it->first, it->second, s);
      updates.push_back(s);
    }
    Stmt body = Block::make(std::move(updates));
    for (std::size_t k = r.rvars.size(); k-- > 0;)
      body = For::make(r.rvars[k], prover_.simplify(r.rdom[k].lo), prover_.simplify(r.rdom[k].hi),
                       ForKind::Serial, body);
    std::string rdom;
    for (std::size_t k = 0; k < r.rvars.size(); ++k)
      rdom += (k ? ", " : "") + r.rvars[k] + " in [" + expr_text(r.rdom[k].lo) + ", " +
              expr_text(r.rdom[k].hi) + "]";
    return Block::make({Comment::make("initialization"), nest(0, r.init, !p_.loops.parallel, false),
                        Comment::make("updates in order, serial" +
                                      (rdom.empty() ? std::string() : " over " + rdom)),
                        body});
  }

  const Produce& p_;
  const BoundsProver& prover_;
  const std::set<std::string>& param_names_;
};

// Replaces every Produce in a statement by its loops.
class ExpandProduces : public StmtMutator {
public:
  explicit ExpandProduces(const LoweringState& state) : state_(state) {}

protected:
  Stmt mutate_node(const Produce* node, const Stmt&) override {
    return StageLoops(*node, state_.prover, state_.param_names).run();
  }

private:
  const LoweringState& state_;
};

} // namespace

void stage_loops(GroupState& g, LoweringState& state) {
  for (TileNest& n : g.nests)
    n.nest = ExpandProduces(state).mutate(n.nest);
}

} // namespace trapeze::lower
