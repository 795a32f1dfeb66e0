// Where each case of a definition applies, as a box plus a residual condition.
#pragma once

#include "trapeze/function.h"

#include <vector>

namespace trapeze::analysis {

/// The region of one case: the points of `box` (per dimension, inclusive
/// bounds that are expressions of parameters, already intersected with the
/// stage's domain) where `residual` holds (undefined residual = everywhere).
///
/// The box comes from the conjuncts of the condition of the form
/// `v OP e` or `e OP v` (OP one of < <= > >= ==) where v is one of the stage's
/// variables and e uses only parameters and constants; every other conjunct
/// goes into the residual. Accesses in a case are checked (and must be in
/// bounds) over its box, so code generators may evaluate a case's value
/// anywhere in its box.
struct CaseRegion {
  std::vector<Interval> box;
  Expr residual;
};

/// The region of `condition` for stage `f` (conjuncts split as above).
CaseRegion case_region(const ir::Function& f, const Expr& condition);

/// The regions of all cases of `f`'s definition, in order.
std::vector<CaseRegion> case_regions(const ir::Function& f);

} // namespace trapeze::analysis
