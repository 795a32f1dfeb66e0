// Clamping a data-dependent index into its producer's domain (expr.h), shared
// by the clamp_indices pass and the inliner's prepared definitions.
#pragma once

#include "analysis/bounds_prover.h"
#include "trapeze/expr.h"

namespace trapeze::lower {

/// `e` with every index that reads memory (in `e` as written) clamped into
/// the domain of the stage or input it indexes, per dimension.
Expr clamp_data_dependent_indices(const Expr& e, const analysis::BoundsProver& prover);

} // namespace trapeze::lower
