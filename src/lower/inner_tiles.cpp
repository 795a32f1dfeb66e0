// The serial bands a tile runs in: multi-level tiling (passes.h).
#include "ir/ir_operators.h"
#include "lower/passes.h"

#include <fmt/format.h>

namespace trapeze::lower {

using namespace ir;

// Inside the overlapped tile, serial parallelogram tiles whose faces lean like
// the tile's upper faces (paper 001 §5.2). In each split dimension, band j of
// stage s covers its region from B_j + above_s to B_j+1 - 1 + above_s (B_j =
// tile start + j * band size, above_s the stage's upper reach), the first
// band from the region's start and the last to its end. A consumer's band then
// needs only producer points of this or earlier bands (above_s >=
// above_consumer + distance), so the bands run in lexicographic order and reuse
// the tile's scratchpads. A dimension a stage lacks is never split (plan.h),
// so no stage with fixed positions is banded.
void inner_tiles(GroupState& g, LoweringState& state) {
  const std::vector<std::int64_t>& sizes = g.plan.bands;
  if (sizes.empty()) return;
  const plan::GroupGeometry& geometry = g.plan.geometry;
  const std::size_t dims = geometry.common_dims();
  const analysis::BoundsProver& prover = state.prover;
  plan::GroupRegions bands(geometry.stages.size(), std::vector<Interval>(dims));
  for (std::size_t c = 0; c < dims; ++c) {
    const std::int64_t size = sizes[c];
    if (size == 0) { // not split
      for (std::size_t s = 0; s < geometry.stages.size(); ++s)
        bands[s][c] = g.regions[s][c];
      continue;
    }
    const std::string& dim = geometry.alignment.common_dims[c];
    const Interval& tile = g.tile[c];
    const std::string var = state.names.fresh(dim + "_inner");
    const Expr last = prover.simplify(
        size == 1 ? sub(tile.hi, tile.lo)
                  : sub(div_of(add(sub(tile.hi, tile.lo), i64(size)), i64(size)), i64(1)));
    const std::string start = state.names.fresh(dim + "_inner_lo");
    g.band_lets.emplace_back(
        start, prover.simplify(add(tile.lo, mul(as_i64(VarRef::make(var)), i64(size)))));
    const Expr first_band = eq(VarRef::make(var), Expr(0));
    const Expr last_band = eq(as_i64(VarRef::make(var)), last);
    const Expr b = let_ref(start, ScalarType::Int64);
    for (std::size_t s = 0; s < geometry.stages.size(); ++s) {
      const ir::Function& f = *geometry.stages[s];
      if (geometry.stage_dim[s][c] < 0 || state.plan.inlined(f.name())) {
        bands[s][c] = g.regions[s][c];
        continue;
      }
      const plan::DimReach& reach = g.plan.reach[s][c];
      TRAPEZE_ASSERT(!reach.fixed,
                     "a band split along a dimension where " + f.name() + " has fixed positions");
      const Interval& r = g.regions[s][c];
      const std::string base =
          f.name() + "_" + f.vars()[static_cast<std::size_t>(geometry.stage_dim[s][c])] + "_band";
      bands[s][c] = Interval(
          bind_let(
              g.band_lets, state.names, base + "_lo",
              Select::make(first_band, r.lo, prover.simplify(max_of(r.lo, plus(b, reach.above))))),
          bind_let(g.band_lets, state.names, base + "_hi",
                   Select::make(last_band, r.hi,
                                prover.simplify(min_of(r.hi, plus(b, size - 1 + reach.above))))));
    }
    g.band_loops.push_back({var, i64(0), last, ForKind::Serial, 1});
  }
  const std::vector<std::vector<Interval>> boxes = stage_boxes(g, state, bands, g.band_lets);
  for (TileNest& n : g.nests) {
    const auto* produce = n.nest.as<Produce>();
    TRAPEZE_ASSERT(produce, "inner_tiles runs on Produces");
    n.nest = with_box(*produce, boxes[stage_index(g.plan, *n.stage)]);
  }
  std::vector<std::string> shown;
  for (std::int64_t size : sizes)
    shown.push_back(size ? std::to_string(size) : "whole");
  g.band_comment =
      g.plan.schedule.inner_tile_sizes.empty()
          ? fmt::format("rectangle shape: the stages' point loops fused in bands [{}], each "
                        "stage shifted by its upper margin, in order",
                        fmt::join(shown, ", "))
          : fmt::format("inner parallelogram tiles [{}], in order", fmt::join(shown, ", "));
}

} // namespace trapeze::lower
