// Each stage's region for the tile, as lets, and each Produce's box (passes.h).
#include "lower/passes.h"

namespace trapeze::lower {

void bound_regions(GroupState& g, LoweringState& state) {
  if (!g.plan.fused) return;
  const plan::GroupGeometry& geometry = g.plan.geometry;
  const std::size_t dims = geometry.common_dims();
  g.regions = plan::tile_regions(
      geometry, g.plan.schedule.shape, g.tile, g.first,
      [&](std::size_t s, const std::vector<Interval>& r) {
        const ir::Function& f = *geometry.stages[s];
        if (state.plan.inlined(f.name())) return r; // no nest: only its producers use it
        std::vector<Interval> refs(dims);
        for (std::size_t c = 0; c < dims; ++c) {
          const int k = geometry.stage_dim[s][c];
          if (k < 0) {
            refs[c] = r[c];
            continue;
          }
          const std::string base = f.name() + "_" + f.vars()[static_cast<std::size_t>(k)];
          refs[c] =
              Interval(bind_let(g.lets, state.names, base + "_lo", state.prover.simplify(r[c].lo)),
                       bind_let(g.lets, state.names, base + "_hi", state.prover.simplify(r[c].hi)));
        }
        return refs;
      });
  g.boxes = stage_boxes(g, state, g.regions, g.lets);
  for (TileNest& n : g.nests) {
    const auto* produce = n.nest.as<Produce>();
    TRAPEZE_ASSERT(produce, "bound_regions runs on Produces");
    n.nest = with_box(*produce, g.boxes[stage_index(g.plan, *n.stage)]);
  }
}

} // namespace trapeze::lower
