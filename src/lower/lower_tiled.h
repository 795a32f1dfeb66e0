// Lowering a schedule: groups of fused stages computed in overlapped tiles.
#pragma once

#include "lower/loop_ir.h"
#include "trapeze/pipeline.h"
#include "trapeze/schedule.h"

namespace trapeze::lower {

/// Lowers `p` group by group, in topological order of the groups.
///  * An untiled group of one stage is the naive nest over its domain
///    (lower_stage), into a full buffer; the naive schedule (Schedule::naive) is
///    lowered this way too.
///  * A tiled group (or an untiled group of several stages, one tile) is a nest
///    of tile loops over its live-outs' common space (tile_regions.h), the
///    outer `parallel_tile_dims` collapsed and parallel. Each tile computes its
///    stages in topological order over their per-tile regions, whose bounds
///    are let variables above the stage nests, so every innermost loop is a
///    clean range. Scratchpad stages live in per-tile Stack buffers with
///    loop-invariant extents (the largest region), the region's minimum as
///    origin and the innermost extent padded to 64 bytes; live-outs and Full
///    stages in full buffers (if also read inside the group, computed in a
///    per-tile scratchpad and only the tile's own part copied out, so
///    overlapping tiles never write the same point). Inner tile sizes add
///    serial parallelogram tiles inside each tile (paper 001 §5.2).
///  * Inlined stages have no nest: their definition is substituted into every
///    reader (inline_stages.h; cases resolved by their boxes).
///  * With intra_tile_fusion, the nests of a tile's stages that read a common
///    producer over equal bounds are fused (intra_tile_fusion.h).
/// The schedule must already be valid (Schedule::validate). Throws
/// trapeze::Error naming the group or stage for what lowering does not
/// support (reductions in tiled groups, inlining a reduction).
///  * The rectangle shape computes the scalene regions, with the stages'
///    point loops fused in one-row bands along every dimension but the
///    innermost, each stage shifted by its upper margin (paper 000 §3.2).
/// `fused`, if given, receives per group (in the schedule's order) the sets
/// of stages whose nests intra-tile fusion fused.
Stmt lower_schedule(const Pipeline& p, const Schedule& schedule,
                    std::vector<std::vector<std::vector<std::string>>>* fused = nullptr);

} // namespace trapeze::lower
