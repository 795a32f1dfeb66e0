// Paper 001's cost of a group on a multicore CPU (§4, Alg. 2; multi-level
// tiles, §5.2 and Alg. 4), the model the DP minimizes.
//
// COST(H) is infinite when H's dependences cannot be made constant (or H
// breaks another rule of fused groups). Otherwise CostForCacheSize picks
// tiles that fill a share of a cache (the tile footprint is also at most the
// group's buffers over the cores, so that every core gets tiles): the
// innermost tile min(InnerMostTileSize, the row), the others by reuse
// (tile_sizes.h). A tile whose overlap exceeds its volume, or whose buffers
// do not fit the cache, is not accepted: the innermost tile is halved and
// tried again, and halved further while eq. 2 prices the narrower tile lower,
// down to 128 points of the group's coarsest stored stage; a group whose
// stored stages lie at several scales along the rows keeps its rows whole
// where such a strip recomputes at most 15% (spans_scales_along_rows,
// LevelChoice::strips_across_scales), and so does any group whose strip of
// whole rows, sized by the same budget, fits the cache and recomputes at most
// 15% (LevelChoice::few_halo_rows). A tile that still recomputes more than 15%
// grows until it recomputes no more, and on while eq. 2 prices the larger
// tile lower, while the buffers it writes and reads back stay within the
// budget; the live-ins it re-reads may not
// (LevelChoice::grown_from_overlap). The L1 tile is kept if it is accepted
// with full-length rows and eq. 2 does not price the L2 tile lower (Alg. 2 keeps any accepted L1
// tile); otherwise the L2 tile, with the L1 tiles inside it as inner tiles when multi-level tiling
// is on (Alg. 4).
//
// The cost of the chosen tile is eq. 2 over the normalized components of
// group_decision.h, times the group's share of the pipeline's work, so that
// the sum over a grouping weighs each group by what it computes.
#pragma once

#include "autoschedule/cost_model.h"
#include "autoschedule/group_facts.h"
#include "autoschedule/pipeline_model.h"
#include "autoschedule/tile_metrics.h"

namespace trapeze::autoschedule {

/// Whether the group's stored stages lie at several scales along its
/// innermost dimension (up- or down-sampling along the rows). Such a group is
/// tiled in strips of whole rows where a strip recomputes little: cut into
/// tiles, its coarser stages compute rows of tile / scale points, and on the
/// pyramid apps whole rows ran 5-12% faster though eq. 2 prices them higher
/// (docs/autoschedule.md).
bool spans_scales_along_rows(const GroupFacts& facts);

/// Whether the group recomputes a stencil on memory (inlining's rule (v))
/// and so stores nothing but its live-outs: it keeps no scratchpad for
/// tiles to fit, and runs in strips of whole rows, as a single stage does
/// (blur with blurx inlined: 20-row strips ran in 9.7 ms; in 253 x 256
/// tiles inlining had not helped). Groups left without a scratchpad by the other rules keep their
/// tiles: given strips, pyramid_blend's DP regrouped its levels and ran 8%
/// slower (docs/autoschedule.md).
bool streams_whole_rows(const GroupFacts& facts);

class CpuCostModel : public CostModel {
public:
  CpuCostModel(const PipelineModel& model, const AutoScheduleOptions& options,
               const MachineModel& machine);
  std::string name() const override { return "paper 001 CPU model"; }
  GroupDecision evaluate(const std::vector<int>& members) const override;
  double cost(const std::vector<int>& members) const override;

  /// A tile for one cache level and whether it was accepted.
  struct LevelChoice {
    TileMetrics tile;
    bool accepted = false; ///< its overlap is at most its volume, its buffers fit the cache
    double budget = 0;     ///< bytes its buffers may fill
    /// Rows whole because a strip of them recomputes little
    /// (docs/autoschedule.md, "Strips where they recompute little").
    bool few_halo_rows = false;
    /// Rows whole because the group's stored stages lie at several scales
    /// along them and a strip recomputes little (spans_scales_along_rows).
    bool strips_across_scales = false;
    /// Where the tile grew because the one the budget bought recomputed
    /// more than a strip may: that tile's overlap (else 0).
    double grown_from_overlap = 0;
    /// Where a strip of few halo rows grew past the one the budget bought
    /// (its buffers no chain): that strip's tile sizes (else empty).
    std::vector<std::int64_t> strip_grown_from;
    /// A strip of few halo rows whose rows are cut, because whole rows' row
    /// window (row_window_bytes_per_point) exceeds the L1's share and the
    /// machine reads it from the L2 markedly slower
    /// (MachineModel::l2_window_share).
    bool strip_rows_cut = false;
    /// Where the tile spans the innermost dimension whole and, because eq. 2
    /// prices its whole runs in memory lower, the next dimension out as well:
    /// that dimension (else -1).
    int runs_across_rows = -1;
  };
  /// Alg. 2's CostForCacheSize: the tiles for a cache of `cache_bytes`, the
  /// dimensions marked in `whole` spanned whole.
  LevelChoice tiles_for_cache(const GroupFacts& facts, std::int64_t cache_bytes,
                              const std::vector<bool>& whole) const;

private:
  LevelChoice tiles_for_cache(const GroupFacts& facts, std::int64_t cache_bytes,
                              const std::vector<bool>& whole, TileMeasures& measure) const;
  /// Whether whole rows' row window (row_window_bytes_per_point) exceeds the
  /// L1's share on a machine that reads it from the L2 markedly slower
  /// (docs/autoschedule.md, "Row windows").
  bool window_spills(const GroupFacts& facts) const;
  /// The tiles chosen for a valid group, and how.
  struct Choice {
    LevelChoice level;
    std::vector<std::int64_t> inner;
    std::string tiling;
  };
  /// The cheaper of the tiles with the dimensions kept whole by rule, and,
  /// where a member reads a short dimension at mixed indices, with every
  /// short dimension whole.
  Choice choose(const GroupFacts& facts) const;
  Choice choose(const GroupFacts& facts, const std::vector<bool>& whole,
                TileMeasures& measure) const;
  /// Eq. 2 of a tile of the group (without the work share).
  double price(const GroupFacts& facts, const TileMetrics& tile) const;

  const PipelineModel& model_;
  AutoScheduleOptions options_;
  MachineModel machine_;
};

} // namespace trapeze::autoschedule
