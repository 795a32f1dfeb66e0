// Integer sums in one form. Inlining composes index arithmetic: a stage read
// at x + 1 inside a stage read at x + 3 is read at x + 3 + 1, and the same
// point reached through other taps at x + 2 + 2 or x + 1 + 3. Value numbering
// sees equal values only where they are equal expressions, so a chain of
// inlined stencils kept a copy of its values per path instead of per point
// (fuzz seed 311,912: 4,716 copies of some 130 values in one statement, a
// C++ file the compiler never finished).
#pragma once

#include "ir/value_numbers.h"

namespace trapeze::ir {

/// `node` in the sum form, given operands already in it: an int32 or int64
/// +, -, negation or multiplication by a constant of index arithmetic (whose
/// atoms, the operands that are not sums, are variables, parameters, or
/// casts, min, max and divisions of them) becomes its terms, each atom once
/// with the sum of its coefficients, in one order (variables by name, then
/// parameters by name, then other atoms as first written; positive
/// coefficients before negative ones), and the constant last. Any other node,
/// a sum of loaded values among them, is returned as it is: only coordinates
/// compose through inlining, and a value's arithmetic keeps its author's order.
///
/// Exact for every input: integer arithmetic wraps in its type (dsl.md), so
/// +, - and * by a constant are a ring modulo 2^bits, where regrouping terms
/// and folding constants changes no value. Casts stay atoms (a cast to int64
/// of a wrapped int32 sum is not the int64 sum).
Expr sum_form(const Expr& node, ValueNumbers& numbers);

} // namespace trapeze::ir
