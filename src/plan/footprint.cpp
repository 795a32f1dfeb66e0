// Footprints of fused groups: every tile's regions for concrete parameters.
#include "plan/footprint.h"

#include "ir/ir_operators.h"

#include <algorithm>

namespace trapeze::plan {

using namespace ir;

namespace {

// Its points; 0 where the box is empty.
std::int64_t box_points(const trapeze::Box& box) {
  std::int64_t points = 1;
  for (int d = 0; d < box.dimensions(); ++d)
    points *= std::max<std::int64_t>(box.extent(d), 0);
  return points;
}

// The points of `box` (a stage's domain, or the part of it that is demanded).
std::int64_t box_points(const Function& f, const std::vector<Interval>& box,
                        const ParamValues& params) {
  return box_points(concrete_box(box, params, f.describe()));
}

// A lone untiled stage: one tile over its demanded box (what its nest
// computes; its buffer keeps the domain's extents), no redundancy.
GroupFootprint lone_stage_footprint(const Function& f, const std::vector<Interval>& demanded,
                                    const ParamValues& params) {
  GroupFootprint out;
  out.tiles = 1;
  out.tile_counts.assign(static_cast<std::size_t>(f.dimensions()), 1);
  StageFootprint s;
  s.stage = f.name();
  const trapeze::Box box = concrete_box(demanded, params, f.describe());
  for (int d = 0; d < box.dimensions(); ++d)
    s.scratchpad_extents.push_back(std::max<std::int64_t>(box.extent(d), 0));
  s.domain_points = s.computed_points = box_points(box);
  out.computed_points = out.domain_points = s.domain_points;
  out.stages.push_back(std::move(s));
  return out;
}

} // namespace

GroupFootprint group_footprint(const Plan& whole, const GroupPlan& plan,
                               const ParamValues& params) {
  if (!plan.fused) {
    const Function& f = *plan.stages.front();
    return lone_stage_footprint(f, whole.demanded.at(f.name()), params);
  }
  const GroupSchedule& group = plan.schedule;
  const GroupGeometry& g = plan.geometry;
  const std::size_t dims = g.common_dims();
  const std::vector<Interval> space = tile_space(g);
  std::vector<std::int64_t> lo(dims), hi(dims), size(dims);
  GroupFootprint out;
  out.tiles = 1;
  for (std::size_t c = 0; c < dims; ++c) {
    lo[c] = evaluate_int(space[c].lo, params, "the tile space");
    hi[c] = evaluate_int(space[c].hi, params, "the tile space");
    const std::int64_t extent = std::max<std::int64_t>(hi[c] - lo[c] + 1, 0);
    size[c] = group.tile_sizes.empty() ? std::max<std::int64_t>(extent, 1) : group.tile_sizes[c];
    out.tile_counts.push_back((extent + size[c] - 1) / size[c]);
    out.tiles *= out.tile_counts.back();
  }
  for (std::size_t k = 0; k < g.stages.size(); ++k) {
    const FunctionPtr& f = g.stages[k];
    StageFootprint s;
    s.stage = f->name();
    s.scratchpad_extents.assign(static_cast<std::size_t>(f->dimensions()), 0);
    // What the stage must compute once: its demanded box (plan/demand.h), so
    // that the redundancy counts only recomputation.
    s.domain_points = box_points(*f, computed_box(g, k), params);
    out.stages.push_back(std::move(s));
  }
  const auto constant = [&](const Expr& e) {
    return Expr(evaluate_int(e, params, "a tile region"));
  };
  const auto bind = [&](std::size_t stage, const std::vector<Interval>& region) {
    std::vector<Interval> values;
    for (std::size_t c = 0; c < dims; ++c)
      values.emplace_back(constant(region[c].lo), constant(region[c].hi));
    std::int64_t points = 1;
    StageFootprint& s = out.stages[stage];
    const std::vector<Interval> box = stage_box(g, stage, values);
    for (std::size_t k = 0; k < box.size(); ++k) {
      const std::int64_t extent = std::max<std::int64_t>(
          evaluate_int(box[k].hi, params) - evaluate_int(box[k].lo, params) + 1, 0);
      points *= extent;
      s.scratchpad_extents[k] = std::max(s.scratchpad_extents[k], extent);
    }
    s.computed_points += points;
    return values;
  };
  std::vector<std::int64_t> t(dims, 0);
  for (std::int64_t n = 0; n < out.tiles; ++n) {
    std::vector<Interval> tile;
    FirstTile first(dims);
    for (std::size_t c = 0; c < dims; ++c) {
      const std::int64_t start = lo[c] + t[c] * size[c];
      tile.emplace_back(Expr(start), Expr(std::min(start + size[c] - 1, hi[c])));
      if (!group.tile_sizes.empty()) first[c] = eq(i64(t[c]), i64(0));
    }
    tile_regions(g, group.shape, tile, first, bind);
    for (std::size_t c = dims; c-- > 0;) { // the next tile, last dimension fastest
      if (++t[c] < out.tile_counts[c]) break;
      t[c] = 0;
    }
  }
  for (const StageFootprint& s : out.stages) {
    out.computed_points += s.computed_points;
    out.domain_points += s.domain_points;
  }
  out.redundant_fraction =
      out.domain_points ? static_cast<double>(out.computed_points) / out.domain_points - 1 : 0;
  return out;
}

} // namespace trapeze::plan
