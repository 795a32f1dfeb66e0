// HalideCostModel: power-of-two tiles under Halide's arithmetic + load cost.
#include "autoschedule/halide_cost_model.h"

#include "autoschedule/group_decision.h"
#include "autoschedule/group_facts.h"
#include "autoschedule/tile_metrics.h"

#include <fmt/core.h>

#include <algorithm>

namespace trapeze::autoschedule {

namespace {

// At most this many tile shapes are priced per group (the outer dimensions'
// choices are thinned beyond it).
constexpr std::size_t max_shapes = 4096;

// 1, 2, 4, ... up to the first power of two >= extent (the whole extent).
std::vector<std::int64_t> powers_up_to(std::int64_t extent, std::int64_t least) {
  std::vector<std::int64_t> out;
  for (std::int64_t v = 1; v < extent; v *= 2)
    if (v >= least) out.push_back(v);
  out.push_back(extent);
  return out;
}

} // namespace

HalideCostModel::HalideCostModel(const PipelineModel& model, const AutoScheduleOptions& options,
                                 const MachineModel& machine)
    : model_(model), options_(options), machine_(machine) {}

GroupDecision HalideCostModel::evaluate(const std::vector<int>& members) const {
  GroupFacts facts = group_facts(model_, members, options_.inline_stages, machine_.ops_per_byte);
  if (!facts.ok) return invalid_decision(facts, members);
  // Halide's 2016 model sizes a footprint from every stage's buffer: it
  // knows no sharing of buffers whose lifetimes are apart.
  for (std::size_t m = 0; m < facts.members.size(); ++m)
    facts.buffer_of[m] = facts.stored(m) ? static_cast<int>(m) : -1;
  const std::size_t dims = facts.geometry.common_dims();
  const double vector_width = 2.0 * machine_.vector_bytes / 4; // VECTOR_WIDTH: twice float's
  std::vector<std::vector<std::int64_t>> choices(dims);
  std::size_t shapes = 1;
  for (std::size_t c = dims; c-- > 0;) {
    choices[c] =
        powers_up_to(facts.space[c], c + 1 == dims ? static_cast<std::int64_t>(vector_width) : 1);
    while (shapes * choices[c].size() > max_shapes && choices[c].size() > 2)
      choices[c].erase(choices[c].begin() + 1, choices[c].begin() + 2); // drop the smallest but one
    shapes *= choices[c].size();
  }
  const auto price = [&](const TileMetrics& t) {
    double arithmetic = 0;
    for (std::size_t m = 0; m < facts.members.size(); ++m)
      arithmetic += t.region_points[m] * model_.stage(facts.members[m]).ops;
    const double spill = std::max(1.0, t.buffer_bytes / static_cast<double>(machine_.l2_bytes));
    const double loads = (t.live_in_bytes * spill + t.live_out_bytes) / 4;
    return (arithmetic + load_cost * loads) * t.tile_count;
  };
  TileMetrics best;
  double best_cost = infinite_cost;
  std::vector<std::int64_t> tiles(dims, 1);
  std::vector<std::size_t> at(dims, 0);
  for (std::size_t shape = 0; shape < shapes; ++shape) {
    std::size_t rest = shape;
    for (std::size_t c = dims; c-- > 0;) {
      tiles[c] = choices[c][rest % choices[c].size()];
      rest /= choices[c].size();
    }
    const TileMetrics t = measure_tile(model_, facts, tiles, TileExtent::Full);
    if (t.tile_count < machine_.cores && shape + 1 < shapes) continue; // PARALLELISM_THRESHOLD
    const double cost = price(t);
    if (cost < best_cost) {
      best_cost = cost;
      best = t;
    }
  }
  if (dims == 0) {
    best = measure_tile(model_, facts, {}, TileExtent::Full);
    best_cost = price(best);
  }
  std::vector<std::string> reasons = {
      fmt::format("Halide's cost {:.4g} (arithmetic + {:g} per element loaded, {:.3g} tiles of {})",
                  best_cost, load_cost, best.tile_count, format_sizes(best.tiles))};
  GroupDecision d = make_decision(model_, facts, best, {}, machine_, best_cost, std::move(reasons));
  d.report.tiling = facts.fused() ? "powers of two" : "untiled";
  return d;
}

} // namespace trapeze::autoschedule
