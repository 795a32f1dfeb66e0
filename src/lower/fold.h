// Folding the expressions lowering makes when it fixes a coordinate: after a
// partition pass substitutes x = 2 * x2 + 1, `x % 2 == 0` must become false and
// `(x + 1) / 2` must become `x2 + 1`, so that the value it prints has no test
// and unit-stride loads.
#pragma once

#include "trapeze/expr.h"

namespace trapeze::lower {

/// `e` with, bottom-up: integer `/` and `%` by a positive constant k of an
/// affine form whose variable and parameter coefficients are multiples of k
/// reduced exactly (floor semantics); comparisons of integer constants and of
/// affine forms that differ by a constant decided; `&&`, `||`, `!` of decided
/// operands, selects on decided conditions, and casts of integer constants
/// folded. Everything else is kept as it is; the value is the same for every
/// point.
Expr fold(const Expr& e);

} // namespace trapeze::lower
