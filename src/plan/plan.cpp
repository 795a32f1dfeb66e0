// make_plan: the schedule checked once and resolved for lowering.
#include "plan/plan.h"

#include "analysis/bounds_prover.h"
#include "plan/demand.h"
#include "trapeze/error.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <set>
#include <unordered_map>

namespace trapeze::plan {

namespace {

// The groups in an order where every group comes after the groups it reads;
// among ready groups, the schedule's order. Schedule::validate has proven the
// groups acyclic.
std::vector<std::size_t> group_order(const Pipeline& p, const Schedule& schedule) {
  const std::size_t n = schedule.groups.size();
  std::unordered_map<std::string, std::size_t> group_of;
  for (std::size_t g = 0; g < n; ++g)
    for (const std::string& name : schedule.groups[g].stages)
      group_of.emplace(name, g);
  // Kahn's algorithm, always taking the lowest-numbered ready group, so the
  // order is the schedule's wherever the dependences allow it.
  std::vector<std::set<std::size_t>> feeds(n);
  std::vector<std::size_t> waiting_on(n, 0);
  for (const ir::FunctionPtr& f : p.stages())
    for (const ir::FunctionPtr& consumer : p.consumers(*f)) {
      const std::size_t from = group_of.at(f->name()), to = group_of.at(consumer->name());
      if (from != to && feeds[from].insert(to).second) ++waiting_on[to];
    }
  std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> ready;
  for (std::size_t g = 0; g < n; ++g)
    if (waiting_on[g] == 0) ready.push(g);
  std::vector<std::size_t> order;
  while (!ready.empty()) {
    const std::size_t g = ready.top();
    ready.pop();
    order.push_back(g);
    for (std::size_t to : feeds[g])
      if (--waiting_on[to] == 0) ready.push(to);
  }
  TRAPEZE_ASSERT(order.size() == n, "the groups of a validated schedule form a cycle");
  return order;
}

// The serial bands a tile runs in (GroupPlan::bands): the inner tiles if the
// schedule gives them; for the rectangle shape, otherwise, bands one point
// thick along every dimension but the innermost (whole tile there). The
// rectangle trapezoid of paper 000 §3.2 shifts each stage by its upper margin
// so that every dependence points backwards, then fuses the stages' point
// loops (its figure 14): a band of one row of the shifted space runs each
// stage on the row that the next stages need first, so consumers read rows
// their producers wrote just before (intra-tile locality). A tile computes the
// same points as the scalene shape; only the order differs. Keeping the
// innermost dimension whole keeps the innermost loops long and vectorizable.
// A dimension that a stage of the group lacks is never split: that stage lies
// at one position of it, which its consumers read from every band, and its
// producers' fixed positions need not lie in the first band. Nor is one
// where a reduction's region is its whole domain (it is computed once).
std::vector<std::int64_t> resolve_bands(const GroupGeometry& g, const GroupSchedule& group) {
  const std::size_t dims = g.common_dims();
  std::vector<std::int64_t> sizes = group.inner_tile_sizes;
  if (sizes.empty()) {
    if (group.shape != TileShape::Rectangle || g.stages.size() < 2) return {};
    sizes.assign(dims, 1);
    if (dims >= 2) sizes[dims - 1] = 0;
  }
  bool split = false;
  for (std::size_t c = 0; c < dims; ++c) {
    bool lacked = false;
    for (std::size_t s = 0; s < g.stages.size(); ++s)
      lacked = lacked || g.stage_dim[s][c] < 0 || g.whole[s][c];
    if (lacked || (!group.tile_sizes.empty() && sizes[c] >= group.tile_sizes[c])) sizes[c] = 0;
    split = split || sizes[c] > 0;
  }
  return split ? sizes : std::vector<std::int64_t>{};
}

} // namespace

Plan make_plan(const Pipeline& p, const Schedule& schedule) {
  schedule.validate(p);
  Plan plan{p, schedule, schedule.storages(p), {}, {}};
  const analysis::BoundsProver prover = analysis::BoundsProver::for_pipeline(p);
  plan.demanded = demanded_boxes(p, prover);
  for (std::size_t index : group_order(p, schedule)) {
    GroupPlan g;
    g.index = index;
    g.schedule = schedule.groups[index];
    g.tiled = !g.schedule.tile_sizes.empty();
    g.fused = g.tiled || g.schedule.stages.size() > 1;
    if (g.fused) {
      g.geometry = group_geometry(p, schedule, index, prover, plan.demanded);
      g.name = g.geometry.name;
      g.reach = region_reach(g.geometry, g.schedule.shape);
      g.bands = resolve_bands(g.geometry, g.schedule);
      g.stages = g.geometry.stages;
    } else {
      g.stages = {p.stage(g.schedule.stages.front())};
      g.name = "group " + std::to_string(index) + " (" + g.stages.front()->name() + ")";
    }
    plan.groups.push_back(std::move(g));
  }
  return plan;
}

} // namespace trapeze::plan
