#include "plan/demand.h"

#include "analysis/affine.h"
#include "analysis/case_region.h"
#include "ir/ir_operators.h"
#include "trapeze/ir_visitor.h"

#include <algorithm>
#include <optional>

namespace trapeze::plan {

using namespace ir;

namespace {

using Box = std::vector<Interval>;

// The least and greatest value of an affine `index` of `reader`'s variables
// over `box`; nullopt where the analysis cannot bound it.
std::optional<Interval> index_range(const Expr& index, const Function& reader, const Box& box) {
  const std::optional<analysis::AffineIndex> affine = analysis::affine_index(index);
  if (!affine) return std::nullopt;
  std::vector<std::pair<std::string, Expr>> at_least, at_most;
  for (const auto& [var, coefficient] : affine->vars) {
    const auto& vars = reader.vars();
    const auto it = std::find(vars.begin(), vars.end(), var);
    if (it == vars.end()) return std::nullopt; // a reduction variable
    const Interval& range = box[static_cast<std::size_t>(it - vars.begin())];
    // floor((sum a_i v_i + c) / d) with d >= 1 grows with v_i where a_i > 0.
    // The bounds go in as int64: the arithmetic promotes, and the prover
    // sees the parameters' expressions rather than casts of them.
    const Expr lo = as_i64(range.lo), hi = as_i64(range.hi);
    at_least.emplace_back(var, coefficient > 0 ? lo : hi);
    at_most.emplace_back(var, coefficient > 0 ? hi : lo);
  }
  return Interval(as_i64(substitute_vars(index, at_least)),
                  as_i64(substitute_vars(index, at_most)));
}

class Demand {
public:
  Demand(const Pipeline& p, const analysis::BoundsProver& prover) : p_(p), prover_(prover) {}

  std::map<std::string, Box> run() {
    const auto& stages = p_.stages();
    for (const FunctionPtr& f : stages)
      if (p_.is_output(*f) || f->definition().is_reduction()) whole(*f);
    // Readers before what they read.
    for (auto it = stages.rbegin(); it != stages.rend(); ++it) {
      const Function& reader = **it;
      Box& box = demand_[reader.name()];
      box = clamped(reader, box);
      add_reads_of(reader, box);
    }
    return std::move(demand_);
  }

private:
  // Within the domain; where nothing was read (an undefined bound), empty.
  Box clamped(const Function& f, const Box& box) const {
    Box out;
    for (std::size_t k = 0; k < f.domain().size(); ++k) {
      const Interval& range = f.domain()[k];
      if (k >= box.size() || !box[k].lo.defined()) {
        out.emplace_back(prover_.simplify(as_i64(range.lo)),
                         prover_.simplify(plus(as_i64(range.lo), -1)));
        continue;
      }
      // The domain's own bound where the prover shows the reads reach it:
      // the usual case, and the one whose text a reader recognizes.
      const Expr lo = prover_.simplify(as_i64(range.lo)), hi = prover_.simplify(as_i64(range.hi));
      out.emplace_back(prover_.prove_le(box[k].lo, lo) ? lo : bounded(max_of(box[k].lo, lo), lo),
                       prover_.prove_le(hi, box[k].hi) ? hi : bounded(min_of(box[k].hi, hi), hi));
    }
    return out;
  }

  void add_reads_of(const Function& reader, const Box& box) {
    const Definition& def = reader.definition();
    if (def.is_reduction()) {
      // Updates run over the reduction domain: every stage they read, whole.
      for_each_expr(def, [&](const Expr& e) { read_whole(e); });
      return;
    }
    const std::vector<analysis::CaseRegion> regions = analysis::case_regions(reader);
    for (std::size_t i = 0; i < def.cases.size(); ++i) {
      add_reads(def.cases[i].condition, reader, box);
      Box inside;
      for (std::size_t k = 0; k < box.size(); ++k)
        inside.emplace_back(prover_.simplify(max_of(box[k].lo, as_i64(regions[i].box[k].lo))),
                            prover_.simplify(min_of(box[k].hi, as_i64(regions[i].box[k].hi))));
      add_reads(def.cases[i].value, reader, inside);
    }
    if (def.otherwise.defined()) add_reads(def.otherwise, reader, box);
  }

  void whole(const Function& f) {
    Box& demanded = demand_[f.name()];
    demanded.clear();
    for (const Interval& range : f.domain())
      demanded.emplace_back(as_i64(range.lo), as_i64(range.hi));
  }

  void read_whole(const Expr& e) {
    for_each_node(e, [&](const Expr& n) {
      const auto* a = n.as<Access>();
      if (a && a->func) whole(*a->func);
    });
  }

  void add_reads(const Expr& e, const Function& reader, const Box& box) {
    for_each_node(e, [&](const Expr& n) {
      const auto* a = n.as<Access>();
      if (!a || !a->func) return;
      const Function& read = *a->func;
      Box& demanded = demand_[read.name()];
      demanded.resize(a->args.size()); // undefined bounds: nothing read yet
      for (std::size_t k = 0; k < a->args.size(); ++k) {
        const Interval& range = read.domain()[k];
        std::optional<Interval> r = index_range(a->args[k], reader, box);
        if (!r) r = Interval(as_i64(range.lo), as_i64(range.hi));
        const bool first = !demanded[k].lo.defined();
        demanded[k] =
            Interval(bounded(first ? r->lo : min_of(as_i64(demanded[k].lo), r->lo), range.lo),
                     bounded(first ? r->hi : max_of(as_i64(demanded[k].hi), r->hi), range.hi));
      }
    });
  }

  // `bound` simplified, or the domain's `own` where the prover leaves it
  // larger than kMaxBoundNodes nodes: hulls of reads that it cannot order
  // (floor divisions of different parameters' forms, a pyramid's levels)
  // would otherwise nest a min or max per read and per level.
  Expr bounded(const Expr& bound, const Expr& own) const {
    const Expr simple = prover_.simplify(bound);
    int nodes = 0;
    for_each_node(simple, [&](const Expr&) { ++nodes; });
    return nodes <= kMaxBoundNodes ? simple : prover_.simplify(as_i64(own));
  }
  static constexpr int kMaxBoundNodes = 24;

  const Pipeline& p_;
  const analysis::BoundsProver& prover_;
  std::map<std::string, Box> demand_;
};

} // namespace

std::map<std::string, std::vector<Interval>> demanded_boxes(const Pipeline& p,
                                                            const analysis::BoundsProver& prover) {
  return Demand(p, prover).run();
}

} // namespace trapeze::plan
