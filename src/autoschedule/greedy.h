// The two greedy grouping heuristics paper 001 improves on, as baselines.
//
// PolyMage (§2.2): start from one group per stage; repeatedly take the groups
// whose consumers all lie in one group (their only child), largest first (by
// points at the estimates), and merge the first whose merge keeps the
// dependences constant and the overlap (redundant / useful points of a tile)
// under a threshold, with one tile size for every group; stop when none can.
//
// Halide (§2.3, Mullapudi et al. 2016): start from one group per stage, each
// costed with its best tile under Halide's model (halide_cost_model.h);
// repeatedly merge the producer-consumer pair (a group into the one group that
// reads it) of largest benefit, cost(P) + cost(C) - cost(P + C), while a
// benefit is positive.
//
// Both inline with Alg. 3 inside the groups they form (so that the three
// schedulers differ only in grouping and tiles, as paper 001's PolyMage+G+TC
// comparison does).
#pragma once

#include "autoschedule/cost_model.h"
#include "autoschedule/pipeline_model.h"

#include <vector>

namespace trapeze::autoschedule {

/// The result of a greedy heuristic: one decision per group, in topological
/// order, and how many merges it weighed.
struct GreedyResult {
  std::vector<GroupDecision> groups;
  std::int64_t merges_considered = 0;
  std::int64_t groups_evaluated = 0;
};

GreedyResult polymage_greedy(const PipelineModel& model, const AutoScheduleOptions& options,
                             const MachineModel& machine);

GreedyResult halide_greedy(const PipelineModel& model, const AutoScheduleOptions& options,
                           const MachineModel& machine);

} // namespace trapeze::autoschedule
