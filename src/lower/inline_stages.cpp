// Inlining stages into their readers, resolving cases by their boxes.
#include "lower/inline_stages.h"

#include "lower/passes.h"

#include "analysis/affine.h"
#include "analysis/case_region.h"
#include "trapeze/dsl.h"
#include "trapeze/error.h"
#include "trapeze/ir_visitor.h"

#include <optional>

namespace trapeze::lower {

using namespace ir;

namespace {

Expr i64(std::int64_t v) { return Expr(v); }
Expr add(const Expr& a, const Expr& b) { return Binary::make(BinaryOp::Add, a, b); }
Expr mul(const Expr& a, const Expr& b) { return Binary::make(BinaryOp::Mul, a, b); }
Expr to_int64(const Expr& e) {
  return e.type() == ScalarType::Int64 ? e : Cast::make(ScalarType::Int64, e);
}

// Where the points an index touches lie, relative to one interval.
enum class Placement : std::uint8_t { Inside, Outside, Unknown };

// The smallest and largest numerator of an affine index over the context
// (the index is floor(numerator / divisor)); nullopt if a variable has no range.
std::optional<Interval> numerator_range(const analysis::AffineIndex& index,
                                        const EvaluationContext& where) {
  Expr lo = i64(index.constant), hi = i64(index.constant);
  for (const auto& [name, coefficient] : index.params) {
    lo = add(lo, mul(i64(coefficient), ParamRef::make(name)));
    hi = add(hi, mul(i64(coefficient), ParamRef::make(name)));
  }
  for (const auto& [name, coefficient] : index.vars) {
    std::size_t k = 0;
    while (k < where.vars.size() && where.vars[k] != name)
      ++k;
    if (k == where.vars.size() || k >= where.ranges.size()) return std::nullopt;
    const Interval& range = where.ranges[k];
    lo = add(lo, mul(i64(coefficient), coefficient > 0 ? range.lo : range.hi));
    hi = add(hi, mul(i64(coefficient), coefficient > 0 ? range.hi : range.lo));
  }
  return Interval(lo, hi);
}

// Whether floor(N / d) for every N in `numerators` lies in [lo, hi], or none does.
Placement place(const Interval& numerators, std::int64_t d, const Interval& bounds,
                const analysis::BoundsProver& prover) {
  // floor(N/d) >= lo  <=>  N >= d*lo;   floor(N/d) <= hi  <=>  N <= d*hi + d - 1.
  const Expr first = mul(i64(d), bounds.lo);
  const Expr last = add(mul(i64(d), bounds.hi), i64(d - 1));
  if (prover.prove_le(first, numerators.lo) && prover.prove_le(numerators.hi, last))
    return Placement::Inside;
  if (prover.prove_le(add(last, i64(1)), numerators.lo) ||
      prover.prove_le(numerators.hi, add(first, i64(-1))))
    return Placement::Outside;
  return Placement::Unknown;
}

// Where the read's points lie relative to a box of the read stage.
Placement place_read(const std::vector<Expr>& args, const std::vector<Interval>& box,
                     const EvaluationContext& where, const analysis::BoundsProver& prover) {
  bool inside = true;
  for (std::size_t k = 0; k < args.size(); ++k) {
    const auto index = analysis::affine_index(args[k]);
    if (!index) {
      inside = false;
      continue;
    }
    const auto numerators = numerator_range(*index, where);
    if (!numerators) {
      inside = false;
      continue;
    }
    const Placement p = place(*numerators, index->divisor, box[k], prover);
    if (p == Placement::Outside) return Placement::Outside;
    inside = inside && p == Placement::Inside;
  }
  return inside ? Placement::Inside : Placement::Unknown;
}

// lo <= arg <= hi in every dimension, as a bool expression of the arguments.
Expr box_test(const std::vector<Expr>& args, const std::vector<Interval>& box,
              const analysis::BoundsProver& prover) {
  Expr test;
  for (std::size_t k = 0; k < args.size(); ++k) {
    const Expr a = to_int64(args[k]);
    const Expr in =
        Binary::make(BinaryOp::And, Binary::make(BinaryOp::LE, prover.simplify(box[k].lo), a),
                     Binary::make(BinaryOp::LE, a, prover.simplify(box[k].hi)));
    test = test.defined() ? Binary::make(BinaryOp::And, test, in) : in;
  }
  return test.defined() ? test : Expr(true);
}

using ReadRewrite = std::function<Expr(const Access&)>;

// Applies `read` to every read of a stage (innermost first); an undefined
// result keeps the read.
class ReadInliner : public ExprMutator {
public:
  explicit ReadInliner(const ReadRewrite& read) : read_(read) {}

protected:
  Expr mutate_node(const Access* node, const Expr& self) override {
    const Expr read = ExprMutator::mutate_node(node, self);
    const auto* access = read.as<Access>();
    if (!access->func) return read;
    const Expr inlined = read_(*access);
    return inlined.defined() ? inlined : read;
  }

private:
  const ReadRewrite& read_;
};

} // namespace

StageInliner::StageInliner(const std::vector<FunctionPtr>& inlined,
                           const analysis::BoundsProver& prover)
    : prover_(prover) {
  for (const FunctionPtr& f : inlined) {
    TRAPEZE_ASSERT(!f->definition().is_reduction(), "inlining a reduction: " + f->describe());
    stages_[f->name()] = f;
  }
  for (const FunctionPtr& f : inlined)
    prepare(f);
}

const StageInliner::Prepared& StageInliner::prepare(const FunctionPtr& f) {
  if (const auto it = prepared_.find(f->name()); it != prepared_.end()) return it->second;
  // Producers first: a definition refers only to stages already prepared.
  std::vector<FunctionPtr> reads;
  for_each_expr(f->definition(), [&](const Expr& e) {
    for_each_node(e, [&](const Expr& node) {
      const auto* a = node.as<Access>();
      if (a && a->func && stages_.count(a->func->name())) reads.push_back(a->func);
    });
  });
  for (const FunctionPtr& producer : reads)
    prepare(producer);

  Prepared p;
  p.stage = f;
  const EvaluationContext domain{f->vars(), f->domain()};
  const Definition& def = f->definition();
  const std::vector<analysis::CaseRegion> regions = analysis::case_regions(*f);
  for (std::size_t i = 0; i < def.cases.size(); ++i) {
    p.boxes.push_back(simplified(regions[i].box));
    p.residuals.push_back(regions[i].residual.defined() ? inline_reads(regions[i].residual, domain)
                                                        : regions[i].residual);
    // A case's value is only evaluated inside its box (see inline_reads).
    p.values.push_back(inline_reads(def.cases[i].value, {f->vars(), regions[i].box}));
  }
  p.otherwise =
      def.otherwise.defined() ? inline_reads(def.otherwise, domain) : constant(f->type(), 0);
  return prepared_.emplace(f->name(), std::move(p)).first->second;
}

Expr StageInliner::read_of(const Prepared& stage, const std::vector<Expr>& args,
                           const EvaluationContext& where) const {
  const Function& f = *stage.stage;
  std::vector<std::pair<std::string, Expr>> point;
  for (std::size_t k = 0; k < args.size(); ++k)
    point.emplace_back(f.vars()[k], args[k].type() == ScalarType::Int32
                                        ? args[k]
                                        : Cast::make(ScalarType::Int32, args[k]));
  const auto at_point = [&](const Expr& e) { return substitute_vars(e, point); };
  Expr value = at_point(stage.otherwise);
  for (std::size_t i = stage.values.size(); i-- > 0;) {
    const Placement placement = place_read(args, stage.boxes[i], where, prover_);
    if (placement == Placement::Outside) continue;
    const Expr v = at_point(stage.values[i]);
    const Expr& residual = stage.residuals[i];
    // Inside the box: the residual alone decides, and the value is safe to evaluate.
    Expr inside = residual.defined() ? Select::make(at_point(residual), v, value) : v;
    if (placement == Placement::Inside) {
      value = inside;
      continue;
    }
    // The box test only reads coordinates, so code generation keeps it lazy:
    // the value (which may read out of bounds outside the box) stays behind it.
    value = Select::make(box_test(args, stage.boxes[i], prover_), inside, value);
  }
  return value;
}

std::vector<Interval> StageInliner::simplified(const std::vector<Interval>& box) const {
  std::vector<Interval> out;
  for (const Interval& range : box)
    out.emplace_back(prover_.simplify(range.lo), prover_.simplify(range.hi));
  return out;
}

Expr StageInliner::inline_reads(const Expr& e, const EvaluationContext& context) const {
  if (stages_.empty()) return e;
  // Bounds in canonical form, so that the prover sees through min and max.
  const EvaluationContext where{context.vars, simplified(context.ranges)};
  const ReadRewrite read = [&](const Access& access) -> Expr {
    const auto it = prepared_.find(access.func->name());
    if (it == prepared_.end()) {
      TRAPEZE_ASSERT(!stages_.count(access.func->name()),
                     "an inlined stage read before it was prepared: " + access.func->name());
      return Expr();
    }
    return read_of(it->second, access.args, where);
  };
  return ReadInliner(read).mutate(e);
}

// The pass: each expression of a Produce rewritten in the context where it is
// evaluated (a case's value: its box; the rest: the stage's domain; the
// updates of a reduction: anywhere).
void inline_stages(GroupState& g, LoweringState& state) {
  const StageInliner& inliner = state.inliner;
  for (TileNest& n : g.nests) {
    const auto* p = n.nest.as<Produce>();
    TRAPEZE_ASSERT(p, "inline_stages runs on Produces");
    const Function& f = *p->stage;
    const EvaluationContext domain{f.vars(), f.domain()};
    std::vector<ProduceCase> cases;
    for (const ProduceCase& c : p->cases)
      cases.push_back({c.box,
                       c.residual.defined() ? inliner.inline_reads(c.residual, domain) : c.residual,
                       inliner.inline_reads(c.value, {f.vars(), c.box})});
    const Expr otherwise =
        p->otherwise.defined() ? inliner.inline_reads(p->otherwise, domain) : p->otherwise;
    std::optional<Reduction> reduction = p->reduction;
    if (reduction) {
      reduction->init = inliner.inline_reads(reduction->init, domain);
      for (ReductionUpdate& u : reduction->updates) {
        for (Expr& t : u.target)
          t = inliner.inline_reads(t, {});
        u.value = inliner.inline_reads(u.value, {});
      }
    }
    n.nest = Produce::make(p->stage, p->buffer, p->box, std::move(cases), otherwise,
                           std::move(reduction), p->loops);
  }
}

} // namespace trapeze::lower
