// Shared by the cost models: turning a candidate group, its tiles and its
// cost into a GroupDecision (the GroupSchedule, inlined stages, report), and
// the components of paper 001's eq. 2 for a measured tile.
#pragma once

#include "autoschedule/cost_model.h"
#include "autoschedule/group_facts.h"
#include "autoschedule/tile_metrics.h"

#include <map>
#include <string>
#include <vector>

namespace trapeze::autoschedule {

/// The four components of eq. 2 for a tile, normalized (docs/autoschedule.md):
///   live_data        (live-in + live-out bytes, each over the bandwidth share of
///                    its runs: MachineModel::run_bandwidth) / useful points / 16
///   cleanup          idle core-slots in the rounds of tiles / all slots
///   overlap          redundant / useful points (paper 001's relative overlap)
/// (useful: the group's work divided among its tiles; redundant: what a tile
/// computes beyond that)
///   size_difference  per common dimension the tile cuts, the coefficient of
///                    variation of the stages' extents there (scaled into the
///                    common space, so a 2x down-sampled stage does not
///                    differ), averaged
struct CostComponents {
  double live_data = 0, cleanup = 0, overlap = 0, size_difference = 0;
};
CostComponents cost_components(const GroupFacts& facts, const TileMetrics& tile,
                               const MachineModel& machine);

/// w . components.
double weighted(const CostWeights& w, const CostComponents& c);

/// The group's share of the pipeline's work (sum of its stages' work / all).
double work_share(const PipelineModel& model, const GroupFacts& facts);

/// How many outermost tile loops to collapse and run in parallel: the fewest
/// whose tiles number at least 4 per core (dynamic scheduling then balances),
/// else all up to the last that has more than one tile.
int parallel_tile_dims(const TileMetrics& tile, int cores);

/// A decision for a valid group: tiled by `tiles` (inner tiles `inner`, may
/// be empty) if it is fused, untiled if it is one stage; storage from facts;
/// narrower vectors where a nest streams (narrow_vector_bytes); `reasons` go
/// first in the group's reasons, then one per inlined stage and one per
/// narrowed nest.
GroupDecision make_decision(const PipelineModel& model, const GroupFacts& facts,
                            const TileMetrics& tile, const std::vector<std::int64_t>& inner,
                            const MachineModel& machine, double cost,
                            std::vector<std::string> reasons);

/// The widest vectors, in bytes, for the nest of a tiled group's stored member
/// `m` (0: the machine's widest). A live-out's nest that computes at most
/// MachineModel::ops_per_byte operations a byte it moves to or from memory
/// waits on memory; on a machine with 64-byte vectors it gets 32-byte ones:
/// such nests ran 12-23% faster so on AMD Zen 5 (blur's, pyramid_blend's
/// blend, interpolate's finest level), where nests that compute more ran
/// slower. Elements of 4 bytes or more only: a nest that stores narrower ones
/// packs its lanes, which ran faster in 64-byte vectors (local_laplacian's
/// 16-bit output 68% slower in 32-byte ones). docs/performance.md, "Narrower
/// vectors where a nest streams". GCC prefers 32-byte vectors on Intel's
/// cores already.
/// A stored nest that gathers (its stage, or a stage inlined into it, is a
/// look-up; not a reduction, whose updates run in order), live-out or not, on
/// a machine whose gathers are scalar loads (MachineModel::vector_gathers
/// false) gets 32-byte vectors too: on AMD Zen 5 local_laplacian's gathering
/// nests ran 0.96 of their time so, and bilateral_grid's slicing, both
/// channels in one nest, 0.93 where 64-byte vectors took 1.10-1.20
/// (docs/performance.md, "Both channels of the slicing in one nest").
int narrow_vector_bytes(const PipelineModel& model, const GroupFacts& facts, std::size_t m,
                        const MachineModel& machine);

/// Whether member m's nest gathers: m is a look-up, or a look-up is inlined
/// into it (directly or through other inlined members).
bool nest_gathers(const PipelineModel& model, const GroupFacts& facts, std::size_t m);

/// The live-ins a tiled group prefetches (GroupSchedule::prefetch), each one
/// row ahead, with the reason for each: those its aligned members read (a
/// member inlined into another reads in that one's nest) at affine points
/// (not only by look-ups, which lowering does not prefetch) whose values do not
/// fit in a core's L2, so that its tiles load them from the next level or
/// from memory, in a tile's short rows, each starting a page of its own, which
/// the hardware's prefetchers pick up late: Harris' image in 480-column tiles
/// 0.86 of its time without, the 3-D multigrid cycles' grids 0.82-0.87, and
/// unsharp's image in strips of whole rows 0.90 (docs/performance.md,
/// "Prefetching a tile's next rows"). Live-ins the L2 holds gain nothing.
std::map<std::string, int> prefetched_live_ins(const PipelineModel& model, const GroupFacts& facts,
                                               const MachineModel& machine,
                                               std::vector<std::string>& reasons);

/// make_decision with paper 001's cost (eq. 2 weighted by the group's work
/// share) of `tile`, its components in the report and first among the
/// reasons; `tiling` ("L1", "L2", "L1 in L2", "fixed") is reported for fused
/// groups ("untiled" otherwise).
GroupDecision priced_decision(const PipelineModel& model, const GroupFacts& facts,
                              const TileMetrics& tile, const std::vector<std::int64_t>& inner,
                              const MachineModel& machine, const CostWeights& weights,
                              const std::string& tiling, std::vector<std::string> reasons);

/// A decision for a group that cannot be formed.
GroupDecision invalid_decision(const GroupFacts& facts, const std::vector<int>& members);

/// "[1, 20, 4256]".
std::string format_sizes(const std::vector<std::int64_t>& sizes);

} // namespace trapeze::autoschedule
