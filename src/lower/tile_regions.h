// The region each stage of a fused, overlapped-tiled group computes per tile.
//
// A group's stages are aligned into one common space (analysis/alignment.h);
// a tile is a box of that space over the live-outs. For the `scalene` shape
// (paper 000 §3.1) the regions are found by dependence propagation from the
// live-outs back to the group's first stages: a producer computes the union
// over its consumers in the group of the consumer's region widened by the
// dependence distances of that edge. For the `polymage` shape (paper 000
// §2.1, fig. 4) every stage is the tile widened by the group-wide largest
// distances once per level (the longest path to a live-out). Both are clamped
// to the stage's domain, so a region never leaves what the stage defines.
#pragma once

#include "analysis/alignment.h"
#include "trapeze/pipeline.h"
#include "trapeze/schedule.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace trapeze::lower {

/// A group of a schedule, with everything tiling needs to know about it.
struct GroupGeometry {
  std::string name; ///< "group 1 (blurx, blury)" for messages
  /// The stages, topologically ordered (as alignment.stages).
  std::vector<ir::FunctionPtr> stages;
  analysis::GroupAlignment alignment;
  std::vector<bool> live_out; ///< per stage: an output or read outside the group
  /// Per stage, per common dimension: the stage's dimension there, or -1.
  std::vector<std::vector<int>> stage_dim;
  /// Per stage, per common dimension: the scale (point x lies at scale * x; 1 where absent).
  std::vector<std::vector<std::int64_t>> scale;
  /// The producer and consumer of each dependence (indices into stages).
  std::vector<std::pair<std::size_t, std::size_t>> edges;

  std::size_t common_dims() const { return alignment.common_dims.size(); }
};

/// Builds the geometry of `group` (the index-th group of its schedule).
/// Throws trapeze::Error naming the group if its stages cannot be aligned
/// into a common space with constant dependences.
GroupGeometry group_geometry(const Pipeline& p, const GroupSchedule& group, std::size_t index);

/// Per stage, per common dimension: the region's bounds in the common space (a
/// stage lacking the dimension lies at 0 in it). A stage with scale s computes
/// its points x with s * x in the region (stage_box).
using GroupRegions = std::vector<std::vector<Interval>>;

/// Called once per stage (reverse topological order) with its computed region
/// in every common dimension; returns what later computations should use in its
/// place (a let variable for code, a constant for a concrete report).
using BindRegion =
    std::function<std::vector<Interval>(std::size_t stage, const std::vector<Interval>& region)>;

/// The region of every stage for one tile: `tile` is the tile's box in the
/// common space (already clamped to the live-outs' hull). Domains are the
/// stages' own (int64 expressions of the parameters).
GroupRegions tile_regions(const GroupGeometry& g, TileShape shape,
                          const std::vector<Interval>& tile, const BindRegion& bind);

/// A region of stage `s` in the common space as a box of the stage's own
/// dimensions: [ceil(lo / scale), floor(hi / scale)] per dimension.
std::vector<Interval> stage_box(const GroupGeometry& g, std::size_t s,
                                const std::vector<Interval>& region);

/// How far a stage's region can reach beyond the tile, per stage and common
/// dimension: (below, above) >= 0, in the common space. A stage's region
/// spans at most tile size + below + above common positions.
std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>>
region_margins(const GroupGeometry& g, TileShape shape);

/// The common-space box the tiles cover: the hull of the live-outs' domains
/// ([0, 0] in a dimension no live-out has).
std::vector<Interval> tile_space(const GroupGeometry& g);

/// What `trapeze explain` reports about one stage of a tiled group.
struct StageFootprint {
  std::string stage;
  /// Largest per-tile region, per stage dimension: the scratchpad's extents.
  std::vector<std::int64_t> scratchpad_extents;
  std::int64_t computed_points = 0; ///< summed over all tiles
  std::int64_t domain_points = 0;
};

/// The footprint of a tiled group for concrete parameter values.
struct GroupFootprint {
  std::vector<std::int64_t> tile_counts; ///< per common dimension
  std::int64_t tiles = 0;
  std::vector<StageFootprint> stages; ///< topological order
  std::int64_t computed_points = 0, domain_points = 0;
  /// computed / domain - 1: the share of redundant (overlapped) computation.
  double redundant_fraction = 0;
};

/// Walks every tile of `group` for the bound parameters `params` and sums
/// the regions. An untiled group is one tile. Throws as group_geometry does.
GroupFootprint group_footprint(const Pipeline& p, const GroupSchedule& group, std::size_t index,
                               const ParamValues& params);

} // namespace trapeze::lower
