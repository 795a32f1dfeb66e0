// Splitting a reduction's update loops where a select's box test holds.
//
// A boundary condition folded into a reduction (a histogram reading its
// image through repeat_edge) leaves, at every read, a select between the
// direct read and the clamped one, tested on the reduction variables
// (`0 <= 8 * gY - 4 && 8 * gY + 4 <= C - 1`): partition_cases splits a
// stage's own loops by its cases' boxes, but an update runs over the
// reduction domain, which has none. So each serial update loop is cut,
// like Halide's loop partitioning, into the iterations before, inside and
// after the range where every such test's conjuncts in its variable hold,
// and inside, those conjuncts are true: a select whose test is only those
// becomes its first arm. The iterations run in the same order, so each
// point's updates keep the definition's order.
#pragma once

#include "analysis/bounds_prover.h"
#include "lower/loop_ir.h"

namespace trapeze::lower {

/// `loops` (a reduction's update loops) with each serial loop split where
/// the box tests of the selects inside it hold along its variable.
Stmt partition_update_loops(const Stmt& loops, const analysis::BoundsProver& prover);

} // namespace trapeze::lower
