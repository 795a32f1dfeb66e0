// Computing stages k points at a time along a dimension read at x / k or
// tested on x % k (passes.h).
#include "analysis/bounds_prover.h"
#include "ir/ir_operators.h"
#include "lower/fold.h"
#include "lower/passes.h"
#include "trapeze/ir_visitor.h"

#include <algorithm>
#include <numeric>

namespace trapeze::lower {

using namespace ir;

namespace {

constexpr std::int64_t kLargestFactor = 8;

// The lcm of the divisors k of every `v % k` and `(v + c) / k` in `e` (v the
// variable `var` with coefficient 1 or -1) into `factor`; true if any.
bool lcm_of_divisors(const Expr& e, const std::string& var, std::int64_t& factor) {
  bool any = false;
  for_each_node(e, [&](const Expr& node) {
    const auto* b = node.as<Binary>();
    if (!b || (b->op != BinaryOp::Div && b->op != BinaryOp::Mod)) return;
    const auto* k = b->b.as<IntConst>();
    if (!k || k->value < 2 || k->value > kLargestFactor) return;
    const auto form = analysis::affine_form(b->a);
    if (!form) return;
    const auto term = form->terms.find("1" + var); // affine_form keys a variable "1" + name
    if (term == form->terms.end() || std::llabs(term->second.first) != 1) return;
    factor = std::lcm(factor, k->value);
    any = true;
  });
  return any;
}

// The factor k that fixes the `v % k` and `(v + c) / k` in `e` that the split
// makes cheaper, or 0 if there are none or their lcm exceeds kLargestFactor.
// Those are the ones in an index of a read at no data-dependent index (which
// then loads at unit stride, or once per k points) and in a select's
// condition (which the split decides). The split has a cost: along the
// vectorized dimension the stage's own-resolution reads and its stores run at
// stride k, interleaved by permutes; along an outer one, k rows are computed
// in one loop. A `v / k` in a gather's index (a gather either way) or a
// `v % k` in arithmetic (a few operations) does not pay for it:
// bilateral_grid's slicing, whose every `y / 8` and `x / 8` index a gather
// and whose `x % 8` and `y % 8` weigh, runs faster unsplit on AVX2
// (docs/performance.md, "On a Zen 3 guest").
std::int64_t parity_factor(const Expr& e, const std::string& var) {
  std::int64_t factor = 1;
  bool any = false;
  for_each_node(e, [&](const Expr& node) {
    if (const auto* a = node.as<Access>()) {
      if (std::none_of(a->args.begin(), a->args.end(), reads_memory))
        for (const Expr& arg : a->args)
          any = lcm_of_divisors(arg, var, factor) || any;
    } else if (const auto* s = node.as<Select>()) {
      any = lcm_of_divisors(s->cond, var, factor) || any;
    }
  });
  return any && factor <= kLargestFactor ? factor : 0;
}

// x = k * coarse + r, as an int32 expression.
Expr residue_point(std::int64_t k, const std::string& coarse, std::int64_t r) {
  const Expr group = Binary::make(BinaryOp::Mul, Expr(static_cast<int>(k)), VarRef::make(coarse));
  return r == 0 ? group : Binary::make(BinaryOp::Add, group, Expr(static_cast<int>(r)));
}

// Every expression of a statement with `var` replaced and folded.
class SubstituteVar : public StmtMutator {
public:
  SubstituteVar(std::string var, Expr value) : var_(std::move(var)), value_(std::move(value)) {}

protected:
  Expr mutate_expr(const Expr& e) override { return fold(substitute_vars(e, {{var_, value_}})); }

private:
  std::string var_;
  Expr value_;
};

// The Produces in a statement (the leaves partition_cases makes).
std::vector<const Produce*> produces_in(const Stmt& s) {
  struct Collect : StmtVisitor {
    std::vector<const Produce*> found;
    void visit_node(const Produce* p, const Stmt&) override { found.push_back(p); }
  } collect;
  collect.visit(s);
  return collect.found;
}

// `outer`: whether loops around the innermost dimension split as well. The
// rows before and after a loop's whole groups of k (at most k - 1 on each
// side) split along the innermost dimension only: splitting them along every
// dimension multiplied a 3-D up-sampling's loops by 4 in each outer
// dimension (90 innermost loops a nest in the 3-D multigrid cycles, 100 s of
// compiling on 2 cores) for rows that are a small share of the work.
class PartitionParity : public StmtMutator {
public:
  PartitionParity(LoweringState& state, bool outer) : state_(state), outer_(outer) {}

protected:
  // A loop of partition_cases over a stage's dimension d (its Produces have
  // the point [v, v] there): the whole groups of k rows run as one coarse
  // loop whose body is the k rows, each with v = k * coarse + r folded in.
  Stmt mutate_node(const For* f, const Stmt& self) override {
    if (!outer_) return StmtMutator::mutate_node(f, self);
    const std::vector<const Produce*> leaves = produces_in(f->body);
    std::int64_t k = 1;
    for (const Produce* p : leaves) {
      const auto& vars = p->stage->vars();
      if (p->reduction || std::find(vars.begin(), vars.end(), f->var) == vars.end())
        return StmtMutator::mutate_node(f, self);
      if (const std::int64_t factor = parity_factor(p->otherwise, f->var)) k = std::lcm(k, factor);
    }
    if (k == 1 || k > kLargestFactor) return StmtMutator::mutate_node(f, self);
    const std::string coarse = state_.names.fresh(f->var + "_coarse");
    const Expr end = plus(as_i64(f->max), 1);
    const Expr first = floor_div(plus(as_i64(f->min), k - 1), k);
    const Expr last = plus(floor_div(end, k), -1);
    const Expr main_lo = times(k, first);
    const Expr main_end = max_of(times(k, plus(last, 1)), main_lo);
    const Expr before_end = min_of(main_lo, end);
    const analysis::BoundsProver& prover = state_.prover;
    std::vector<Stmt> rows;
    for (std::int64_t r = 0; r < k; ++r)
      rows.push_back(mutate(SubstituteVar(f->var, residue_point(k, coarse, r)).mutate(f->body)));
    const Stmt body = PartitionParity(state_, false).mutate(f->body);
    const ForKind edge = is_vectorized(f->kind) ? ForKind::Vectorized : ForKind::Serial;
    const auto bound = [&](const Expr& e) { return prover.simplify(fold(e)); };
    // The first and last rows outside whole groups; none where provably so.
    const auto rows_outside = [&](const Expr& lo, const Expr& hi) {
      return prover.prove_le(plus(hi, 1), lo) ? Stmt() : For::make(f->var, lo, hi, edge, body);
    };
    return Block::make({rows_outside(f->min, bound(plus(before_end, -1))),
                        For::make(coarse, bound(first), bound(last), f->kind,
                                  Block::make(std::move(rows)), f->collapse, f->schedule),
                        rows_outside(bound(max_of(main_end, before_end)), f->max)});
  }

  Stmt mutate_node(const Produce* p, const Stmt& self) override {
    if (p->reduction || !p->cases.empty() || p->parity) return self;
    const auto single_point = [&](int d) {
      const Interval& range = p->box[static_cast<std::size_t>(d)];
      return ir::to_string(range.lo) == ir::to_string(range.hi); // no loop of its own
    };
    const auto var_of = [&](int d) -> const std::string& {
      return p->stage->vars()[static_cast<std::size_t>(d)];
    };
    std::vector<int> split;
    for (int d = 0; d < p->stage->dimensions(); ++d)
      if (!single_point(d) && parity_factor(p->otherwise, var_of(d)) > 0) split.push_back(d);
    // Two dimensions to split, the outer one the outermost loop: it becomes
    // a loop of rows (as partition_cases makes), split by mutate_node(For).
    if (outer_ && split.size() >= 2) {
      const int d0 = split.front();
      bool outermost = true;
      for (int d = 0; d < d0; ++d)
        outermost = outermost && single_point(d);
      if (outermost) {
        const Interval range = p->box[static_cast<std::size_t>(d0)];
        std::vector<Interval> row = p->box;
        row[static_cast<std::size_t>(d0)] =
            Interval(VarRef::make(var_of(d0)), VarRef::make(var_of(d0)));
        ProduceLoops loops = p->loops;
        const ForKind kind = loops.parallel ? ForKind::Parallel : ForKind::Serial;
        loops.parallel = false;
        return mutate(For::make(
            var_of(d0), range.lo, range.hi, kind,
            Produce::make(p->stage, p->buffer, row, {}, p->otherwise, std::nullopt, loops), 1,
            p->loops.schedule));
      }
    }
    // The innermost dimension that needs it: the one the loads run along.
    if (split.empty()) return self;
    const int d = split.back();
    const std::string& var = var_of(d);
    const std::int64_t k = parity_factor(p->otherwise, var);
    ProduceParity parity;
    parity.dim = d;
    parity.factor = k;
    parity.coarse = state_.names.fresh(var + "_coarse");
    for (std::int64_t r = 0; r < k; ++r)
      parity.values.push_back(
          fold(substitute_vars(p->otherwise, {{var, residue_point(k, parity.coarse, r)}})));
    return Produce::make(p->stage, p->buffer, p->box, {}, p->otherwise, std::nullopt, p->loops,
                         std::move(parity));
  }

private:
  LoweringState& state_;
  bool outer_;
};

} // namespace

void partition_parity(GroupState& g, LoweringState& state) {
  for (TileNest& n : g.nests)
    n.nest = PartitionParity(state, true).mutate(n.nest);
}

} // namespace trapeze::lower
