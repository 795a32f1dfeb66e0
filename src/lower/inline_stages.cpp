// Inlining stages into their readers, resolving cases by their boxes.
#include "lower/inline_stages.h"

#include "lower/clamp_indices.h"
#include "lower/passes.h"

#include "analysis/affine.h"
#include "analysis/case_region.h"
#include "ir/ir_operators.h"
#include "trapeze/dsl.h"
#include "trapeze/error.h"
#include "trapeze/ir_visitor.h"

#include <cstdlib>
#include <functional>
#include <optional>
#include <set>
#include <unordered_set>

namespace trapeze::lower {

using namespace ir;

namespace {

// Where the points an index touches lie, relative to one interval.
enum class Placement : std::uint8_t { Inside, Outside, Unknown };

// The part of an affine index's numerator without variables: its constant
// plus its parameter terms.
Expr parameter_part(const analysis::AffineIndex& index) {
  Expr e = i64(index.constant);
  for (const auto& [name, coefficient] : index.params)
    e = add(e, mul(i64(coefficient), ParamRef::make(name)));
  return e;
}

// The position of `var` among the context's variables; vars.size() if absent.
std::size_t position_of(const std::string& var, const EvaluationContext& where) {
  std::size_t k = 0;
  while (k < where.vars.size() && where.vars[k] != var)
    ++k;
  return k;
}

// The numerators N with floor(N / d) in `bounds`: [d*lo, d*hi + d - 1].
Interval numerators_in(const Interval& bounds, std::int64_t d) {
  return Interval(mul(i64(d), bounds.lo), add(mul(i64(d), bounds.hi), i64(d - 1)));
}

// The smallest and largest numerator of an affine index over the context
// (the index is floor(numerator / divisor)); nullopt if a variable has no range.
std::optional<Interval> numerator_range(const analysis::AffineIndex& index,
                                        const EvaluationContext& where) {
  Expr lo = parameter_part(index), hi = lo;
  for (const auto& [name, coefficient] : index.vars) {
    const std::size_t k = position_of(name, where);
    if (k >= where.vars.size() || k >= where.ranges.size()) return std::nullopt;
    const Interval& range = where.ranges[k];
    lo = add(lo, mul(i64(coefficient), coefficient > 0 ? range.lo : range.hi));
    hi = add(hi, mul(i64(coefficient), coefficient > 0 ? range.hi : range.lo));
  }
  return Interval(lo, hi);
}

// Whether floor(N / d) for every N in `numerators` lies in [lo, hi], or none does.
Placement place(const Interval& numerators, std::int64_t d, const Interval& bounds,
                const analysis::BoundsProver& prover) {
  const Interval in = numerators_in(bounds, d);
  if (prover.prove_le(in.lo, numerators.lo) && prover.prove_le(numerators.hi, in.hi))
    return Placement::Inside;
  if (prover.prove_le(add(in.hi, i64(1)), numerators.lo) ||
      prover.prove_le(numerators.hi, add(in.lo, i64(-1))))
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
    const Expr a = as_i64(args[k]);
    const Expr in =
        Binary::make(BinaryOp::And, Binary::make(BinaryOp::LE, prover.simplify(box[k].lo), a),
                     Binary::make(BinaryOp::LE, a, prover.simplify(box[k].hi)));
    test = test.defined() ? Binary::make(BinaryOp::And, test, in) : in;
  }
  return test.defined() ? test : Expr(true);
}

// For a read whose indices mix one outer variable with others of known range
// (a histogram's 8 * gX - 4 + rx, rx in [0, 8]): a test of the outer
// variables alone, true only where every index lies in `box` whatever the
// others are, so that a compiler can hoist it out of their loops. Undefined
// if no index has such other variables (the read's own box test is then as
// good), or if an index is not affine or a range is unknown.
Expr outer_box_test(const std::vector<Expr>& args, const std::vector<Interval>& box,
                    const EvaluationContext& where, const analysis::BoundsProver& prover) {
  Expr test;
  bool mixed = false;
  for (std::size_t k = 0; k < args.size(); ++k) {
    const auto index = analysis::affine_index(args[k]);
    if (!index) return Expr();
    Expr lo, hi;
    if (index->vars.size() <= 1) {
      lo = hi = as_i64(args[k]);
    } else {
      mixed = true;
      // The outer variable: the largest coefficient; the others over their ranges.
      std::size_t outer = 0;
      for (std::size_t v = 1; v < index->vars.size(); ++v)
        if (std::llabs(index->vars[v].second) > std::llabs(index->vars[outer].second)) outer = v;
      Expr numerator = parameter_part(*index);
      numerator = add(numerator, mul(i64(index->vars[outer].second),
                                     as_i64(VarRef::make(index->vars[outer].first))));
      Expr low = numerator, high = numerator;
      for (std::size_t v = 0; v < index->vars.size(); ++v) {
        if (v == outer) continue;
        const auto& [name, coefficient] = index->vars[v];
        const std::size_t at = position_of(name, where);
        if (at >= where.vars.size() || at >= where.ranges.size()) return Expr();
        const Interval& range = where.ranges[at];
        low = add(low, mul(i64(coefficient), coefficient > 0 ? range.lo : range.hi));
        high = add(high, mul(i64(coefficient), coefficient > 0 ? range.hi : range.lo));
      }
      lo = prover.simplify(ir::floor_div(low, index->divisor));
      hi = prover.simplify(ir::floor_div(high, index->divisor));
    }
    const Expr in = and_of(le(prover.simplify(box[k].lo), lo), le(hi, prover.simplify(box[k].hi)));
    test = test.defined() ? and_of(test, in) : in;
  }
  return mixed ? test : Expr();
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

  const Definition& def = f->definition();
  const std::vector<analysis::CaseRegion> regions = analysis::case_regions(*f);
  CasedDefinition raw;
  // Its data-dependent indices clamped first, as the clamp_indices pass does
  // for the readers: once inlined, an index may no longer read memory.
  const auto clamped = [&](const Expr& e) { return clamp_data_dependent_indices(e, prover_); };
  for (std::size_t i = 0; i < def.cases.size(); ++i)
    raw.cases.push_back(
        {regions[i].box, clamped(regions[i].residual), clamped(def.cases[i].value)});
  raw.otherwise = def.otherwise.defined() ? clamped(def.otherwise) : constant(f->type(), 0);
  Prepared p{f, {}, {}};
  p.def = split_definition(f->vars(), f->domain(), raw, kMaxCases, p.split);
  // Where the pieces are not the own cases: those, unsplit.
  if (p.split) {
    bool unsplit = false;
    p.general = split_definition(f->vars(), f->domain(), raw, 0, unsplit);
  }
  // One case without a residual, as a boundary condition's own: where the
  // source's cases split it, a later piece's value holds only outside the
  // earlier pieces, so no read may skip their tests.
  const auto everywhere = [&](const CasedDefinition& d) {
    return def.boundary && def.boundary->condition != "constant_exterior" && d.cases.size() == 1 &&
           !d.cases[0].residual.defined();
  };
  p.default_everywhere = everywhere(p.def);
  p.general_default_everywhere = everywhere(p.general);
  for (CasedDefinition* d : {&p.def, &p.general})
    for (ProduceCase& c : d->cases)
      c.box = simplified(c.box);
  return prepared_.emplace(f->name(), std::move(p)).first->second;
}

CasedDefinition StageInliner::inline_definition(const std::vector<std::string>& vars,
                                                const std::vector<Interval>& domain,
                                                const CasedDefinition& def) const {
  bool split = false;
  return split_definition(vars, domain, def, kMaxCases, split);
}

CasedDefinition StageInliner::split_definition(const std::vector<std::string>& vars,
                                               const std::vector<Interval>& domain,
                                               const CasedDefinition& def, std::size_t max_cases,
                                               bool& split) const {
  split = false;
  CasedDefinition out;
  // One case (or the otherwise: no residual, appended after every case, which
  // keeps first-match order) split while a read in its value can split it.
  // The part where a read's case holds is split again by the other reads
  // before the rest is, so the piece where every read resolves (a stencil's
  // interior) comes first. A case is reached only outside the boxes of the
  // earlier cases that have no residual and of the parts split off before it.
  // Each pending split will add a case, so `depth` counts toward the budget
  // and bounds the recursion.
  std::vector<Box> earlier;
  std::function<void(const ProduceCase&, std::vector<Box>, bool, std::size_t)> add =
      [&](const ProduceCase& c, std::vector<Box> before, bool is_otherwise, std::size_t depth) {
        while (true) {
          const Place place{{vars, simplified(c.box)}, before};
          // A piece no point reaches (its box covered by the parts before it).
          if (!is_otherwise && !before.empty() && excluded(place.where.ranges, place)) return;
          const std::optional<Box> part =
              out.cases.size() + depth + 1 < max_cases ? find_split(c.value, place) : std::nullopt;
          if (!part) {
            const Expr value = inline_reads_at(c.value, place);
            if (is_otherwise) {
              out.otherwise = value;
            } else {
              out.cases.push_back(
                  {c.box, c.residual.defined() ? inline_reads_at(c.residual, place) : c.residual,
                   value});
            }
            return;
          }
          // The part where the read's case holds: there the read resolves to it.
          split = true;
          add({intersect(place.where.ranges, *part), c.residual, c.value}, before, false,
              depth + 1);
          // The rest reaches this case only outside that part.
          before.push_back(*part);
        }
      };
  for (const ProduceCase& c : def.cases) {
    add(c, earlier, false, 0);
    if (!c.residual.defined()) earlier.push_back(simplified(c.box));
  }
  add({domain, Expr(), def.otherwise}, earlier, true, 0);
  return out;
}

std::optional<StageInliner::Box> StageInliner::find_split(const Expr& e, const Place& place) const {
  std::optional<Box> split;
  for_each_node(e, [&](const Expr& node) {
    const auto* a = node.as<Access>();
    if (split || !a || !a->func) return;
    const auto it = prepared_.find(a->func->name());
    if (it == prepared_.end()) return;
    for (const ProduceCase& c : it->second.def.cases) {
      if (place_read(a->args, c.box, place.where, prover_) != Placement::Unknown) continue;
      std::optional<Box> part = read_box(a->args, c.box, place.where);
      if (part && !excluded(*part, place)) {
        split = std::move(part);
        return;
      }
    }
  });
  return split;
}

std::optional<StageInliner::Box> StageInliner::read_box(const std::vector<Expr>& args,
                                                        const Box& box,
                                                        const EvaluationContext& where) const {
  if (where.ranges.size() != where.vars.size()) return std::nullopt;
  Box part = where.ranges;
  std::vector<bool> used(where.vars.size(), false);
  for (std::size_t k = 0; k < args.size(); ++k) {
    const auto index = analysis::affine_index(args[k]);
    if (!index) return std::nullopt;
    // An index of no variable constrains no variable, if it lies in the box.
    if (index->vars.empty()) {
      const auto numerators = numerator_range(*index, where);
      if (numerators && place(*numerators, index->divisor, box[k], prover_) == Placement::Inside)
        continue;
      return std::nullopt;
    }
    // (A group aligns only positive scalings: no fused read has a < 0.)
    if (index->vars.size() != 1 || index->vars[0].second < 1) return std::nullopt;
    const auto& [var, a] = index->vars[0];
    const std::size_t v = position_of(var, where);
    if (v == where.vars.size() || used[v]) return std::nullopt;
    used[v] = true;
    // floor((a*var + rest) / d) in [lo, hi]  <=>  a*var + rest in [N0, N1] =
    // numerators_in([lo, hi], d)  <=>  var in [ceil((N0 - rest) / a),
    // floor((N1 - rest) / a)] (a > 1: a read at a stride, as down-sampling's).
    const Expr rest = parameter_part(*index);
    const Interval in = numerators_in(box[k], index->divisor);
    part[v] = Interval(prover_.simplify(ir::ceil_div(sub(in.lo, rest), a)),
                       prover_.simplify(ir::floor_div(sub(in.hi, rest), a)));
  }
  return intersect(where.ranges, part);
}

bool StageInliner::excluded(const Box& read, const Place& place) const {
  // The points in question: read's box within place's, each bound kept as
  // the two candidates (whichever the prover can use).
  Bounds r(read.size());
  for (std::size_t d = 0; d < read.size(); ++d) {
    r[d].los = {read[d].lo};
    r[d].his = {read[d].hi};
    if (d < place.where.ranges.size()) {
      r[d].los.push_back(place.where.ranges[d].lo);
      r[d].his.push_back(place.where.ranges[d].hi);
    }
  }
  // Peeling branches over boxes and ends: a budget of steps bounds the search
  // (past it the answer is "not covered", which only keeps a test).
  int budget = kMaxCoverSteps;
  return covered(r, place.excluded, place.excluded.size(), budget);
}

bool StageInliner::covered(const Bounds& r, const std::vector<Box>& boxes, std::size_t depth,
                           int& budget) const {
  if (budget-- <= 0) return false;
  const auto le_any = [&](const Expr& a, const std::vector<Expr>& bs) {
    for (const Expr& b : bs)
      if (prover_.prove_le(a, b)) return true;
    return false;
  };
  const auto any_le = [&](const std::vector<Expr>& as, const Expr& b) {
    for (const Expr& a : as)
      if (prover_.prove_le(a, b)) return true;
    return false;
  };
  // Along d, e covers r's range (both ends).
  const auto spans = [&](const Box& e, std::size_t d) {
    return le_any(e[d].lo, r[d].los) && any_le(r[d].his, e[d].hi);
  };
  // An empty rest (lo > hi along some dimension) is covered too.
  for (std::size_t d = 0; d < r.size(); ++d)
    for (const Expr& lo : r[d].los)
      if (any_le(r[d].his, prover_.simplify(plus(lo, -1)))) return true;
  for (const Box& e : boxes) {
    bool all = true;
    for (std::size_t d = 0; all && d < r.size(); ++d)
      all = spans(e, d);
    if (all) return true;
  }
  if (depth == 0) return false;
  // A box that covers r along every dimension but d, and a prefix or suffix
  // of it along d, is peeled off; the rest must be covered by the others
  // (boundary strips around an interior, first-match cases in a row).
  for (const Box& e : boxes) {
    for (std::size_t d = 0; d < r.size(); ++d) {
      bool others = true;
      for (std::size_t o = 0; others && o < r.size(); ++o)
        others = o == d || spans(e, o);
      if (!others) continue;
      if (le_any(e[d].lo, r[d].los)) {
        Bounds rest = r;
        rest[d].los = {prover_.simplify(plus(e[d].hi, 1))};
        if (covered(rest, boxes, depth - 1, budget)) return true;
      }
      if (any_le(r[d].his, e[d].hi)) {
        Bounds rest = r;
        rest[d].his = {prover_.simplify(plus(e[d].lo, -1))};
        if (covered(rest, boxes, depth - 1, budget)) return true;
      }
    }
  }
  return false;
}

StageInliner::Box StageInliner::intersect(const Box& a, const Box& b) const {
  Box out;
  for (std::size_t d = 0; d < a.size(); ++d) {
    const Expr lo = prover_.prove_le(a[d].lo, b[d].lo)   ? b[d].lo
                    : prover_.prove_le(b[d].lo, a[d].lo) ? a[d].lo
                                                         : max_of(a[d].lo, b[d].lo);
    const Expr hi = prover_.prove_le(a[d].hi, b[d].hi)   ? a[d].hi
                    : prover_.prove_le(b[d].hi, a[d].hi) ? b[d].hi
                                                         : min_of(a[d].hi, b[d].hi);
    out.emplace_back(prover_.simplify(lo), prover_.simplify(hi));
  }
  return out;
}

Expr StageInliner::read_of(const Prepared& stage, const std::vector<Expr>& args,
                           const Place& place) const {
  const Function& f = *stage.stage;
  bool placed = true;
  const Expr pieces = read_of_cases(f, stage.def, stage.default_everywhere, args, place,
                                    stage.split ? &placed : nullptr);
  if (placed) return pieces;
  return read_of_cases(f, stage.general, stage.general_default_everywhere, args, place, nullptr);
}

Expr StageInliner::read_of_cases(const Function& f, const CasedDefinition& def,
                                 bool default_everywhere, const std::vector<Expr>& args,
                                 const Place& place, bool* placed) const {
  std::vector<std::pair<std::string, Expr>> point;
  for (std::size_t k = 0; k < args.size(); ++k)
    point.emplace_back(f.vars()[k], args[k].type() == ScalarType::Int32
                                        ? args[k]
                                        : Cast::make(ScalarType::Int32, args[k]));
  const auto at_point = [&](const Expr& e) { return substitute_vars(e, point); };
  const std::vector<ProduceCase>& cases = def.cases;
  Expr value = at_point(def.otherwise);
  for (std::size_t i = cases.size(); i-- > 0;) {
    const Placement placement = place_read(args, cases[i].box, place.where, prover_);
    if (placement == Placement::Outside) continue;
    if (placement == Placement::Unknown) {
      const std::optional<Box> part = read_box(args, cases[i].box, place.where);
      if (part && excluded(*part, place)) continue;
      if (default_everywhere) {
        // The default reads the same: no box test, only a cheaper direct
        // read where a test of the outer variables shows the read inside.
        const Expr outer = outer_box_test(args, cases[i].box, place.where, prover_);
        if (outer.defined() && !cases[i].residual.defined())
          value = Select::make(outer, at_point(cases[i].value), value);
        continue;
      }
      if (placed) {
        *placed = false;
        return Expr(); // the caller reads the stage's own cases instead
      }
    }
    const Expr v = at_point(cases[i].value);
    const Expr& residual = cases[i].residual;
    // Inside the box: the residual alone decides, and the value is safe to evaluate.
    Expr inside = residual.defined() ? Select::make(at_point(residual), v, value) : v;
    if (placement == Placement::Inside) {
      value = inside;
      continue;
    }
    // The box test only reads coordinates, so code generation keeps it lazy:
    // the value (which may read out of bounds outside the box) stays behind it.
    value = Select::make(box_test(args, cases[i].box, prover_), inside, value);
  }
  return value;
}

StageInliner::Box StageInliner::simplified(const Box& box) const {
  Box out;
  for (const Interval& range : box)
    out.emplace_back(prover_.simplify(range.lo), prover_.simplify(range.hi));
  return out;
}

Expr StageInliner::inline_reads(const Expr& e, const EvaluationContext& context) const {
  return inline_reads_at(e, {context, {}});
}

Expr StageInliner::inline_reads_at(const Expr& e, const Place& place) const {
  if (stages_.empty()) return e;
  // Bounds in canonical form, so that the prover sees through min and max.
  const Place at{{place.where.vars, simplified(place.where.ranges)}, place.excluded};
  const ReadRewrite read = [&](const Access& access) -> Expr {
    const auto it = prepared_.find(access.func->name());
    if (it == prepared_.end()) {
      TRAPEZE_ASSERT(!stages_.count(access.func->name()),
                     "an inlined stage read before it was prepared: " + access.func->name());
      return Expr();
    }
    return read_of(it->second, access.args, at);
  };
  return canonical_.canonical(ReadInliner(read).mutate(e));
}

namespace {

// The inlined stages a Produce reads, directly or through one another, the
// nearest first.
std::vector<std::string> inlined_reads(const Produce& p, const StageInliner& inliner) {
  std::vector<std::string> found;
  std::set<std::string> seen;
  std::vector<const Function*> pending{p.stage.get()};
  for (std::size_t next = 0; next < pending.size(); ++next) {
    for_each_expr(pending[next]->definition(), [&](const Expr& e) {
      for_each_node(e, [&](const Expr& node) {
        const auto* a = node.as<Access>();
        if (!a || !a->func || !inliner.inlines(a->func->name())) return;
        if (!seen.insert(a->func->name()).second) return;
        found.push_back(a->func->name());
        pending.push_back(a->func.get());
      });
    });
  }
  return found;
}

// A schedule that inlines too much is refused here, where the stages are
// known, rather than left to a compile that takes minutes or never ends.
void check_inlined_size(const Produce& p, const std::vector<ProduceCase>& cases,
                        const Expr& otherwise, const StageInliner& inliner) {
  std::unordered_set<const ExprNode*> seen;
  std::size_t values = 0;
  const auto count = [&](const Expr& e) {
    if (!e.defined()) return;
    for_each_node(e, [&](const Expr& node) { values += seen.insert(node.get()).second ? 1 : 0; });
  };
  for (const ProduceCase& c : cases) {
    count(c.value);
    count(c.residual);
  }
  count(otherwise);
  if (values <= kMaxInlinedValues) return;
  const std::vector<std::string> inlined = inlined_reads(p, inliner);
  std::string names;
  for (const std::string& name : inlined)
    names += (names.empty() ? "" : ", ") + name;
  throw Error("the schedule inlines " + names + " into stage '" + p.stage->name() + "', whose " +
              "definition becomes " + std::to_string(values) + " distinct values (at most " +
              std::to_string(kMaxInlinedValues) + "; compiling it would take minutes): give " +
              "one of them storage \"scratchpad\" or \"full\" so that it is computed once");
}

} // namespace

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
    std::vector<ProduceCase> cases = p->cases;
    Expr otherwise = p->otherwise;
    if (otherwise.defined()) {
      CasedDefinition def = inliner.inline_definition(f.vars(), f.domain(), {cases, otherwise});
      cases = std::move(def.cases);
      otherwise = std::move(def.otherwise);
    }
    std::optional<Reduction> reduction = p->reduction;
    if (reduction) {
      reduction->init = inliner.inline_reads(reduction->init, domain);
      // The updates run over the reduction domain (the stage's own ranges,
      // valid in every tile).
      const Reduction& own = *f.definition().reduction;
      const EvaluationContext rdom{own.rvars, own.rdom};
      for (ReductionUpdate& u : reduction->updates) {
        for (Expr& t : u.target)
          t = inliner.inline_reads(t, rdom);
        u.value = inliner.inline_reads(u.value, rdom);
      }
    }
    check_inlined_size(*p, cases, otherwise, inliner);
    n.nest = Produce::make(p->stage, p->buffer, p->box, std::move(cases), otherwise,
                           std::move(reduction), p->loops);
  }
}

} // namespace trapeze::lower
