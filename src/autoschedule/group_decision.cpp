// GroupDecision helpers shared by the cost models.
#include "autoschedule/group_decision.h"

#include "autoschedule/inlining.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

namespace trapeze::autoschedule {

namespace {

// Bytes per point at which the live-data component is 1: a stage reading two
// float inputs and writing one moves 12.
constexpr double live_data_unit = 16;

} // namespace

std::string format_sizes(const std::vector<std::int64_t>& sizes) {
  std::string s = "[";
  for (std::size_t i = 0; i < sizes.size(); ++i)
    s += (i ? ", " : "") + std::to_string(sizes[i]);
  return s + "]";
}

CostComponents cost_components(const GroupFacts& facts, const TileMetrics& tile,
                               const MachineModel& machine) {
  CostComponents c;
  // Per point of useful work: redundant points make neither term look better.
  const double useful = std::max(tile.useful, 1.0);
  // Each live-in and live-out at the bandwidth its runs stream at: a tile's
  // short rows far apart take longer per byte than whole rows
  // (docs/autoschedule.md, "Row runs").
  double live = 0;
  for (const TileMetrics::Stream& stream : tile.streams)
    live += stream.bytes / (stream.written ? machine.write_share(stream.run_bytes)
                                           : machine.read_share(stream.run_bytes));
  c.live_data = live / useful / live_data_unit;
  const double cores = machine.cores;
  const double rounds = std::ceil(tile.tile_count / cores);
  c.cleanup = (rounds * cores - tile.tile_count) / (rounds * cores);
  c.overlap = tile.overlap();
  const plan::GroupGeometry& g = facts.geometry;
  double spread = 0;
  std::size_t counted = 0;
  for (std::size_t d = 0; d < g.common_dims(); ++d) {
    // A dimension the tile spans whole has no tiles part-filled by the
    // shorter stages: each loops its own extent (bilateral_grid's 15 bins of
    // the histogram beside blurz's 11), so only the cut dimensions count.
    if (tile.tile_counts[d] <= 1) continue;
    double sum = 0, squares = 0, n = 0;
    for (std::size_t m = 0; m < facts.members.size(); ++m) {
      if (g.stage_dim[m][d] < 0) continue;
      // In the common space: a stage at scale 2 spans twice its points.
      const double e = static_cast<double>(facts.extents[m][d] * g.scale[m][d]);
      sum += e;
      squares += e * e;
      n += 1;
    }
    if (n < 2) continue;
    const double mean = sum / n, variance = std::max(0.0, squares / n - mean * mean);
    spread += std::sqrt(variance) / mean;
    ++counted;
  }
  c.size_difference = counted ? spread / static_cast<double>(counted) : 0;
  return c;
}

double weighted(const CostWeights& w, const CostComponents& c) {
  return w.live_data * c.live_data + w.cleanup * c.cleanup + w.overlap * c.overlap +
         w.size_difference * c.size_difference;
}

double work_share(const PipelineModel& model, const GroupFacts& facts) {
  double work = 0;
  for (int m : facts.members)
    work += model.stage(m).work;
  // A folded stage's work moves into its readers (an index clamp a read):
  // the group's share keeps it, so that every grouping's shares sum to one.
  for (int m : facts.folded)
    work += model.stage(m).work;
  return model.total_work() > 0 ? work / model.total_work() : 0;
}

int parallel_tile_dims(const TileMetrics& tile, int cores) {
  // Inner dimensions of one tile add no parallel work: collapsed, they only
  // divide the loop's index once more and hide their tile's origin from the
  // compiler (bilateral_grid's blur group ran 3% slower with its one tile of
  // intensity bins collapsed with the others).
  std::size_t split = 0;
  for (std::size_t d = 0; d < tile.tile_counts.size(); ++d)
    if (tile.tile_counts[d] > 1) split = d + 1;
  double tiles = 1;
  for (std::size_t d = 0; d < split; ++d) {
    tiles *= tile.tile_counts[d];
    if (tiles >= 4.0 * cores) return static_cast<int>(d + 1);
  }
  return std::max<int>(1, static_cast<int>(split));
}

bool nest_gathers(const PipelineModel& model, const GroupFacts& facts, std::size_t m) {
  if (model.stage(facts.members[m]).data_dependent) return true;
  // A look-up inlined into m, directly or through other inlined members.
  const auto position = [&](int stage) {
    return static_cast<std::size_t>(std::find(facts.members.begin(), facts.members.end(), stage) -
                                    facts.members.begin());
  };
  for (std::size_t i = 0; i < facts.members.size(); ++i) {
    if (!facts.inlined(i) || !model.stage(facts.members[i]).data_dependent) continue;
    std::vector<std::size_t> stack = {i};
    std::vector<char> seen(facts.members.size(), 0);
    while (!stack.empty()) {
      const std::size_t p = stack.back();
      stack.pop_back();
      for (int c : model.stage(facts.members[p]).consumers) {
        const std::size_t k = position(c);
        if (k >= facts.members.size() || seen[k]) continue;
        if (k == m) return true;
        seen[k] = 1;
        if (facts.inlined(k)) stack.push_back(k);
      }
    }
  }
  return false;
}

int narrow_vector_bytes(const PipelineModel& model, const GroupFacts& facts, std::size_t m,
                        const MachineModel& machine) {
  constexpr int narrow = 32;
  if (machine.vector_bytes <= narrow || !facts.fused() || facts.inlining.empty() ||
      !facts.stored(m) || model.stage(facts.members[m]).bytes < 4)
    return 0;
  // A reduction's updates run in order, not in vectors.
  if (!machine.vector_gathers && !model.stage(facts.members[m]).reduction &&
      nest_gathers(model, facts, m))
    return narrow;
  if (!facts.live_out(m)) return 0;
  const InlineDecision& nest = facts.inlining[m];
  if (!(nest.memory_bytes > 0) || nest.operations > machine.ops_per_byte * nest.memory_bytes)
    return 0;
  return narrow;
}

namespace {

// Whether some read of the edge is affine in every index, or is once its
// clamps to constant bounds are off (a boundary condition's, which case
// partitioning removes in the interior): what lowering prefetches. A
// look-up's gathers are not.
bool read_at_affine_points(const analysis::EdgeDependence& edge) {
  return std::any_of(edge.accesses.begin(), edge.accesses.end(), [](const analysis::AccessInfo& a) {
    return std::all_of(a.unclamped_forms.begin(), a.unclamped_forms.end(),
                       [](const auto& form) { return form.has_value(); });
  });
}

} // namespace

std::map<std::string, int> prefetched_live_ins(const PipelineModel& model, const GroupFacts& facts,
                                               const MachineModel& machine,
                                               std::vector<std::string>& reasons) {
  std::map<std::string, int> prefetch;
  if (!facts.fused()) return prefetch;
  const auto member = [&](int stage) {
    return std::find(facts.members.begin(), facts.members.end(), stage) != facts.members.end() ||
           std::find(facts.folded.begin(), facts.folded.end(), stage) != facts.folded.end();
  };
  for (int m : facts.members)
    for (std::size_t e : model.stage(m).in_edges) {
      const analysis::EdgeDependence& edge = model.edges()[e];
      const int producer = model.producer_of(edge);
      if (producer >= 0 && member(producer)) continue;
      const std::string name =
          edge.producer_stage ? edge.producer_stage->name() : edge.producer_input->name();
      const double bytes = model.producer_box_bytes(edge);
      if (prefetch.count(name) || bytes <= static_cast<double>(machine.l2_bytes) ||
          !read_at_affine_points(edge))
        continue;
      prefetch[name] = 1;
      reasons.push_back(fmt::format(
          "{} prefetched a row ahead in the nests that read it: its {:.3g} MB do not fit in "
          "a core's {} KiB L2, and a tile loads them in short rows that the hardware's "
          "prefetchers pick up late",
          name, bytes / 1e6, machine.l2_bytes / 1024));
    }
  return prefetch;
}

GroupDecision make_decision(const PipelineModel& model, const GroupFacts& facts,
                            const TileMetrics& tile, const std::vector<std::int64_t>& inner,
                            const MachineModel& machine, double cost,
                            std::vector<std::string> reasons) {
  const int cores = machine.cores;
  GroupDecision d;
  d.valid = true;
  d.cost = cost;
  d.members = facts.members;
  d.members.insert(d.members.end(), facts.folded.begin(), facts.folded.end());
  std::sort(d.members.begin(), d.members.end());
  GroupSchedule& group = d.group;
  for (int m : d.members)
    group.stages.push_back(model.stage(m).function->name());
  if (facts.fused() && facts.geometry.common_dims() > 0) {
    group.tile_sizes = tile.tiles;
    group.parallel_tile_dims = parallel_tile_dims(tile, cores);
    if (!inner.empty() && inner != tile.tiles) group.inner_tile_sizes = inner;
  }
  for (int m : facts.folded) {
    const std::string& name = model.stage(m).function->name();
    d.inlined.push_back(name);
    reasons.push_back(name + " inlined into the reductions that read it: it computes nothing (a "
                             "boundary condition), so they read its producer at clamped indices "
                             "rather than a copy of it in memory");
  }
  for (std::size_t m = 0; m < facts.members.size(); ++m) {
    if (!facts.inlined(m)) continue;
    const std::string& name = model.stage(facts.members[m]).function->name();
    d.inlined.push_back(name);
    reasons.push_back(name + " inlined: " + facts.inlining[m].reason);
  }
  if (!group.tile_sizes.empty())
    group.prefetch = prefetched_live_ins(model, facts, machine, reasons);
  if (!group.tile_sizes.empty())
    for (std::size_t m = 0; m < facts.members.size(); ++m) {
      const int bytes = narrow_vector_bytes(model, facts, m, machine);
      if (!bytes) continue;
      const std::string& name = model.stage(facts.members[m]).function->name();
      const InlineDecision& nest = facts.inlining[m];
      group.vector_bytes[name] = bytes;
      if (!machine.vector_gathers && !model.stage(facts.members[m]).reduction &&
          nest_gathers(model, facts, m)) {
        reasons.push_back(
            fmt::format("{} in vectors of {} bytes: its nest gathers, one scalar load "
                        "a lane on this machine, where {}-byte vectors ran slower",
                        name, bytes, machine.vector_bytes));
        continue;
      }
      reasons.push_back(fmt::format(
          "{} in vectors of {} bytes: its nest computes {:.3g} operations a byte it moves to or "
          "from memory, within the {:.3g} a core computes while a byte streams, where {}-byte "
          "vectors ran slower",
          name, bytes, nest.operations / nest.memory_bytes, machine.ops_per_byte,
          machine.vector_bytes));
    }
  group.reasons = std::move(reasons);
  GroupCostReport& r = d.report;
  r.stages = group.stages;
  r.inlined = d.inlined;
  r.tile_sizes = group.tile_sizes;
  r.inner_tile_sizes = group.inner_tile_sizes;
  r.cost = cost;
  r.work_share = work_share(model, facts);
  return d;
}

GroupDecision priced_decision(const PipelineModel& model, const GroupFacts& facts,
                              const TileMetrics& tile, const std::vector<std::int64_t>& inner,
                              const MachineModel& machine, const CostWeights& w,
                              const std::string& tiling, std::vector<std::string> reasons) {
  const CostComponents c = cost_components(facts, tile, machine);
  const double share = work_share(model, facts);
  const double cost = share * weighted(w, c);
  reasons.insert(reasons.begin(),
                 fmt::format("cost {:.4g} = work share {:.3g} x ({:g} x live data {:.3g} + {:g} x "
                             "idle {:.3g} + {:g} x overlap {:.3g} + {:g} x size difference {:.3g})",
                             cost, share, w.live_data, c.live_data, w.cleanup, c.cleanup, w.overlap,
                             c.overlap, w.size_difference, c.size_difference));
  GroupDecision d = make_decision(model, facts, tile, inner, machine, cost, std::move(reasons));
  d.report.tiling = facts.fused() ? tiling : "untiled";
  d.report.live_data = c.live_data;
  d.report.cleanup = c.cleanup;
  d.report.overlap = c.overlap;
  d.report.size_difference = c.size_difference;
  return d;
}

GroupDecision invalid_decision(const GroupFacts& facts, const std::vector<int>& members) {
  GroupDecision d;
  d.why_invalid = facts.why;
  d.members = members;
  return d;
}

} // namespace trapeze::autoschedule
