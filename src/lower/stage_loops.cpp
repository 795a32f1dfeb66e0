// Produces into loop nests (passes.h).
#include "analysis/reduction_targets.h"
#include "ir/ir_operators.h"
#include "lower/fold.h"
#include "lower/partition_updates.h"
#include "lower/passes.h"
#include "lower/reduction_parallelism.h"
#include "trapeze/ir_visitor.h"

#include <functional>
#include <limits>
#include <memory>

namespace trapeze::lower {

using namespace ir;

namespace {

class StageLoops {
public:
  StageLoops(const Produce& p, const analysis::BoundsProver& prover,
             const std::set<std::string>& params, std::vector<std::string>& reassociated_sums)
      : p_(p), prover_(prover), param_names_(params), reassociated_sums_(reassociated_sums) {}

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
    return For::make(var.empty() ? var_name(d) : var, lo, hi, kind, std::move(body), collapse,
                     p_.loops.schedule);
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

  // The stores of one update into `buffer` at the clamped target (function.h:
  // a target is clamped into the domain), with `prefix` indices in front (a
  // partial result's chunk). `at` reads the buffer's old value. Behind a test
  // of the targets that the reduction variables do not move (Fixed), where
  // the box may not hold them.
  Stmt update(const ReductionUpdate& u, const std::string& buffer, const std::vector<Expr>& prefix,
              const std::function<Expr(const std::vector<Expr>&)>& at,
              const std::vector<analysis::TargetDim>& kinds) const {
    std::vector<std::pair<std::string, Expr>> targets;
    std::vector<Expr> index;
    Expr inside;
    for (int d = 0; d < dims(); ++d) {
      const Interval& range = p_.stage->domain()[static_cast<std::size_t>(d)];
      const std::string name = let_name(var_name(d));
      const Expr target = as_i64(u.target[static_cast<std::size_t>(d)]);
      // A target that follows a reduction variable lies in the domain already
      // (reduction_targets proved it): no clamp to compute.
      const Expr clamped =
          kinds[static_cast<std::size_t>(d)].kind == analysis::TargetDim::Kind::Follows
              ? prover_.simplify(target)
              : prover_.simplify(
                    min_of(max_of(target, prover_.simplify(range.lo)), prover_.simplify(range.hi)));
      targets.emplace_back(name, clamped);
      index.push_back(let_ref(name, ScalarType::Int64));
      const Interval& box = p_.box[static_cast<std::size_t>(d)];
      if (kinds[static_cast<std::size_t>(d)].kind == analysis::TargetDim::Kind::Fixed &&
          !(prover_.prove_le(box.lo, clamped) && prover_.prove_le(clamped, box.hi)))
        inside = and_defined(inside, in_range(clamped, box.lo, box.hi));
    }
    std::vector<Expr> stored = prefix;
    stored.insert(stored.end(), index.begin(), index.end());
    Stmt s = Store::make(buffer, stored,
                         Cast::make(p_.stage->type(), combine(u.op, at(index), u.value)));
    if (inside.defined()) s = IfThenElse::make(inside, s);
    for (auto it = targets.rbegin(); it != targets.rend(); ++it)
      s = LetStmt::make(it->first, it->second, s);
    return s;
  }

  // The reduction variables' ranges that update the box: along a dimension
  // that follows a variable (target = rvar + shift), the box shifted back.
  std::vector<Interval> rdom_for_box(const Reduction& r,
                                     const std::vector<analysis::TargetDim>& kinds) const {
    std::vector<Interval> ranges;
    for (const Interval& range : r.rdom)
      ranges.emplace_back(prover_.simplify(range.lo), prover_.simplify(range.hi));
    for (int d = 0; d < dims(); ++d) {
      const analysis::TargetDim& t = kinds[static_cast<std::size_t>(d)];
      if (t.kind != analysis::TargetDim::Kind::Follows) continue;
      const Interval& box = p_.box[static_cast<std::size_t>(d)];
      Interval& range = ranges[t.rvar];
      range = Interval(prover_.simplify(max_of(range.lo, sub(box.lo, t.shift))),
                       prover_.simplify(min_of(range.hi, sub(box.hi, t.shift))));
    }
    return ranges;
  }

  static Expr combine(ReduceOp op, const Expr& old, const Expr& value) {
    switch (op) {
    case ReduceOp::Sum: return add(old, value);
    case ReduceOp::Min: return min_of(old, value);
    case ReduceOp::Max: return max_of(old, value);
    }
    TRAPEZE_ASSERT(false, "unknown ReduceOp");
  }

  // The value `op` leaves unchanged: 0, the type's largest or its lowest.
  Expr identity(ReduceOp op) const {
    const ScalarType t = p_.stage->type();
    if (op == ReduceOp::Sum) return is_float(t) ? FloatConst::make(t, 0.0) : IntConst::make(t, 0);
    const bool largest = op == ReduceOp::Min;
    if (is_float(t))
      return FloatConst::make(t, largest ? std::numeric_limits<double>::infinity()
                                         : -std::numeric_limits<double>::infinity());
    const int bits = 8 * byte_size(t);
    if (t == ScalarType::Bool) return IntConst::make(t, largest ? 1 : 0);
    if (bits == 64)
      return IntConst::make(t, largest ? std::numeric_limits<std::int64_t>::max()
                                       : std::numeric_limits<std::int64_t>::min());
    if (is_unsigned(t)) return IntConst::make(t, largest ? (std::int64_t{1} << bits) - 1 : 0);
    return IntConst::make(t, largest ? (std::int64_t{1} << (bits - 1)) - 1
                                     : -(std::int64_t{1} << (bits - 1)));
  }

  // A plain nest over the box's dimensions around `body` (loops named after
  // the stage's variables; the outermost parallel if asked, the innermost
  // vectorized).
  Stmt box_nest(const Stmt& body, bool parallel) const {
    Stmt s = body;
    for (int d = dims(); d-- > 0;) {
      const Interval& range = p_.box[static_cast<std::size_t>(d)];
      const ForKind kind = d == 0 && parallel                      ? ForKind::Parallel
                           : d == dims() - 1 && p_.loops.vectorize ? ForKind::Vectorized
                                                                   : ForKind::Serial;
      s = For::make(var_name(d), prover_.simplify(range.lo), prover_.simplify(range.hi), kind, s, 1,
                    p_.loops.schedule);
    }
    return s;
  }

  // The order in which the update loops run the reduction variables,
  // outermost first. Distinct values of a variable that a dimension follows
  // (TargetDim::Follows) update distinct points, so it may move inward past
  // the variables no dimension follows, and every point still gets its
  // updates in the definition's order: those of one value of each followed
  // variable, whose order the others keep. Where the innermost variable is
  // followed by none, consecutive updates may read, add to and write the
  // same point, each waiting on the one before (a histogram's 9 x 9 samples
  // of a cell into its bins), so the followed variables but the outermost
  // (which may run in parallel) move innermost: consecutive updates then hit
  // distinct points (docs/lowering.md, "Reductions").
  static std::vector<std::size_t> update_order(const Reduction& r,
                                               const std::vector<analysis::TargetDim>& kinds) {
    std::vector<bool> followed(r.rvars.size(), false);
    for (const analysis::TargetDim& t : kinds)
      if (t.kind == analysis::TargetDim::Kind::Follows) followed[t.rvar] = true;
    std::vector<std::size_t> order;
    for (std::size_t k = 0; k < r.rvars.size(); ++k)
      if (k == 0 || !followed[k] || followed.back()) order.push_back(k);
    for (std::size_t k = 1; k < r.rvars.size(); ++k)
      if (followed[k] && !followed.back()) order.push_back(k);
    return order;
  }

  // "gY innermost" where update_order moves variables inward, else empty.
  static std::string order_text(const Reduction& r, const std::vector<std::size_t>& order) {
    std::vector<std::string> moved;
    for (std::size_t i = 0; i < order.size(); ++i)
      if (i > order[i]) moved.push_back(r.rvars[order[i]]);
    if (moved.empty()) return "";
    std::string names;
    for (std::size_t i = 0; i < moved.size(); ++i)
      names += (i ? i + 1 == moved.size() ? " and " : ", " : "") + moved[i];
    return "; " + names +
           " innermost (each value updates points of its own, so consecutive updates hit "
           "distinct points and each point's updates keep their order)";
  }

  // The loops of the reduction variables over `ranges` around `body`, in
  // `order` (update_order), the outermost of kind `outer` over [`first`,
  // `last`] (its range when undefined).
  Stmt rdom_loops(const Reduction& r, const std::vector<Interval>& ranges, Stmt body, ForKind outer,
                  const std::vector<std::size_t>& order, const Expr& first = {},
                  const Expr& last = {}) const {
    for (std::size_t i = order.size(); i-- > 0;) {
      const std::size_t k = order[i];
      const bool top = i == 0;
      body = For::make(r.rvars[k], top && first.defined() ? first : ranges[k].lo,
                       top && last.defined() ? last : ranges[k].hi, top ? outer : ForKind::Serial,
                       body, 1, p_.loops.schedule);
    }
    return body;
  }

  // The definition's order: partial results cut the outermost variable
  // into chunks, each of which adds into a partial result of its own.
  static std::vector<std::size_t> identity_order(const Reduction& r) {
    std::vector<std::size_t> order(r.rvars.size());
    for (std::size_t k = 0; k < order.size(); ++k)
      order[k] = k;
    return order;
  }

  std::string rdom_text(const Reduction& r) const {
    std::string rdom;
    for (std::size_t k = 0; k < r.rvars.size(); ++k)
      rdom += (k ? ", " : "") + r.rvars[k] + " in [" + expr_text(r.rdom[k].lo) + ", " +
              expr_text(r.rdom[k].hi) + "]";
    return rdom;
  }

  // An initialization nest over the box, then the updates over the whole
  // reduction domain: in order, in parallel over disjoint points, or into
  // partial results (reduction_parallelism.h).
  Stmt reduction(const Reduction& r) const {
    const ReductionStrategy strategy =
        reduction_strategy(*p_.stage, r, p_.box, prover_, p_.loops.reassociate_float_sums);
    const bool parallel = p_.loops.parallel && strategy.kind != ReductionParallelism::Serial;
    const Stmt init = nest(0, r.init, !p_.loops.parallel, false);
    const std::string about = " over " + rdom_text(r) + ": " + strategy.reason;
    const std::vector<analysis::TargetDim> kinds =
        analysis::reduction_targets(*p_.stage, r, prover_);
    const std::vector<Interval> ranges = rdom_for_box(r, kinds);
    if (parallel && strategy.kind == ReductionParallelism::PartialResults) {
      if (strategy.reassociates) reassociated_sums_.push_back(p_.stage->name());
      return partial_results(r, init, about, kinds, ranges);
    }
    std::vector<Stmt> updates;
    const auto old = [&](const std::vector<Expr>& index) { return Access::make(p_.stage, index); };
    for (const ReductionUpdate& u : r.updates)
      updates.push_back(update(u, p_.buffer, {}, old, kinds));
    const ForKind outer = parallel ? ForKind::Parallel : ForKind::Serial;
    const std::vector<std::size_t> order = update_order(r, kinds);
    return Block::make(
        {Comment::make("initialization"), init,
         Comment::make("updates" +
                       (parallel
                            ? about
                            : " in order, serial" +
                                  (r.rvars.empty() ? std::string() : " over " + rdom_text(r))) +
                       order_text(r, order)),
         partition_update_loops(
             rdom_loops(r, ranges, Block::make(std::move(updates)), outer, order), prover_)});
  }

  // Each of kReductionChunks chunks of the outermost reduction variable
  // accumulates into its own partial result, in parallel; then the stage is
  // its initial value combined with the partial results, chunk by chunk.
  Stmt partial_results(const Reduction& r, const Stmt& init, const std::string& about,
                       const std::vector<analysis::TargetDim>& kinds,
                       const std::vector<Interval>& ranges) const {
    const Function& f = *p_.stage;
    const ReduceOp op = r.updates.front().op;
    const std::string chunk = let_name("chunk");
    std::vector<std::string> vars = {chunk};
    vars.insert(vars.end(), f.vars().begin(), f.vars().end());
    std::vector<Interval> domain = {
        Interval(Expr(0), Expr(static_cast<int>(kReductionChunks - 1)))};
    domain.insert(domain.end(), p_.box.begin(), p_.box.end());
    const auto partial =
        std::make_shared<Function>(p_.buffer + "_partial", f.type(), vars, domain, f.declared_at());
    const Expr c = VarRef::make(chunk);
    const auto at_chunk = [&](std::vector<Expr> index) {
      index.insert(index.begin(), c);
      return index;
    };
    // The chunk's part of the outermost variable: [lo + c*n/K, lo + (c+1)*n/K - 1].
    const Expr lo = ranges.front().lo;
    const Expr n = prover_.simplify(plus(sub(ranges.front().hi, ranges.front().lo), 1));
    const auto cut = [&](const Expr& k) {
      return prover_.simplify(add(lo, div_of(mul(as_i64(k), n), i64(kReductionChunks))));
    };
    std::vector<Stmt> updates;
    for (const ReductionUpdate& u : r.updates)
      updates.push_back(update(
          u, partial->name(), {c},
          [&](const std::vector<Expr>& index) { return Access::make(partial, at_chunk(index)); },
          kinds));
    const Stmt chunk_loop = For::make(
        chunk, Expr(0), Expr(static_cast<int>(kReductionChunks - 1)), ForKind::Parallel,
        Block::make({box_nest(Store::make(partial->name(), at_chunk(point()), identity(op)), false),
                     rdom_loops(r, ranges, Block::make(std::move(updates)), ForKind::Serial,
                                identity_order(r), cut(c),
                                prover_.simplify(plus(cut(add(c, Expr(1))), -1)))}),
        1, p_.loops.schedule); // partials per chunk, not per thread: any schedule gives one result
    const Stmt combined = box_nest(
        For::make(
            chunk, Expr(0), Expr(static_cast<int>(kReductionChunks - 1)), ForKind::Serial,
            Store::make(p_.buffer, point(),
                        Cast::make(f.type(), combine(op, Access::make(p_.stage, point()),
                                                     Access::make(partial, at_chunk(point())))))),
        true);
    std::vector<Expr> origin = {i64(0)}, extents = {i64(kReductionChunks)};
    for (const Interval& range : p_.box) {
      origin.push_back(prover_.simplify(range.lo));
      extents.push_back(prover_.simplify(plus(sub(range.hi, range.lo), 1)));
    }
    return Allocate::make(
        partial->name(), partial->name(), f.type(), origin, extents, MemoryScope::Heap, -1,
        Block::make({Comment::make("initialization"), init, Comment::make("updates" + about),
                     chunk_loop, Comment::make("the partial results, chunk by chunk"), combined}));
  }

  const Produce& p_;
  const analysis::BoundsProver& prover_;
  const std::set<std::string>& param_names_;
  std::vector<std::string>& reassociated_sums_;
};

// Replaces every Produce in a statement by its loops.
class ExpandProduces : public StmtMutator {
public:
  ExpandProduces(const LoweringState& state, std::vector<std::string>& reassociated_sums)
      : state_(state), reassociated_sums_(reassociated_sums) {}

protected:
  Stmt mutate_node(const Produce* node, const Stmt&) override {
    return StageLoops(*node, state_.prover, state_.param_names, reassociated_sums_).run();
  }

private:
  const LoweringState& state_;
  std::vector<std::string>& reassociated_sums_;
};

} // namespace

void stage_loops(GroupState& g, LoweringState& state) {
  for (TileNest& n : g.nests)
    n.nest = ExpandProduces(state, g.reassociated_sums).mutate(n.nest);
}

} // namespace trapeze::lower
