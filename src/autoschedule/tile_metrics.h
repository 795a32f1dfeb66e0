// What one tile of a group costs, at the estimates: the points its stages
// compute (regions from plan::region_reach, the tight scalene shape lowering
// builds), the live-in and live-out data it moves, its buffers' bytes, and
// how many tiles the space holds. Points and data are those of the mean tile
// (the space over the tile count), since lowering clips the edge tiles to
// the space; the buffers are those of the full tile. Every cost model and
// the greedy heuristics measure candidate tiles with this.
#pragma once

#include "autoschedule/group_facts.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

namespace trapeze::autoschedule {

struct TileMetrics {
  std::vector<std::int64_t> tiles; ///< the tile measured, clamped to the space
  double tile_count = 0;           ///< tiles in the space
  std::vector<double> tile_counts; ///< per dimension
  double computed = 0;             ///< points the mean tile computes (its stages' regions)
  double useful = 0;               ///< the group's work / tiles: what a tile must compute
  double redundant = 0;            ///< computed - useful (>= 0): the overlap
  double live_in_bytes = 0;        ///< data a tile reads from outside the group
  double live_out_bytes = 0;       ///< data a tile writes for outside the group
  /// The live-in and live-out data by the runs of contiguous bytes it
  /// takes (a region's rows, or its whole extent where its rows span the
  /// buffer's): what MachineModel::run_bandwidth prices.
  struct Stream {
    double bytes = 0, run_bytes = 0;
    bool written = false;
  };
  std::vector<Stream> streams;
  /// Its stored stages' full-tile regions, those whose lifetimes are apart
  /// in one memory (share_scratchpads): all the memory it writes (Halide's
  /// model prices a spill by it).
  double buffer_bytes = 0;
  /// What the tile reads back, and so what the CPU model fits to a cache:
  /// its cached members' buffers (GroupFacts::cached) and the regions of the
  /// live-ins two of its nests load (GroupFacts::live_ins_read_back).
  double cached_bytes = 0;
  /// The live-ins' share of cached_bytes: data the tile reads from outside
  /// the group and re-reads, from the next cache level where it was evicted.
  double live_in_read_back_bytes = 0;
  std::vector<double> region_points; ///< per member: its region in the mean tile

  /// Paper 001's relative overlap, eq. 2's overlap component: redundant over
  /// useful points.
  double overlap() const { return redundant / std::max(useful, 1.0); }
};

/// Which tile a measure describes: the mean tile (the space over the tile
/// count: what the tiles compute together, as lowering clips them), or the
/// full tile for every tile, edge tiles included (Halide's 2016
/// autoscheduler prices ceil(extent / tile) tiles of full size, and the
/// halide-greedy baseline does as it does).
enum class TileExtent : std::uint8_t { Mean, Full };

/// The metrics of `facts` tiled by `tiles` (one size per common dimension).
TileMetrics measure_tile(const PipelineModel& model, const GroupFacts& facts,
                         std::vector<std::int64_t> tiles, TileExtent extent = TileExtent::Mean);

/// measure_tile for one group, each tile measured once: a cost model tries
/// the same tiles for several cache levels and row lengths (dp measured 43%
/// of pyramid_blend's candidate tiles more than once).
class TileMeasures {
public:
  TileMeasures(const PipelineModel& model, const GroupFacts& facts)
      : model_(model), facts_(facts) {}
  /// The mean tile's metrics; the reference lives as long as this object.
  const TileMetrics& operator()(const std::vector<std::int64_t>& tiles);

private:
  const PipelineModel& model_;
  const GroupFacts& facts_;
  std::map<std::vector<std::int64_t>, TileMetrics> measured_;
};

/// Bytes per point of the common space that a tile reads back: its cached
/// stages' (GroupFacts::cached; a stage at scale s in a dimension has one
/// point per s there, and those whose lifetimes are apart count once, as
/// share_scratchpads lays them out), and its live-ins read back at their
/// first reader's scale.
double cached_bytes_per_point(const PipelineModel& model, const GroupFacts& facts);

/// A tile's row window, per point of its rows (the innermost common
/// dimension): the bytes of the rows its nests read at one row of the tile
/// and read again at the next ones, a stencil's taps across its rows (in
/// every dimension but the innermost). Per producer read in the group (a
/// stored member read by another, or a live-in), the rows its reads span
/// from a nest's point, through the members inlined into the nest, times
/// its bytes along a common row; summed over the producers. unsharp's five
/// input rows and one blurx row: 24 bytes a point. Times the tile's row
/// length, what the L1 must hold for those rows to be read from it
/// (MachineModel::l2_window_share).
double row_window_bytes_per_point(const PipelineModel& model, const GroupFacts& facts);

/// The bytes of all the group's cached stages over their whole domains.
double cached_bytes_total(const PipelineModel& model, const GroupFacts& facts);

/// Per common dimension, how much the group reuses data along it: 1 plus the
/// widths of the dependence ranges along it, of the edges inside the group
/// and of its live-in reads (a 5-tap blur along y adds 4 to y).
std::vector<double> dimension_reuse(const PipelineModel& model, const GroupFacts& facts);

} // namespace trapeze::autoschedule
