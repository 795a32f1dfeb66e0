// The group's skeleton: tile loops and the stages' Produces (passes.h).
#include "ir/ir_operators.h"
#include "lower/describe.h"
#include "lower/passes.h"

#include <fmt/format.h>

#include <algorithm>

namespace trapeze::lower {

using namespace ir;

namespace {

// Where a stage of a fused group is stored, for its comment.
const char* stored_in(const plan::GroupPlan& group, const plan::Plan& plan, std::size_t s) {
  const ir::Function& f = *group.stages[s];
  if (!group.geometry.full[s] || (group.tiled && group.geometry.read_in_group(s)))
    return "scratchpad";
  return plan.pipeline.is_output(f) ? "output" : "full buffer";
}

void lone_stage(GroupState& g, LoweringState& state) {
  const FunctionPtr& f = g.plan.stages.front();
  const std::string role = state.plan.pipeline.is_output(*f) ? ", output" : "";
  ProduceLoops loops;
  loops.parallel = true;
  loops.schedule = effective_parallel_schedule(g.plan.schedule);
  loops.vectorize = g.plan.schedule.vectorize;
  loops.reassociate_float_sums = g.plan.schedule.reassociate_float_sums;
  if (state.plan.inlined(f->name())) {
    g.comment = f->name() + ": inlined into its readers";
    return;
  }
  // Its demanded box (plan/demand.h): what the pipeline reads of it.
  std::vector<Interval> box;
  for (const Interval& range : state.plan.demanded.at(f->name()))
    box.emplace_back(state.prover.simplify(range.lo), state.prover.simplify(range.hi));
  const std::string domain = box_text(simplified_domain(*f, state.prover));
  std::string what = f->name() + ": " + stage_kind_text(*f) + role + ", " +
                     std::string(type_name(f->type())) + " on " + domain;
  if (box_text(box) != domain)
    what += ", computed on " + box_text(box) + " (what its readers read)";
  g.nests.push_back({f, Comment::make(what), Produce::of_definition(f, f->name(), box, loops)});
}

} // namespace

void tile_loops(GroupState& g, LoweringState& state) {
  const plan::GroupPlan& group = g.plan;
  if (!group.fused) return lone_stage(g, state);
  const plan::GroupGeometry& geometry = group.geometry;
  const GroupSchedule& schedule = group.schedule;
  const analysis::BoundsProver& prover = state.prover;
  const std::size_t dims = geometry.common_dims();

  // Tile loops over the full stages' hull; the tile's bounds as lets.
  std::vector<Interval> space = plan::tile_space(geometry);
  for (Interval& range : space)
    range = Interval(prover.simplify(range.lo), prover.simplify(range.hi));
  g.first.assign(dims, Expr());
  std::vector<std::string> vars;
  std::vector<Expr> counts;
  for (std::size_t c = 0; c < dims; ++c) {
    const std::string& dim = geometry.alignment.common_dims[c];
    if (!group.tiled) {
      g.tile.push_back(space[c]);
      continue;
    }
    const std::int64_t size = schedule.tile_sizes[c];
    vars.push_back(state.names.fresh(dim + "_tile"));
    g.first[c] = eq(VarRef::make(vars.back()), Expr(0));
    const Expr rounded_up = prover.simplify(add(sub(space[c].hi, space[c].lo), i64(size)));
    counts.push_back(size == 1 ? rounded_up : prover.simplify(div_of(rounded_up, i64(size))));
    const std::string lo = state.names.fresh(dim + "_tile_lo");
    const std::string hi = state.names.fresh(dim + "_tile_hi");
    g.lets.emplace_back(
        lo, prover.simplify(add(space[c].lo, mul(as_i64(VarRef::make(vars.back())), i64(size)))));
    const Expr lo_ref = let_ref(lo, ScalarType::Int64);
    g.lets.emplace_back(hi, prover.simplify(min_of(plus(lo_ref, size - 1), space[c].hi)));
    g.tile.emplace_back(lo_ref, let_ref(hi, ScalarType::Int64));
  }
  const int parallel = std::clamp(schedule.parallel_tile_dims, 0, static_cast<int>(vars.size()));
  const ParallelSchedule parallel_schedule = effective_parallel_schedule(schedule);
  for (std::size_t c = 0; c < vars.size(); ++c) {
    const bool outer_parallel = c == 0 && parallel > 0;
    g.tile_loops.push_back({vars[c], i64(0), prover.simplify(sub(counts[c], i64(1))),
                            outer_parallel ? ForKind::Parallel : ForKind::Serial,
                            outer_parallel ? parallel : 1, parallel_schedule});
  }

  std::vector<std::string> inlined;
  ProduceLoops loops;
  loops.vectorize = schedule.vectorize;
  loops.reassociate_float_sums = schedule.reassociate_float_sums;
  for (std::size_t s = 0; s < group.stages.size(); ++s) {
    const FunctionPtr& f = group.stages[s];
    if (state.plan.inlined(f->name())) {
      inlined.push_back(f->name());
      continue;
    }
    g.nests.push_back(
        {f,
         Comment::make(f->name() + ": " + stage_kind_text(*f) + ", " +
                       std::string(type_name(f->type())) + " into its " +
                       stored_in(group, state.plan, s) + " over its region of the tile"),
         Produce::of_definition(f, f->name(), {}, loops)});
  }

  g.comment = group.name + ": fused, ";
  if (group.tiled)
    g.comment += fmt::format("tiles [{}] over ({}), {} shape", fmt::join(schedule.tile_sizes, ", "),
                             fmt::join(geometry.alignment.common_dims, ", "),
                             tile_shape_name(schedule.shape));
  else
    g.comment += "untiled (one tile)";
  if (parallel > 0)
    g.comment += ", " + std::to_string(parallel) + " tile loop" + (parallel > 1 ? "s" : "") +
                 " collapsed and parallel (" + parallel_schedule_name(parallel_schedule) + ")";
  if (!inlined.empty()) g.comment += fmt::format("; inlined: {}", fmt::join(inlined, ", "));
}

} // namespace trapeze::lower
