// The geometry of a fused group and the per-tile regions of its stages.
#include "plan/group_geometry.h"

#include "analysis/reduction_targets.h"
#include "ir/ir_operators.h"
#include "trapeze/error.h"

#include <algorithm>
#include <set>

namespace trapeze::plan {

using namespace ir;

const std::vector<Interval>& computed_box(const GroupGeometry& g, std::size_t s) {
  return g.demanded.empty() ? g.stages[s]->domain() : g.demanded[s];
}

namespace {

Expr zero() { return i64(0); }

// The stage's demanded box in the common space ([0, 0] where it has no
// dimension): every region and the tile space stay within it.
std::vector<Interval> common_domain(const GroupGeometry& g, std::size_t s) {
  std::vector<Interval> out(g.common_dims(), Interval(zero(), zero()));
  for (std::size_t c = 0; c < g.common_dims(); ++c) {
    const int k = g.stage_dim[s][c];
    if (k < 0) continue;
    const Interval& range = computed_box(g, s)[static_cast<std::size_t>(k)];
    out[c] =
        Interval(times(g.scale[s][c], as_i64(range.lo)), times(g.scale[s][c], as_i64(range.hi)));
  }
  return out;
}

// The longest path (in edges) from each stage to the end of the group.
std::vector<std::int64_t> levels(const GroupGeometry& g) {
  std::vector<std::int64_t> level(g.stages.size(), 0);
  for (std::size_t s = g.stages.size(); s-- > 0;)
    for (const auto& [producer, consumer] : g.edges)
      if (producer == s) level[s] = std::max(level[s], level[consumer] + 1);
  return level;
}

// PolyMage's slopes: the largest distance below and above over every edge.
std::vector<std::pair<std::int64_t, std::int64_t>> group_slopes(const GroupGeometry& g) {
  std::vector<std::pair<std::int64_t, std::int64_t>> slopes(g.common_dims(), {0, 0});
  for (const analysis::UniformDependence& dep : g.alignment.dependences)
    for (std::size_t c = 0; c < g.common_dims(); ++c) {
      if (dep.broadcast[c]) continue;
      slopes[c].first = std::max(slopes[c].first, -dep.lo[c]);
      slopes[c].second = std::max(slopes[c].second, dep.hi[c]);
    }
  return slopes;
}

std::string stage_names(const std::vector<std::string>& stages) {
  std::string s;
  for (const std::string& n : stages)
    s += (s.empty() ? "" : ", ") + n;
  return s;
}

} // namespace

GroupGeometry group_geometry(const Pipeline& p, const Schedule& schedule, std::size_t index,
                             const analysis::BoundsProver& prover,
                             const std::map<std::string, std::vector<Interval>>& demanded) {
  const GroupSchedule& group = schedule.groups.at(index);
  std::vector<const Function*> members;
  for (const std::string& name : schedule.aligned_stages(p, index))
    members.push_back(p.stage(name).get());
  std::string name = "group " + std::to_string(index) + " (" + stage_names(group.stages) + ")";
  analysis::GroupAlignment alignment = analysis::align_and_scale(p, members);
  if (!alignment.ok)
    throw Error(
        name + " cannot be tiled: " + alignment.reason +
        "; change the group so that its stages are connected and every dependence inside it is a "
        "constant distance");
  const std::set<std::string> in_group(group.stages.begin(), group.stages.end());
  const auto role = [&](const Function& f) {
    StageRole r;
    r.live_out = p.is_output(f);
    for (const FunctionPtr& consumer : p.consumers(f))
      r.live_out = r.live_out || !in_group.count(consumer->name());
    // Not live-out: Full only where the schedule says so (Schedule::storage_of).
    const auto stored = schedule.storage.find(f.name());
    r.full = r.live_out || (stored != schedule.storage.end() && stored->second == Storage::Full);
    return r;
  };
  GroupGeometry g = group_geometry(p, std::move(name), std::move(alignment), role, prover);
  for (const FunctionPtr& f : g.stages)
    g.demanded.push_back(demanded.at(f->name()));
  return g;
}

GroupGeometry group_geometry(const Pipeline& p, std::string name,
                             analysis::GroupAlignment alignment,
                             const std::function<StageRole(const ir::Function&)>& role,
                             const analysis::BoundsProver& prover) {
  TRAPEZE_ASSERT(alignment.ok, "the geometry of a group that cannot be aligned: " + name);
  GroupGeometry g;
  g.name = std::move(name);
  g.alignment = std::move(alignment);
  for (const analysis::StageAlignment& a : g.alignment.stages) {
    const FunctionPtr& f = p.stage(a.stage->name());
    g.stages.push_back(f);
    const StageRole r = role(*f);
    g.live_out.push_back(r.live_out);
    g.full.push_back(r.full);
    std::vector<int> dims(g.alignment.common_dims.size(), -1);
    std::vector<std::int64_t> scales(g.alignment.common_dims.size(), 1);
    for (std::size_t k = 0; k < a.common_dim.size(); ++k) {
      dims[static_cast<std::size_t>(a.common_dim[k])] = static_cast<int>(k);
      scales[static_cast<std::size_t>(a.common_dim[k])] = a.scale[k];
    }
    std::vector<bool> whole(g.alignment.common_dims.size(), false);
    if (const auto& reduction = f->definition().reduction) {
      const auto targets = analysis::reduction_targets(*f, *reduction, prover);
      for (std::size_t k = 0; k < a.common_dim.size(); ++k)
        whole[static_cast<std::size_t>(a.common_dim[k])] =
            targets[k].kind == analysis::TargetDim::Kind::Any;
    }
    g.stage_dim.push_back(std::move(dims));
    g.scale.push_back(std::move(scales));
    g.whole.push_back(std::move(whole));
  }
  const auto position = [&](const Function* f) {
    for (std::size_t s = 0; s < g.stages.size(); ++s)
      if (g.stages[s].get() == f) return s;
    TRAPEZE_ASSERT(false, "a dependence outside its group: " + f->describe());
  };
  for (const analysis::UniformDependence& dep : g.alignment.dependences)
    g.edges.emplace_back(position(dep.producer), position(dep.consumer));
  return g;
}

bool GroupGeometry::read_in_group(std::size_t s) const {
  return std::any_of(edges.begin(), edges.end(), [&](const auto& edge) { return edge.first == s; });
}

Expr owns_tile(const GroupGeometry& g, std::size_t s, const FirstTile& first) {
  Expr condition;
  for (std::size_t c = 0; c < g.common_dims(); ++c) {
    if (g.stage_dim[s][c] >= 0 || !first[c].defined()) continue;
    condition = condition.defined() ? Binary::make(BinaryOp::And, condition, first[c]) : first[c];
  }
  return condition;
}

GroupRegions tile_regions(const GroupGeometry& g, TileShape shape,
                          const std::vector<Interval>& tile, const FirstTile& first,
                          const BindRegion& bind) {
  TRAPEZE_ASSERT(tile.size() == g.common_dims() && first.size() == g.common_dims(),
                 "a tile with the wrong number of dimensions");
  const std::size_t n = g.stages.size(), dims = g.common_dims();
  GroupRegions regions(n);
  const std::vector<std::int64_t> level = levels(g);
  const auto slopes = group_slopes(g);
  const GroupReach reach = region_reach(g, shape);
  for (std::size_t s = n; s-- > 0;) {
    const std::vector<Interval> domain = common_domain(g, s);
    std::vector<Interval> want(dims);
    bool any = false;
    const auto unite = [&](std::size_t c, const Interval& box) {
      want[c] = want[c].lo.defined()
                    ? Interval(min_of(want[c].lo, box.lo), max_of(want[c].hi, box.hi))
                    : box;
    };
    // What the group's consumers read.
    for (std::size_t e = 0; e < g.edges.size(); ++e) {
      if (g.edges[e].first != s) continue;
      any = true;
      const std::size_t t = g.edges[e].second;
      const analysis::UniformDependence& dep = g.alignment.dependences[e];
      for (std::size_t c = 0; c < dims; ++c) {
        if (g.stage_dim[s][c] < 0) continue;
        if (g.stage_dim[t][c] < 0) { // the consumer lies at 0: fixed positions
          unite(c, Interval(Expr(dep.lo[c]), Expr(dep.hi[c])));
          continue;
        }
        if (shape == TileShape::PolyMage) {
          if (reach[t][c].follows_tile)
            unite(c, Interval(plus(tile[c].lo, -level[s] * slopes[c].first),
                              plus(tile[c].hi, level[s] * slopes[c].second)));
          if (reach[t][c].fixed)
            unite(c, Interval(Expr(reach[t][c].fixed_lo + dep.lo[c]),
                              Expr(reach[t][c].fixed_hi + dep.hi[c])));
          continue;
        }
        // The consumer's points only: multiples of its scale.
        const std::int64_t scale = g.scale[t][c];
        const Interval& r = regions[t][c];
        unite(c, Interval(plus(times(scale, ceil_div(r.lo, scale)), dep.lo[c]),
                          plus(times(scale, floor_div(r.hi, scale)), dep.hi[c])));
      }
    }
    // A full stage's own points: the tile (only in the tile that owns it).
    if (g.full[s]) {
      const Expr owner = owns_tile(g, s, first);
      for (std::size_t c = 0; c < dims; ++c) {
        if (g.stage_dim[s][c] < 0) continue;
        if (!owner.defined()) {
          unite(c, tile[c]);
        } else if (any) {
          want[c] = Interval(Select::make(owner, min_of(want[c].lo, tile[c].lo), want[c].lo),
                             Select::make(owner, max_of(want[c].hi, tile[c].hi), want[c].hi));
        } else {
          want[c] = Interval(tile[c].lo, Select::make(owner, tile[c].hi, plus(tile[c].lo, -1)));
        }
      }
      any = true;
    }
    std::vector<Interval> region(dims);
    for (std::size_t c = 0; c < dims; ++c) {
      if (g.stage_dim[s][c] < 0) {
        region[c] = Interval(zero(), zero());
      } else if (g.whole[s][c]) { // a reduction's computed index: every point, always
        region[c] = domain[c];
      } else if (!any) { // read by nothing in the group: nothing to compute
        region[c] = Interval(domain[c].lo, plus(domain[c].lo, -1));
      } else {
        region[c] = Interval(max_of(want[c].lo, domain[c].lo), min_of(want[c].hi, domain[c].hi));
      }
    }
    regions[s] = bind ? bind(s, region) : region;
  }
  return regions;
}

std::vector<Interval> stage_box(const GroupGeometry& g, std::size_t s,
                                const std::vector<Interval>& region) {
  std::vector<Interval> box(static_cast<std::size_t>(g.stages[s]->dimensions()));
  for (std::size_t c = 0; c < g.common_dims(); ++c) {
    const int k = g.stage_dim[s][c];
    if (k < 0) continue;
    box[static_cast<std::size_t>(k)] =
        Interval(ceil_div(region[c].lo, g.scale[s][c]), floor_div(region[c].hi, g.scale[s][c]));
  }
  return box;
}

double DimReach::following_span(double tile_size) const {
  return std::max(1.0, tile_size + static_cast<double>(to - from));
}

std::optional<std::int64_t> DimReach::span(std::int64_t tile_size) const {
  if (whole || (follows_tile && fixed)) return std::nullopt;
  if (follows_tile) return tile_size + below + above;
  if (fixed) return fixed_hi - fixed_lo + 1;
  return 0;
}

GroupReach region_reach(const GroupGeometry& g, TileShape shape) {
  const std::size_t n = g.stages.size(), dims = g.common_dims();
  GroupReach reach(n, std::vector<DimReach>(dims));
  const std::vector<std::int64_t> level = levels(g);
  const auto slopes = group_slopes(g);
  for (std::size_t s = n; s-- > 0;) {
    for (std::size_t c = 0; c < dims; ++c) {
      DimReach& r = reach[s][c];
      const auto add_fixed = [&](std::int64_t lo, std::int64_t hi) {
        r.fixed_lo = r.fixed ? std::min(r.fixed_lo, lo) : lo;
        r.fixed_hi = r.fixed ? std::max(r.fixed_hi, hi) : hi;
        r.fixed = true;
      };
      if (g.stage_dim[s][c] < 0) {
        add_fixed(0, 0);
        continue;
      }
      r.whole = g.whole[s][c];
      r.follows_tile = g.full[s];
      for (std::size_t e = 0; e < g.edges.size(); ++e) {
        if (g.edges[e].first != s) continue;
        const std::size_t t = g.edges[e].second;
        const analysis::UniformDependence& dep = g.alignment.dependences[e];
        if (g.stage_dim[t][c] < 0) {
          add_fixed(dep.lo[c], dep.hi[c]);
          continue;
        }
        const DimReach& below = reach[t][c];
        if (below.follows_tile) {
          const std::int64_t from = below.from + dep.lo[c], to = below.to + dep.hi[c];
          r.from = r.follows_tile ? std::min(r.from, from) : from;
          r.to = r.follows_tile ? std::max(r.to, to) : to;
          r.follows_tile = true;
          r.below = std::max(r.below, below.below + std::max<std::int64_t>(0, -dep.lo[c]));
          r.above = std::max(r.above, below.above + std::max<std::int64_t>(0, dep.hi[c]));
        }
        if (below.fixed) add_fixed(below.fixed_lo + dep.lo[c], below.fixed_hi + dep.hi[c]);
      }
      if (shape == TileShape::PolyMage && r.follows_tile) {
        r.below = level[s] * slopes[c].first;
        r.above = level[s] * slopes[c].second;
        r.from = -r.below;
        r.to = r.above;
      }
    }
  }
  return reach;
}

std::vector<Interval> tile_space(const GroupGeometry& g) {
  std::vector<Interval> space(g.common_dims());
  for (std::size_t s = 0; s < g.stages.size(); ++s) {
    if (!g.full[s]) continue;
    const std::vector<Interval> domain = common_domain(g, s);
    for (std::size_t c = 0; c < g.common_dims(); ++c) {
      if (g.stage_dim[s][c] < 0) continue;
      space[c] = space[c].lo.defined() ? Interval(min_of(space[c].lo, domain[c].lo),
                                                  max_of(space[c].hi, domain[c].hi))
                                       : domain[c];
    }
  }
  for (Interval& range : space)
    if (!range.lo.defined()) range = Interval(zero(), zero());
  return space;
}

} // namespace trapeze::plan
