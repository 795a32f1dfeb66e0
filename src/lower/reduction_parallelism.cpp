// Choosing how a reduction's updates run in parallel (reduction_parallelism.h).
#include "lower/reduction_parallelism.h"

#include "ir/ir_operators.h"
#include "trapeze/ir_visitor.h"

#include <algorithm>

namespace trapeze::lower {

using namespace ir;

namespace {

bool reads_stage(const Expr& e, const Function& f) {
  bool found = false;
  for_each_node(e, [&](const Expr& node) {
    if (const auto* a = node.as<Access>(); a && a->func.get() == &f) found = true;
  });
  return found;
}

// Whether `target` is rvar + c with c free of variables, and rvar's range
// shifted by c lies in `range` (so the clamp into the box changes nothing).
bool injective_in(const Expr& target, const std::string& rvar, const Interval& rdom,
                  const Interval& range, const analysis::BoundsProver& prover) {
  const auto form = analysis::affine_form(target);
  if (!form) return false;
  const auto term = form->terms.find("1" + rvar); // affine_form keys a variable "1" + name
  if (term == form->terms.end() || term->second.first != 1) return false;
  analysis::AffineForm shift = *form;
  shift.terms.erase(term->first);
  for (const auto& [key, t] : shift.terms)
    if (key.front() == '1' || key.front() == '2') return false; // another variable or an atom
  const Expr c = analysis::affine_expr(shift);
  return prover.prove_le(range.lo, add(as_i64(rdom.lo), c)) &&
         prover.prove_le(add(as_i64(rdom.hi), c), range.hi);
}

// The number of points of a box with constant bounds, or -1.
std::int64_t constant_points(const std::vector<Interval>& box,
                             const analysis::BoundsProver& prover) {
  std::int64_t points = 1;
  for (const Interval& range : box) {
    const auto span = prover.constant_difference(range.lo, range.hi);
    if (!span || *span < 0 || points > (std::int64_t{1} << 40) / (*span + 1)) return -1;
    points *= *span + 1;
  }
  return points;
}

} // namespace

ReductionStrategy reduction_strategy(const Function& f, const Reduction& r,
                                     const std::vector<Interval>& box,
                                     const analysis::BoundsProver& prover) {
  if (r.rvars.empty()) return {ReductionParallelism::Serial, "no reduction variable"};
  // A pipeline is a DAG (Pipeline's constructor): an update never reads its own stage.
  for (const ReductionUpdate& u : r.updates)
    TRAPEZE_ASSERT(!reads_stage(u.value, f) &&
                       std::none_of(u.target.begin(), u.target.end(),
                                    [&](const Expr& t) { return reads_stage(t, f); }),
                   "an update of " + f.describe() + " reads the stage itself");
  const std::string& outer = r.rvars.front();
  const bool disjoint =
      std::all_of(r.updates.begin(), r.updates.end(), [&](const ReductionUpdate& u) {
        for (std::size_t d = 0; d < u.target.size(); ++d)
          if (injective_in(u.target[d], outer, r.rdom.front(), box[d], prover)) return true;
        return false;
      });
  if (disjoint)
    return {ReductionParallelism::DisjointPoints,
            "in parallel over " + outer + ": distinct " + outer +
                " update distinct points, each in the definition's order"};
  const bool one_op =
      std::all_of(r.updates.begin(), r.updates.end(),
                  [&](const ReductionUpdate& u) { return u.op == r.updates.front().op; });
  const std::int64_t points = constant_points(box, prover);
  if (one_op && points > 0 && points <= (std::int64_t{1} << 20))
    return {ReductionParallelism::PartialResults,
            "in parallel: " + std::to_string(kReductionChunks) + " chunks of " + outer +
                " into partial results, combined in order"};
  return {ReductionParallelism::Serial,
          one_op ? "serial: the stage's domain is not a small constant box"
                 : "serial: the updates combine with different operators"};
}

} // namespace trapeze::lower
