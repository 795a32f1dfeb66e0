// The lowering passes, in the order lower.cpp runs them. Each is one file
// (named after it) with this one entry function. The group passes build one
// group of the plan (lowering_state.h); the module passes rewrite the whole
// pipeline's statement.
#pragma once

#include "lower/lowering_state.h"

namespace trapeze::lower {

// ---------------------------------------------------------------- group passes

/// tile_loops.cpp: the group's skeleton. A lone untiled stage is one Produce
/// over its domain (parallel). A fused group gets its tile loops over the
/// tile space (the full stages' hull), the outer `parallel_tile_dims`
/// collapsed and parallel, lets for the tile's bounds, and a Produce per stage
/// that is not inlined, not yet bounded.
void tile_loops(GroupState& g, LoweringState& state);

/// bound_regions.cpp: each stage's region for the tile (plan/group_geometry.h:
/// the scalene, PolyMage or rectangle regions) as lets, and each Produce's box.
void bound_regions(GroupState& g, LoweringState& state);

/// inner_tiles.cpp: the serial bands a tile runs in (GroupPlan::bands): band
/// loops, and each Produce's box narrowed to its band (paper 001 §5.2).
void inner_tiles(GroupState& g, LoweringState& state);

/// scratchpads.cpp: a per-tile buffer for every scratchpad stage, and for
/// every full stage that the tile also reads (its private copy); Produces are
/// retargeted to them.
void scratchpads(GroupState& g, LoweringState& state);

/// copy_out.cpp: after each tile, the tile's own part of each private copy
/// into the stage's full buffer (only in the tile that owns it).
void copy_out(GroupState& g, LoweringState& state);

/// clamp_indices.cpp: every data-dependent index of a Produce (one that reads
/// memory in the definition) clamped into its producer's domain, as expr.h
/// requires.
void clamp_indices(GroupState& g, LoweringState& state);

/// inline_stages.cpp: every read of an inlined stage in a Produce becomes its
/// definition at the read's point, cases resolved by their boxes.
void inline_stages(GroupState& g, LoweringState& state);

/// partition_cases.cpp: a Produce with cases is split into the boxes where one
/// case holds (cut points ordered once, clamped into the Produce's box), loops
/// over the pieces where an inner dimension splits again; no piece evaluates a
/// case test that its box decides.
void partition_cases(GroupState& g, LoweringState& state);

/// partition_parity.cpp: a Produce whose value tests `x % k` in a select or
/// reads at `(x + c) / k` at no data-dependent index (up-sampling,
/// demosaicking, interleaving) along a dimension is computed k points at a
/// time there: a loop over the coarse index with the k values as k
/// statements, each with x = k * x_coarse + r folded in, so no test is left
/// and the loads run at unit stride (the innermost such dimension; the box's
/// first and last points outside whole groups of k are computed as before).
void partition_parity(GroupState& g, LoweringState& state);

/// stage_loops.cpp: every Produce becomes loop nests storing its value (a
/// reduction: an initialization nest, then its updates, serial).
void stage_loops(GroupState& g, LoweringState& state);

/// intra_tile_fusion.cpp: inside a tile, the nests of stages that read a common
/// producer over equal loop bounds become one nest (paper 001 §5.3).
void intra_tile_fusion(GroupState& g, LoweringState& state);

/// prefetch_rows.cpp: in each nest of a group that prefetches a live-in
/// (GroupSchedule::prefetch), at the start of every iteration of a loop
/// around innermost loops (a row), the rows that the iteration that many rows
/// ahead loads first (those no earlier iteration loads), a cache line at a
/// time over the columns the innermost loops read there: only reads made at
/// every point (none under a select's arm or an if), affine, the row moving
/// with the loop.
void prefetch_rows(GroupState& g, LoweringState& state);

/// outline_nests.cpp: in a fused group, each stage's nest inside the tile (a
/// fused nest counts as one) becomes an Outlined statement, which code
/// generators print as a function of its own: compilers take time that grows
/// faster than the size of a function, and a group's tile holds them all.
void outline_nests(GroupState& g, LoweringState& state);

// ---------------------------------------------------------------- module passes

/// full_buffers.cpp: heap buffers for the stages kept in full, then the
/// outputs, then the inputs, around the groups.
Stmt full_buffers(const Stmt& s, const LoweringState& state);

/// hoist_scratchpads.cpp: the stack buffers of a parallel loop's iterations
/// whose extents do not change from one iteration to the next are allocated
/// once per thread, around the loop (PerThread), and each iteration reuses
/// its thread's memory with its own origin (Reuse): tiles stop allocating.
Stmt hoist_scratchpads(const Stmt& s, const LoweringState& state);

/// share_scratchpads.cpp: around a parallel loop, PerThread buffers of one
/// type whose lifetimes in an iteration are apart (the last step that uses
/// one runs before the first that uses the next) share one PerThread buffer
/// as large as the largest (PolyMage's storage reuse): a chain of ten
/// smoothing steps keeps two scratchpads' worth of memory in the cache, not
/// ten.
Stmt share_scratchpads(const Stmt& s, const LoweringState& state);

/// validate.cpp: every Store and Access names a buffer in scope with matching
/// dimensions, every variable is bound, no Produce is left. Returns `s`.
Stmt validate(const Stmt& s, const LoweringState& state);

} // namespace trapeze::lower
