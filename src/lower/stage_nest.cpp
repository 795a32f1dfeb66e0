// One stage's loop nests over a box: case splitting, reductions, loop kinds.
#include "lower/stage_nest.h"

#include "analysis/case_region.h"
#include "trapeze/dsl.h"
#include "trapeze/ir_visitor.h"

#include <functional>
#include <optional>

namespace trapeze::lower {

using namespace ir;

namespace {

Expr add(const Expr& a, std::int64_t c) { return Binary::make(BinaryOp::Add, a, Expr(c)); }
Expr min_of(const Expr& a, const Expr& b) { return Binary::make(BinaryOp::Min, a, b); }
Expr max_of(const Expr& a, const Expr& b) { return Binary::make(BinaryOp::Max, a, b); }
Expr to_int64(const Expr& e) { return Cast::make(ScalarType::Int64, e); }

// A case still possible in the piece being split: its index and its residual
// condition (extended with the box test of any dimension that could not be split).
struct LiveCase {
  std::size_t index;
  Expr residual;
};

// Lowers one stage (all its loop nests) into Stores to the buffer `f.name()`.
class StageLowering {
public:
  StageLowering(const FunctionPtr& f, const StageNestOptions& options, const BoundsProver& prover,
                const std::set<std::string>& param_names)
      : f_(f), options_(options), prover_(prover), param_names_(param_names) {
    const std::vector<Interval>& box = options.box.empty() ? f->domain() : options.box;
    TRAPEZE_ASSERT(static_cast<int>(box.size()) == f->dimensions(),
                   "a box with the wrong number of dimensions for " + f->describe());
    TRAPEZE_ASSERT(options.box.empty() || !f->definition().is_reduction(),
                   "a reduction is lowered over its whole domain: " + f->describe());
    for (const Interval& range : box)
      box_.emplace_back(prover.simplify(range.lo), prover.simplify(range.hi));
  }

  Stmt lower() {
    const Definition& def = f_->definition();
    if (def.is_reduction()) return lower_reduction(*def.reduction);
    if (def.cases.empty()) return nest(0, rewrite(def.otherwise), !options_.allow_parallel);
    for (const auto& region : analysis::case_regions(*f_)) {
      std::vector<Interval> box;
      for (const Interval& range : region.box)
        box.emplace_back(prover_.simplify(range.lo), prover_.simplify(range.hi));
      boxes_.push_back(std::move(box));
      residuals_.push_back(region.residual.defined() ? rewrite(region.residual) : region.residual);
    }
    std::vector<LiveCase> live;
    for (std::size_t i = 0; i < def.cases.size(); ++i)
      live.push_back({i, residuals_[i]});
    return split(0, live, !options_.allow_parallel);
  }

private:
  const std::string& target() const {
    return options_.buffer.empty() ? f_->name() : options_.buffer;
  }

  // `e` with the inlined stages substituted, for points of `where` (stage
  // variables; empty: unknown, as for the reduction variables of an update).
  Expr rewrite(const Expr& e, const std::vector<Interval>& where) const {
    return options_.inliner ? options_.inliner->inline_reads(e, {f_->vars(), where}) : e;
  }
  Expr rewrite(const Expr& e) const { return rewrite(e, f_->domain()); }

  int dims() const { return f_->dimensions(); }

  Expr var(int d) const { return VarRef::make(f_->vars()[static_cast<std::size_t>(d)]); }

  std::vector<Expr> point() const {
    std::vector<Expr> index;
    for (int d = 0; d < dims(); ++d)
      index.push_back(var(d));
    return index;
  }

  Expr default_value() const {
    const Expr& e = f_->definition().otherwise;
    return e.defined() ? rewrite(e) : constant(f_->type(), 0);
  }

  // The loop over dimension d of the stage. The outermost loop that has more
  // than one iteration is parallel (a single channel hands parallelism to the
  // loop below it); the innermost one is vectorized.
  Stmt loop(int d, const Expr& lo, const Expr& hi, bool parallel_above,
            const std::function<Stmt(bool)>& body_of) const {
    const bool inner = d == dims() - 1;
    const auto span = prover_.constant_difference(lo, hi);
    // An innermost loop is parallel only in a one-dimensional stage: a single
    // border row is not worth a parallel region.
    const bool parallel = !parallel_above && (inner ? d == 0 : !span || *span > 0);
    Stmt body = body_of(parallel_above || parallel);
    ForKind kind = ForKind::Serial;
    int collapse = 1;
    if (parallel && inner) {
      kind = options_.vectorize ? ForKind::ParallelVectorized : ForKind::Parallel;
    } else if (inner && options_.vectorize) {
      kind = ForKind::Vectorized;
    } else if (parallel) {
      kind = ForKind::Parallel;
      // A few channels: share the rows below them between the threads too.
      if (span && d + 2 < dims() && body.as<For>()) collapse = 2;
    }
    return For::make(f_->vars()[static_cast<std::size_t>(d)], lo, hi, kind, std::move(body),
                     collapse);
  }

  // A nest over dimensions d.. of the box storing `value`.
  Stmt nest(int d, const Expr& value, bool parallel_above = false) const {
    if (d == dims()) return Store::make(target(), point(), value);
    const Interval& range = box_[static_cast<std::size_t>(d)];
    return loop(d, range.lo, range.hi, parallel_above,
                [&](bool parallel) { return nest(d + 1, value, parallel); });
  }

  Expr chain(const std::vector<LiveCase>& live) const {
    Expr value = default_value();
    for (auto it = live.rbegin(); it != live.rend(); ++it) {
      // A case's value is evaluated only inside its box (split, or behind its test).
      const Expr v = rewrite(f_->definition().cases[it->index].value, boxes_[it->index]);
      value = it->residual.defined() ? Select::make(it->residual, v, value) : v;
    }
    return value;
  }

  // Inserts `cut` into the sorted list if its place is proven; returns its
  // position (an existing equal cut is reused) or nullopt.
  std::optional<std::size_t> insert_cut(std::vector<Expr>& cuts, const Expr& cut) const {
    for (std::size_t p = 0; p < cuts.size(); ++p) {
      if (prover_.prove_le(cuts[p], cut) && prover_.prove_le(cut, cuts[p])) return p;
    }
    for (std::size_t p = 1; p < cuts.size(); ++p) {
      if (prover_.prove_le(cuts[p - 1], cut) && prover_.prove_le(cut, cuts[p])) {
        cuts.insert(cuts.begin() + static_cast<std::ptrdiff_t>(p), cut);
        return p;
      }
    }
    return std::nullopt;
  }

  // Splits dimension d at the boundaries of the live cases' boxes; recurses
  // into d+1 inside each piece with the cases that cover it.
  Stmt split(int d, const std::vector<LiveCase>& live, bool parallel_above = false) const {
    if (d == dims()) return Store::make(target(), point(), chain(live));
    if (live.empty()) return nest(d, default_value(), parallel_above);
    const Interval& range = box_[static_cast<std::size_t>(d)];
    const Expr end = prover_.simplify(add(range.hi, 1));
    std::vector<Expr> cuts = {range.lo, end};
    // Each case's [start, stop) in this dimension, clamped into the range
    // (monotone, so an empty box stays empty), as cut expressions.
    struct Span {
      Expr start, stop;
      bool split = false;
    };
    std::vector<Span> spans;
    for (const LiveCase& c : live) {
      const Interval& b = boxes_[c.index][static_cast<std::size_t>(d)];
      const Expr stop = max_of(add(b.hi, 1), b.lo);
      Span s{prover_.simplify(min_of(max_of(b.lo, range.lo), end)),
             prover_.simplify(min_of(max_of(stop, range.lo), end))};
      std::vector<Expr> trial = cuts;
      if (insert_cut(trial, s.start) && insert_cut(trial, s.stop)) {
        cuts = std::move(trial);
        s.split = true;
      }
      spans.push_back(std::move(s));
    }
    // A single case whose box cannot be ordered against the range (inside a
    // tile the range's bounds are the tile's): cut at its start and stop
    // clamped into the range, which are ordered by construction, so the case
    // runs on its own piece without a per-point test (its value may read out
    // of bounds outside its box).
    if (live.size() == 1 && !spans[0].split) {
      std::vector<Stmt> pieces;
      const Expr bounds[] = {range.lo, spans[0].start, spans[0].stop, end};
      for (std::size_t m = 0; m < 3; ++m) {
        const std::vector<LiveCase> inside = m == 1 ? live : std::vector<LiveCase>{};
        pieces.push_back(loop(d, bounds[m], prover_.simplify(add(bounds[m + 1], -1)),
                              parallel_above,
                              [&](bool parallel) { return split(d + 1, inside, parallel); }));
      }
      return Block::make(std::move(pieces));
    }
    const auto position = [&](const Expr& cut) {
      for (std::size_t p = 0; p < cuts.size(); ++p)
        if (prover_.prove_le(cuts[p], cut) && prover_.prove_le(cut, cuts[p])) return p;
      TRAPEZE_ASSERT(false, "a cut disappeared: " + ir::to_string(cut));
    };
    std::vector<Stmt> pieces;
    for (std::size_t m = 0; m + 1 < cuts.size(); ++m) {
      std::vector<LiveCase> inside;
      for (std::size_t i = 0; i < live.size(); ++i) {
        const Span& s = spans[i];
        if (!s.split) {
          // Unordered boundaries: keep the case with its box test of this dimension.
          const Interval& b = boxes_[live[i].index][static_cast<std::size_t>(d)];
          const Expr test = Binary::make(BinaryOp::And, Binary::make(BinaryOp::LE, b.lo, var(d)),
                                         Binary::make(BinaryOp::LE, var(d), b.hi));
          inside.push_back({live[i].index, live[i].residual.defined()
                                               ? Binary::make(BinaryOp::And, test, live[i].residual)
                                               : test});
        } else if (position(s.start) <= m && m + 1 <= position(s.stop)) {
          inside.push_back(live[i]);
        }
      }
      const Expr hi = prover_.simplify(add(cuts[m + 1], -1));
      pieces.push_back(loop(d, cuts[m], hi, parallel_above,
                            [&](bool parallel) { return split(d + 1, inside, parallel); }));
    }
    return Block::make(std::move(pieces));
  }

  std::string let_name(const std::string& base) const {
    std::string name = base;
    while (param_names_.count(name))
      name += "_";
    return name;
  }

  Stmt lower_reduction(const Reduction& r) const {
    std::vector<Stmt> updates;
    for (const ReductionUpdate& u : r.updates) {
      // Clamp the target into the domain (function.h), once per update.
      std::vector<std::pair<std::string, Expr>> targets;
      std::vector<Expr> index;
      for (int d = 0; d < dims(); ++d) {
        const Interval& range = box_[static_cast<std::size_t>(d)];
        const Expr t = rewrite(u.target[static_cast<std::size_t>(d)], {});
        const std::string name = let_name(f_->vars()[static_cast<std::size_t>(d)]);
        targets.emplace_back(name, min_of(max_of(to_int64(t), range.lo), range.hi));
        index.push_back(let_ref(name, ScalarType::Int64));
      }
      const Expr old = Access::make(f_, index);
      const Expr value = rewrite(u.value, {});
      Expr combined;
      switch (u.op) {
      case ReduceOp::Sum: combined = Binary::make(BinaryOp::Add, old, value); break;
      case ReduceOp::Min: combined = Binary::make(BinaryOp::Min, old, value); break;
      case ReduceOp::Max: combined = Binary::make(BinaryOp::Max, old, value); break;
      }
      Stmt s = Store::make(target(), index, Cast::make(f_->type(), combined));
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
    return Block::make({Comment::make("initialization"),
                        nest(0, rewrite(r.init), !options_.allow_parallel),
                        Comment::make("updates in order, serial" +
                                      (rdom.empty() ? std::string() : " over " + rdom)),
                        body});
  }

  FunctionPtr f_;
  const StageNestOptions& options_;
  const BoundsProver& prover_;
  const std::set<std::string>& param_names_;
  std::vector<Interval> box_;
  std::vector<std::vector<Interval>> boxes_;
  std::vector<Expr> residuals_;
};

} // namespace

Stmt lower_stage(const FunctionPtr& f, const StageNestOptions& options, const BoundsProver& prover,
                 const std::set<std::string>& param_names) {
  return StageLowering(f, options, prover, param_names).lower();
}

std::string stage_kind_text(const Function& f) {
  const Definition& def = f.definition();
  if (def.is_reduction()) return "reduction";
  if (def.cases.empty()) return "pure";
  const std::size_t n = def.cases.size();
  return std::to_string(n) + (n == 1 ? " case" : " cases") + " + default";
}

std::vector<Interval> simplified_domain(const Function& f, const BoundsProver& prover) {
  std::vector<Interval> out;
  for (const Interval& range : f.domain())
    out.emplace_back(prover.simplify(range.lo), prover.simplify(range.hi));
  return out;
}

std::string box_text(const std::vector<Interval>& box) {
  std::string s;
  for (std::size_t d = 0; d < box.size(); ++d)
    s += (d ? " x [" : "[") + expr_text(box[d].lo) + ", " + expr_text(box[d].hi) + "]";
  return s;
}

} // namespace trapeze::lower
