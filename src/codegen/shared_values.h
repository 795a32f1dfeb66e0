// Which values of an expression a printer computes once, into a local.
//
// Inlining copies a stage's definition into each of its reads, so a stage
// read six times at one point holds six equal copies of its producer's value,
// and a chain of inlined stages multiplies them: printed as a tree, a short
// chain made megabytes of C++ (fuzz seed 175,844). A value held by two or
// more operands is declared once and used by name, as Halide's C printer does.
#pragma once

#include "ir/value_numbers.h"

#include <functional>
#include <vector>

namespace trapeze::codegen {

/// What the printer evaluates where.
struct SharedValueRules {
  /// Whether a select is printed as a branch that evaluates only the chosen
  /// value: a value that only one of its arms computes is not evaluated on
  /// every path, so it is not declared before the expression (the arm names
  /// its own); a value both arms compute is.
  std::function<bool(const ir::Select&)> branches;
  /// Whether an enclosing scope already declares the value of this number:
  /// it prints as that name, and nothing below it is counted.
  std::function<bool(int)> declared;
};

/// The values of `root` to declare before it, each after the values it uses:
/// those that more than one operand holds (equal values counted as one, see
/// ValueNumbers), that every evaluation of `root` computes, that are more
/// than a constant, a variable or a parameter (or a cast or negation of one),
/// and that read a variable or memory (constants and parameters alone are
/// the C++ compiler's to fold).
/// The indices of an access are not searched: they are printed in place, as
/// indices, which the printer may spell differently from values.
std::vector<Expr> shared_values(const Expr& root, ir::ValueNumbers& numbers,
                                const SharedValueRules& rules);

} // namespace trapeze::codegen
