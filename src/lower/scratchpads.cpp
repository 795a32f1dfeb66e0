// Per-tile buffers: scratchpads and private copies of full stages (passes.h).
#include "ir/ir_operators.h"
#include "lower/passes.h"

#include <algorithm>

namespace trapeze::lower {

using namespace ir;

namespace {

// The largest region of stage s in its dimension k over all tiles (never more
// than its domain); the innermost one padded to whole 64-byte lines.
Expr scratchpad_extent(const plan::GroupPlan& group, std::size_t s, std::size_t k,
                       const analysis::BoundsProver& prover) {
  const plan::GroupGeometry& g = group.geometry;
  const ir::Function& f = *g.stages[s];
  const Interval& range = f.domain()[k];
  Expr extent = plus(sub(range.hi, range.lo), 1);
  if (group.tiled) {
    std::size_t c = 0;
    while (g.stage_dim[s][c] != static_cast<int>(k))
      ++c;
    // At most `span` common positions, of which every scale-th is a point.
    if (const auto span = group.reach[s][c].span(group.schedule.tile_sizes[c]))
      extent = min_of(i64(std::max<std::int64_t>(*span - 1, 0) / g.scale[s][c] + 1), extent);
  }
  extent = prover.simplify(extent);
  if (k + 1 == static_cast<std::size_t>(f.dimensions()) && group.schedule.vectorize) {
    const std::int64_t lanes = std::max<std::int64_t>(1, 64 / byte_size(f.type()));
    extent = prover.simplify(mul(div_of(plus(extent, lanes - 1), i64(lanes)), i64(lanes)));
  }
  return extent;
}

TileBuffer tile_buffer(const GroupState& g, std::size_t s, std::string name,
                       const analysis::BoundsProver& prover) {
  TileBuffer b{s, std::move(name), {}, {}};
  for (const Interval& range : g.boxes[s])
    b.origin.push_back(range.lo);
  for (std::size_t k = 0; k < g.boxes[s].size(); ++k)
    b.extents.push_back(scratchpad_extent(g.plan, s, k, prover));
  return b;
}

} // namespace

void scratchpads(GroupState& g, LoweringState& state) {
  if (!g.plan.fused) return;
  const plan::GroupGeometry& geometry = g.plan.geometry;
  std::vector<TileBuffer> copies;
  for (std::size_t s = 0; s < geometry.stages.size(); ++s) {
    const std::string& name = geometry.stages[s]->name();
    if (state.plan.inlined(name)) continue;
    if (!geometry.full[s]) {
      g.buffers.push_back(tile_buffer(g, s, name, state.prover));
    } else if (g.plan.tiled && geometry.read_in_group(s)) {
      // Overlapping tiles would write the same points of the full buffer at
      // once: each tile computes the stage in a scratchpad of its own, and
      // copy_out moves just the tile's part.
      g.private_copy[s] = state.names.fresh(name + "_tile");
      copies.push_back(tile_buffer(g, s, g.private_copy[s], state.prover));
    }
  }
  g.buffers.insert(g.buffers.end(), copies.begin(), copies.end());
  for (TileNest& n : g.nests) {
    const auto it = g.private_copy.find(stage_index(g.plan, *n.stage));
    if (it == g.private_copy.end()) continue;
    const auto* produce = n.nest.as<Produce>();
    TRAPEZE_ASSERT(produce, "scratchpads runs on Produces");
    n.nest = with_buffer(*produce, it->second);
  }
}

} // namespace trapeze::lower
