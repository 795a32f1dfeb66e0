// `trapeze explain --schedule` and `--lowered`: how a schedule runs a
// pipeline, from the plan and the lowering (the analysis alone is explain.h).
#pragma once

#include "trapeze/pipeline.h"
#include "trapeze/schedule.h"

#include <string>
#include <vector>

namespace trapeze {

/// What a schedule costs for the bound parameters, per group: the tile
/// counts, and per stage its storage, its scratchpad extents (the largest
/// per-tile region) and the points it computes over all tiles, with the
/// group's redundant computation (computed / domain points - 1), as in
/// paper 000's tables 3-7. The schedule must be valid.
std::string explain_footprints_text(const Pipeline& p, const Schedule& schedule,
                                    const ParamValues& bound);
/// The same as JSON: an array with one object per group (docs/explain.md).
std::string explain_footprints_json(const Pipeline& p, const Schedule& schedule,
                                    const ParamValues& bound);

/// The names of lowering's passes, in the order they run.
std::vector<std::string> lowering_passes();

/// The loop IR of `p` under `schedule` after the lowering pass `after` (one
/// of lowering_passes(); empty: after the last). Throws trapeze::Error for an
/// invalid schedule or an unknown pass, naming the passes there are.
std::string explain_lowered(const Pipeline& p, const Schedule& schedule,
                            const std::string& after = {});

} // namespace trapeze
