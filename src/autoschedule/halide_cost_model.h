// Halide's cost of a group (Mullapudi et al. 2016, as paper 001 §2.3 and
// §7.4.1 describe it), for the halide-greedy baseline.
//
// Tile sizes are powers of two per dimension (the innermost at least twice
// the vector width, VECTOR_WIDTH), with at least as many tiles as cores
// (PARALLELISM_THRESHOLD). A tile costs its arithmetic (the points its stages
// compute, redundant ones included, times the operations of each stage's
// definition) plus LOAD_COST (40) per element it loads or stores from memory
// (live-in and live-out), the loads scaled up by footprint / CACHE_SIZE when
// its buffers exceed the L2 cache. The group's cost is the best tile's cost
// times the number of tiles: an estimate of its time, so that costs add.
#pragma once

#include "autoschedule/cost_model.h"
#include "autoschedule/pipeline_model.h"

namespace trapeze::autoschedule {

class HalideCostModel : public CostModel {
public:
  HalideCostModel(const PipelineModel& model, const AutoScheduleOptions& options,
                  const MachineModel& machine);
  std::string name() const override { return "Halide (Mullapudi 2016) model"; }
  GroupDecision evaluate(const std::vector<int>& members) const override;

  static constexpr double load_cost = 40;

private:
  const PipelineModel& model_;
  AutoScheduleOptions options_;
  MachineModel machine_;
};

} // namespace trapeze::autoschedule
