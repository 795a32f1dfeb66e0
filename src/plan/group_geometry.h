// The geometry of a fused group: its stages aligned into one common space, and
// the region each stage computes per overlapped tile.
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
//
// A stage that lacks a common dimension lies at 0 in it: its producers must
// compute the positions it reads there whatever the tile (fixed positions),
// and, if it is a live-out, only the first tile along that dimension computes
// it for its own sake, so that tiles never write the same points twice.
#pragma once

#include "analysis/alignment.h"
#include "analysis/bounds_prover.h"
#include "trapeze/pipeline.h"
#include "trapeze/schedule.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace trapeze::plan {

/// A group of a schedule, with everything tiling needs to know about it.
struct GroupGeometry {
  std::string name; ///< "group 1 (blurx, blury)" for messages
  /// The stages, topologically ordered (as alignment.stages).
  std::vector<ir::FunctionPtr> stages;
  analysis::GroupAlignment alignment;
  std::vector<bool> live_out; ///< per stage: an output or read outside the group
  /// Per stage: kept in a full buffer (a live-out, or stored Full), so every
  /// tile computes its own part of it (the tile space covers its domain).
  std::vector<bool> full;
  /// Per stage, per common dimension: the stage's dimension there, or -1.
  std::vector<std::vector<int>> stage_dim;
  /// Per stage, per common dimension: a reduction whose updates address that
  /// dimension by a computed index (analysis/reduction_targets.h: Any), so
  /// that any of its points may need any update: its region is always its
  /// whole domain there.
  std::vector<std::vector<bool>> whole;
  /// Per stage, per common dimension: the scale (point x lies at scale * x; 1 where absent).
  std::vector<std::vector<std::int64_t>> scale;
  /// The producer and consumer of each dependence (indices into stages).
  std::vector<std::pair<std::size_t, std::size_t>> edges;
  /// Per stage, per stage dimension: the part of its domain the pipeline
  /// needs (plan/demand.h), which its regions and the tile space stay within;
  /// empty: the whole domain (the autoscheduler's candidate groups).
  std::vector<std::vector<Interval>> demanded;

  std::size_t common_dims() const { return alignment.common_dims.size(); }
  /// Whether another stage of the group reads stage s.
  bool read_in_group(std::size_t s) const;
};

/// Builds the geometry of the index-th group of `schedule`; `prover` is the
/// pipeline's (BoundsProver::for_pipeline, built once for all groups: it holds
/// a fact per stage); `demanded`, every stage's demanded box (demand.h).
/// Throws trapeze::Error naming the group if its stages cannot be aligned
/// into a common space with constant dependences.
GroupGeometry group_geometry(const Pipeline& p, const Schedule& schedule, std::size_t index,
                             const analysis::BoundsProver& prover,
                             const std::map<std::string, std::vector<Interval>>& demanded);

/// Whether a stage of a group is a live-out (an output or read outside the
/// group), and whether it is kept in a full buffer (a live-out, or stored Full).
struct StageRole {
  bool live_out = false;
  bool full = false;
};

/// The geometry of a group whose stages are aligned as `alignment` (which must
/// be ok), each stage's role given by `role`; `prover` is the pipeline's
/// (BoundsProver::for_pipeline), for the targets of reductions. For the
/// autoscheduler, which weighs groups no schedule holds yet.
GroupGeometry group_geometry(const Pipeline& p, std::string name,
                             analysis::GroupAlignment alignment,
                             const std::function<StageRole(const ir::Function&)>& role,
                             const analysis::BoundsProver& prover);

/// The box of its own dimensions that stage `s` computes over all tiles: its
/// demanded box, or its domain where the geometry has none.
const std::vector<Interval>& computed_box(const GroupGeometry& g, std::size_t s);

/// Per stage, per common dimension: the region's bounds in the common space (a
/// stage lacking the dimension lies at 0 in it). A stage with scale s computes
/// its points x with s * x in the region (stage_box).
using GroupRegions = std::vector<std::vector<Interval>>;

/// Per common dimension, a bool expression true in the first tile along it, or
/// undefined where the group has at most one tile along it (untiled). A
/// live-out that lacks a common dimension is computed for its own sake only
/// where it holds (see above).
using FirstTile = std::vector<Expr>;

/// Called once per stage (reverse topological order) with its computed region
/// in every common dimension; returns what later computations should use in its
/// place (a let variable for code, a constant for a concrete report).
using BindRegion =
    std::function<std::vector<Interval>(std::size_t stage, const std::vector<Interval>& region)>;

/// The region of every stage for one tile: `tile` is the tile's box in the
/// common space (already clamped to the live-outs' hull). Domains are the
/// stages' own (int64 expressions of the parameters). A consumer's region is
/// snapped to its own points (multiples of its scale) before it is widened by
/// a dependence, so sampling edges add no slack.
GroupRegions tile_regions(const GroupGeometry& g, TileShape shape,
                          const std::vector<Interval>& tile, const FirstTile& first,
                          const BindRegion& bind);

/// The stage's own demand condition: true where a full stage `s` computes
/// its points for its own sake (the first tile along every common dimension it
/// lacks); undefined if that is every tile.
Expr owns_tile(const GroupGeometry& g, std::size_t s, const FirstTile& first);

/// A region of stage `s` in the common space as a box of the stage's own
/// dimensions: [ceil(lo / scale), floor(hi / scale)] per dimension.
std::vector<Interval> stage_box(const GroupGeometry& g, std::size_t s,
                                const std::vector<Interval>& region);

/// How far a stage's region can reach in one common dimension, for any tile:
/// a part that follows the tile, within [tile.lo - below, tile.hi + above],
/// and a part at fixed positions [fixed_lo, fixed_hi] (what consumers that
/// lack the dimension read). A stage lacking the dimension is fixed at [0, 0].
struct DimReach {
  bool follows_tile = false;
  std::int64_t below = 0, above = 0; ///< >= 0
  /// Exactly where the part that follows the tile lies: [tile.lo + from,
  /// tile.hi + to], signed. below and above hold the tile too, so a
  /// dependence shifted by a constant (pyramid_blend's levels read their
  /// padded input at 2x - 33 .. 2x - 29) widens them by the shift, not by
  /// the window: what a scratchpad may allocate, not what a tile computes.
  std::int64_t from = 0, to = 0;
  bool fixed = false;
  std::int64_t fixed_lo = 0, fixed_hi = 0;
  bool whole = false; ///< always the stage's whole domain (GroupGeometry::whole)
  /// The most common positions the region can span for tiles of `tile_size`
  /// positions; nullopt when it has both parts (their distance depends on the
  /// tile: only the domain bounds it) or is the whole domain.
  std::optional<std::int64_t> span(std::int64_t tile_size) const;
  /// The positions the part that follows the tile covers for a tile of
  /// `tile_size` positions (to - from + tile_size; at least 1).
  double following_span(double tile_size) const;
};

/// Per stage (topological order) and common dimension.
using GroupReach = std::vector<std::vector<DimReach>>;

/// The reach of every stage of the group under `shape`.
GroupReach region_reach(const GroupGeometry& g, TileShape shape);

/// The common-space box the tiles cover: the hull of the full stages' domains
/// ([0, 0] in a dimension no live-out has).
std::vector<Interval> tile_space(const GroupGeometry& g);

} // namespace trapeze::plan
