// What `trapeze explain` reports about a fused group for concrete parameter
// values: every tile's regions, summed.
#pragma once

#include "plan/plan.h"

#include <cstdint>
#include <string>
#include <vector>

namespace trapeze::plan {

/// What `trapeze explain` reports about one stage of a tiled group.
struct StageFootprint {
  std::string stage;
  /// Largest per-tile region, per stage dimension: the scratchpad's extents.
  std::vector<std::int64_t> scratchpad_extents;
  std::int64_t computed_points = 0; ///< summed over all tiles
  /// The points it needs once: its demanded box (plan/demand.h).
  std::int64_t domain_points = 0;
};

/// The footprint of a tiled group for concrete parameter values.
struct GroupFootprint {
  std::vector<std::int64_t> tile_counts; ///< per common dimension
  std::int64_t tiles = 0;
  std::vector<StageFootprint> stages; ///< topological order
  std::int64_t computed_points = 0, domain_points = 0;
  /// computed / domain - 1: the share of redundant (overlapped) computation.
  double redundant_fraction = 0;
};

/// Walks every tile of a fused group of `plan` for the bound parameters
/// `params` and sums the regions. A lone untiled stage is one tile over its
/// demanded box.
GroupFootprint group_footprint(const Plan& plan, const GroupPlan& group, const ParamValues& params);

} // namespace trapeze::plan
