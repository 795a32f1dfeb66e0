// What the lowering passes build and hand on: per group of the plan, the parts
// of its loop nest, which assemble() puts together in one fixed order.
//
//   // group comment
//   for each tile loop (tiled groups; the outer ones collapsed and parallel):
//     let tile bounds, then each stage's region (bound_regions)
//     allocate each scratchpad (scratchpads)
//       for each band loop (inner_tiles):
//         let each stage's band
//         the stages' statements, in order (a Produce each, later loop nests)
//       the copy-outs (copy_out)
//
// A lone untiled stage (the naive schedule's groups) has only its statements.
#pragma once

#include "analysis/bounds_prover.h"
#include "lower/inline_stages.h"
#include "lower/loop_ir.h"
#include "plan/plan.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace trapeze::lower {

/// A loop of the group's skeleton (a tile loop or a band loop).
struct SkeletonLoop {
  std::string var;
  Expr min, max;
  ForKind kind = ForKind::Serial;
  int collapse = 1;
  ParallelSchedule schedule = ParallelSchedule::Static;
};

/// A let of the group's skeleton.
using SkeletonLet = std::pair<std::string, Expr>;

/// One stage's statements inside a tile, in the order the stages run.
struct TileNest {
  ir::FunctionPtr stage;
  Stmt comment; ///< what the nest computes, printed before it
  Stmt nest;    ///< a Produce until stage_loops, then loop nests
};

/// A per-tile buffer of a stage (a scratchpad, or a full stage's private copy).
struct TileBuffer {
  std::size_t stage = 0; ///< index into the group's stages
  std::string name;
  std::vector<Expr> origin, extents;
};

/// One group as the passes build it.
struct GroupState {
  explicit GroupState(const plan::GroupPlan& p) : plan(p) {}
  const plan::GroupPlan& plan;
  std::string comment; ///< the group's description, printed first

  // tile_loops
  std::vector<SkeletonLoop> tile_loops; ///< outermost first
  std::vector<SkeletonLet> lets;        ///< tile bounds, then regions (in order)
  std::vector<Interval> tile;           ///< the tile's box in the common space
  plan::FirstTile first;                ///< per common dimension: the first tile along it

  // bound_regions: per stage (the geometry's order), its region in the common
  // space and its box (stage dimensions), both for the whole tile
  plan::GroupRegions regions;
  std::vector<std::vector<Interval>> boxes;

  // inner_tiles
  std::string band_comment; ///< what the bands are, printed before their loops
  std::vector<SkeletonLoop> band_loops;
  std::vector<SkeletonLet> band_lets;

  // scratchpads: the per-tile buffers, and the buffer each stage is stored to
  std::vector<TileBuffer> buffers;
  std::map<std::size_t, std::string> private_copy; ///< full stages computed per tile

  // the statements
  std::vector<TileNest> nests; ///< the stages in order (inlined stages have none)
  /// Set by intra_tile_fusion: the nests as they run, fused ones merged.
  std::optional<std::vector<Stmt>> fused;
  std::vector<std::vector<std::string>> fused_sets; ///< stages whose nests were fused
  /// Set by stage_loops: the float sums computed into partial results, whose
  /// additions run in another order than the definition's.
  std::vector<std::string> reassociated_sums;
  std::vector<Stmt> after; ///< copy-outs

  /// The group's statement, its parts in the order above.
  Stmt assemble() const;
};

/// Picks names for the lets and loops lowering adds: never a parameter of the
/// pipeline, never one already picked.
class NameAllocator {
public:
  explicit NameAllocator(std::set<std::string> taken) : taken_(std::move(taken)) {}
  /// `base`, or base_2, base_3, ... if taken.
  std::string fresh(const std::string& base);

private:
  std::set<std::string> taken_;
};

/// What every pass may use: the plan, the prover, the names, the inliner.
struct LoweringState {
  explicit LoweringState(const plan::Plan& p);
  LoweringState(const LoweringState&) = delete; // the inliner refers to the prover
  LoweringState& operator=(const LoweringState&) = delete;
  const plan::Plan& plan;
  const analysis::BoundsProver prover;
  const std::set<std::string> param_names;
  NameAllocator names;
  const StageInliner inliner;
  std::vector<GroupState> groups; ///< the plan's groups, in the order they run
};

/// The index of `stage` in the group's stages.
std::size_t stage_index(const plan::GroupPlan& group, const ir::Function& stage);

/// The Produce `p` with another box or buffer.
Stmt with_box(const Produce& p, std::vector<Interval> box);
Stmt with_buffer(const Produce& p, std::string buffer);

/// Each stage's box (its own dimensions) for the regions `regions` of its
/// group: [ceil(lo / scale), floor(hi / scale)] per dimension, the bounds of
/// sampled stages bound as lets in `lets`. Inlined stages get none (empty).
std::vector<std::vector<Interval>> stage_boxes(const GroupState& g, LoweringState& state,
                                               const plan::GroupRegions& regions,
                                               std::vector<SkeletonLet>& lets);

/// An int64 let of `value` in `lets`, named after `base`. A let of the same
/// value already there is reused, so that stages with equal regions get the
/// same loop bounds (intra_tile_fusion compares them).
Expr bind_let(std::vector<SkeletonLet>& lets, NameAllocator& names, const std::string& base,
              const Expr& value);

} // namespace trapeze::lower
