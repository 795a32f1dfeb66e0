// polymage_greedy and halide_greedy: the baselines of paper 001 §2.
#include "autoschedule/greedy.h"

#include "autoschedule/dp_grouping.h"
#include "autoschedule/group_decision.h"
#include "autoschedule/group_facts.h"
#include "autoschedule/halide_cost_model.h"
#include "autoschedule/tile_metrics.h"

#include <fmt/core.h>

#include <algorithm>
#include <set>

namespace trapeze::autoschedule {

namespace {

// PolyMage's groups all take one tile size: the given sizes for the innermost
// dimension and those just outside it, 1 for the rest.
std::vector<std::int64_t> fixed_tiles(const std::vector<std::int64_t>& given,
                                      const GroupFacts& facts) {
  const std::size_t dims = facts.geometry.common_dims();
  std::vector<std::int64_t> tiles(dims, 1);
  for (std::size_t i = 0; i <= facts.inner && i < given.size(); ++i)
    tiles[facts.inner - i] = given[given.size() - 1 - i];
  return tiles;
}

// PolyMage's groups: the fixed tile size, priced with paper 001's cost so
// that `explain` can compare them with dp's.
class FixedTileModel : public CostModel {
public:
  FixedTileModel(const PipelineModel& model, const AutoScheduleOptions& options,
                 const MachineModel& machine)
      : model_(model), options_(options), machine_(machine) {}
  std::string name() const override { return "PolyMage's fixed tiles"; }
  GroupDecision evaluate(const std::vector<int>& members) const override {
    const GroupFacts facts =
        group_facts(model_, members, options_.inline_stages, machine_.ops_per_byte);
    if (!facts.ok) return invalid_decision(facts, members);
    const TileMetrics tile =
        measure_tile(model_, facts, fixed_tiles(options_.greedy_tile_sizes, facts));
    GroupDecision d =
        priced_decision(model_, facts, tile, {}, machine_, options_.weights, "fixed", {});
    d.report.overlap = tile.useful > 0 ? tile.redundant / tile.useful : 0; // PolyMage's measure
    return d;
  }

private:
  const PipelineModel& model_;
  const AutoScheduleOptions& options_;
  const MachineModel& machine_;
};

// Groups of stages, and which group each stage is in.
class Grouping {
public:
  explicit Grouping(const PipelineModel& model) : model_(model) {
    for (int s = 0; s < model.size(); ++s) {
      groups_.push_back({s});
      group_of_.push_back(s);
    }
  }
  const std::vector<std::vector<int>>& groups() const { return groups_; }
  /// Every live group whose readers all lie in one other group, with that group.
  std::vector<std::pair<int, int>> single_child_pairs() const {
    std::vector<std::pair<int, int>> pairs;
    for (int g = 0; g < static_cast<int>(groups_.size()); ++g) {
      if (!alive(g)) continue;
      const std::set<int> c = children(g);
      if (c.size() == 1) pairs.emplace_back(g, *c.begin());
    }
    return pairs;
  }
  // The groups that read group g (other than g).
  std::set<int> children(int g) const {
    std::set<int> out;
    for (int s : groups_[static_cast<std::size_t>(g)])
      for (int c : model_.stage(s).consumers)
        if (group_of_[static_cast<std::size_t>(c)] != g)
          out.insert(group_of_[static_cast<std::size_t>(c)]);
    return out;
  }
  std::vector<int> merged(int a, int b) const {
    std::vector<int> out = groups_[static_cast<std::size_t>(a)];
    out.insert(out.end(), groups_[static_cast<std::size_t>(b)].begin(),
               groups_[static_cast<std::size_t>(b)].end());
    std::sort(out.begin(), out.end());
    return out;
  }
  void merge(int a, int b) {
    groups_[static_cast<std::size_t>(a)] = merged(a, b);
    groups_[static_cast<std::size_t>(b)].clear();
    for (int s : groups_[static_cast<std::size_t>(a)])
      group_of_[static_cast<std::size_t>(s)] = a;
  }
  bool alive(int g) const { return !groups_[static_cast<std::size_t>(g)].empty(); }
  double points(int g) const {
    double p = 0;
    for (int s : groups_[static_cast<std::size_t>(g)])
      p += model_.stage(s).points;
    return p;
  }
  // The live groups in topological order.
  std::vector<std::vector<int>> ordered() const {
    std::vector<std::vector<int>> consumers(static_cast<std::size_t>(model_.size()));
    for (int s = 0; s < model_.size(); ++s)
      consumers[static_cast<std::size_t>(s)] = model_.stage(s).consumers;
    const VertexGraph g = stage_graph(consumers);
    std::vector<std::vector<int>> live;
    for (std::size_t i = 0; i < groups_.size(); ++i)
      if (!groups_[i].empty()) live.push_back(groups_[i]);
    return coalesce(g, live).stages;
  }

private:
  const PipelineModel& model_;
  std::vector<std::vector<int>> groups_;
  std::vector<int> group_of_;
};

GreedyResult finish(const Grouping& grouping, DecisionCache& cache, std::int64_t considered) {
  GreedyResult result;
  for (const std::vector<int>& group : grouping.ordered())
    result.groups.push_back(cache.get(group));
  result.merges_considered = considered;
  result.groups_evaluated = cache.evaluated();
  return result;
}

} // namespace

GreedyResult polymage_greedy(const PipelineModel& model, const AutoScheduleOptions& options,
                             const MachineModel& machine) {
  const FixedTileModel fixed(model, options, machine);
  DecisionCache cache(fixed);
  Grouping grouping(model);
  std::int64_t considered = 0;
  for (bool merged = true; merged;) {
    merged = false;
    // Groups with a single child, largest first (ties: earliest first).
    std::vector<std::pair<int, int>> candidates = grouping.single_child_pairs();
    std::stable_sort(candidates.begin(), candidates.end(), [&](const auto& a, const auto& b) {
      return grouping.points(a.first) > grouping.points(b.first);
    });
    for (const auto& [g, child] : candidates) {
      ++considered;
      const GroupDecision& d = cache.get(grouping.merged(g, child));
      if (!d.valid || d.report.overlap >= options.greedy_overlap_threshold) continue;
      grouping.merge(g, child);
      merged = true;
      break;
    }
  }
  return finish(grouping, cache, considered);
}

GreedyResult halide_greedy(const PipelineModel& model, const AutoScheduleOptions& options,
                           const MachineModel& machine) {
  const HalideCostModel halide(model, options, machine);
  DecisionCache cache(halide);
  Grouping grouping(model);
  std::int64_t considered = 0;
  for (;;) {
    // Every producer group whose readers are one group: the pair of largest benefit.
    double best_benefit = 0;
    std::pair<int, int> best = {-1, -1};
    for (const auto& [g, child] : grouping.single_child_pairs()) {
      ++considered;
      const GroupDecision& together = cache.get(grouping.merged(g, child));
      if (!together.valid) continue;
      const double benefit = cache.cost(grouping.groups()[static_cast<std::size_t>(g)]) +
                             cache.cost(grouping.groups()[static_cast<std::size_t>(child)]) -
                             together.cost;
      if (benefit > best_benefit) {
        best_benefit = benefit;
        best = {g, child};
      }
    }
    if (best.first < 0) break;
    grouping.merge(best.first, best.second);
  }
  return finish(grouping, cache, considered);
}

} // namespace trapeze::autoschedule
