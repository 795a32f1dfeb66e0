// Choosing how a reduction's updates run in parallel (reduction_parallelism.h).
#include "lower/reduction_parallelism.h"

#include "analysis/reduction_targets.h"
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
                                     const analysis::BoundsProver& prover,
                                     bool reassociate_float_sums) {
  if (r.rvars.empty()) return {ReductionParallelism::Serial, "no reduction variable"};
  // A pipeline is a DAG (Pipeline's constructor): an update never reads its own stage.
  for (const ReductionUpdate& u : r.updates)
    TRAPEZE_ASSERT(!reads_stage(u.value, f) &&
                       std::none_of(u.target.begin(), u.target.end(),
                                    [&](const Expr& t) { return reads_stage(t, f); }),
                   "an update of " + f.describe() + " reads the stage itself");
  const std::string& outer = r.rvars.front();
  const std::vector<analysis::TargetDim> targets = analysis::reduction_targets(f, r, prover);
  const bool disjoint =
      std::any_of(targets.begin(), targets.end(), [](const analysis::TargetDim& t) {
        return t.kind == analysis::TargetDim::Kind::Follows && t.rvar == 0;
      });
  if (disjoint)
    return {ReductionParallelism::DisjointPoints,
            "in parallel over " + outer + ": distinct " + outer +
                " update distinct points, each in the definition's order"};
  const bool one_op =
      std::all_of(r.updates.begin(), r.updates.end(),
                  [&](const ReductionUpdate& u) { return u.op == r.updates.front().op; });
  const std::int64_t points = constant_points(box, prover);
  const bool small = points > 0 && points <= (std::int64_t{1} << 20);
  const bool float_sum = is_float(f.type()) && r.updates.front().op == ReduceOp::Sum;
  if (one_op && small && float_sum && !reassociate_float_sums)
    return {ReductionParallelism::Serial,
            "serial: a float sum, added in the definition's order (the group's "
            "reassociate_float_sums would run it by partial results)"};
  if (one_op && small)
    return {ReductionParallelism::PartialResults,
            "in parallel: " + std::to_string(kReductionChunks) + " chunks of " + outer +
                " into partial results, combined in order",
            float_sum};
  return {ReductionParallelism::Serial,
          one_op ? "serial: the stage's domain is not a small constant box"
                 : "serial: the updates combine with different operators"};
}

} // namespace trapeze::lower
