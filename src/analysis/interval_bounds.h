// Interval arithmetic over expressions: the range of values an expression can
// take when its variables range over concrete intervals and its parameters
// are bound.
//
// The result is conservative (every value the expression can take at run time
// lies in the range) and exact for affine forms in which each variable appears
// once (x + 2*y - 1, x/2, 2*x+1, ...). Where nothing better can be said (a
// possible overflow, a value read from memory, a float out of an integer
// type's range) the range is the full range of the expression's type.
//
// Concrete where affine.h and analysis/bounds_prover.h are symbolic: it
// evaluates at bound parameters, which is what checking a run's arguments
// needs (see affine.h for why the three are separate).
#pragma once

#include "trapeze/expr.h"
#include "trapeze/pipeline.h"

#include <cstdint>
#include <map>
#include <string>

namespace trapeze::analysis {

/// An inclusive range of integer values (bool is [0, 1]).
struct IntRange {
  std::int64_t lo = 0, hi = 0;
  bool contains(std::int64_t v) const { return lo <= v && v <= hi; }
  bool operator==(const IntRange&) const = default;
};

/// An inclusive range of floating-point values; `may_be_nan` says whether a
/// NaN can also appear (from 0/0, log of a negative, a NaN read from memory).
struct FloatRange {
  double lo = 0, hi = 0;
  bool may_be_nan = false;
};

/// Concrete ranges of the variables in scope, by name.
using VarRanges = std::map<std::string, IntRange>;

/// The full range of an integer type (bool: [0, 1]).
IntRange full_range(ScalarType t);

/// The range of an integer (or bool) expression. A variable missing from
/// `vars` ranges over all of int32; a parameter missing from `params` is a
/// trapeze::Error naming it.
IntRange integer_range(const Expr& e, const VarRanges& vars, const ParamValues& params);

/// The range of a float expression (integer subexpressions are bounded with
/// integer_range and converted).
FloatRange float_range(const Expr& e, const VarRanges& vars, const ParamValues& params);

} // namespace trapeze::analysis
