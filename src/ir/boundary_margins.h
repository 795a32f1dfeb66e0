// Margins of boundary conditions made without them (trapeze/boundary.h),
// inferred from the stages that read them when a Pipeline is built.
#pragma once

#include "trapeze/pipeline.h"

namespace trapeze::ir {

/// For each stage of `p` that is a boundary condition with inferred margins:
/// the margins its readers in `p` need, set on the stage if it awaits them,
/// else checked against those an earlier pipeline inferred. Nothing changes
/// unless every stage's margins can be inferred. Throws trapeze::Error naming
/// the stage, its reader and the index when an index is not one the
/// inference understands, when a stage no one reads awaits margins, and when
/// a later pipeline needs more than were inferred.
void infer_boundary_margins(const Pipeline& p);

} // namespace trapeze::ir
