// Proving and simplifying loop bounds: integer expressions of parameters,
// loop variables, constants, min and max. Symbolic (for every parameter value
// the pipeline allows) where interval_bounds.h is concrete, and over integer
// coefficients and opaque atoms (lets, min, max) where affine.h describes accesses with rational
// ones (see there).
#pragma once

#include "trapeze/pipeline.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace trapeze::analysis {

/// constant + sum(coefficient * symbol). A symbol is a parameter, a variable,
/// or any other integer subexpression (an atom such as min(R, 0)), keyed by
/// its printed form so that equal atoms cancel.
struct AffineForm {
  std::int64_t constant = 0;
  std::map<std::string, std::pair<std::int64_t, Expr>> terms; ///< key -> (coefficient, symbol)

  bool is_constant() const { return terms.empty(); }
  AffineForm operator+(const AffineForm& o) const;
  AffineForm operator-(const AffineForm& o) const;
  AffineForm scaled(std::int64_t k) const;
};

/// The affine form of an integer expression (+, -, * by a constant; anything
/// else becomes an atom). nullopt for non-integer expressions.
std::optional<AffineForm> affine_form(const Expr& e);
/// The int64 expression of an affine form, e.g. `R + 1`, `C - 2 * R`, `3`.
Expr affine_expr(const AffineForm& f);

/// Decides orderings of bound expressions from facts of the form
/// `affine >= 0` (every domain and input is non-empty), and simplifies bounds
/// with them. Incomplete by design: "not proven" is always a safe answer.
class BoundsProver {
public:
  BoundsProver() = default;
  explicit BoundsProver(std::vector<AffineForm> facts) : facts_(std::move(facts)) {}
  /// The facts every run of `p` satisfies: hi >= lo for every domain
  /// dimension of every stage, extent >= 1 for every input dimension, and
  /// every parameter within its declared range.
  static BoundsProver for_pipeline(const Pipeline& p);
  /// This prover with `more` facts (each >= 0), e.g. a loop variable's range.
  BoundsProver with_facts(const std::vector<AffineForm>& more) const;

  /// True if a <= b is proven for every parameter value allowed by the facts.
  bool prove_le(const Expr& a, const Expr& b) const;
  /// b - a if it is a constant.
  std::optional<std::int64_t> constant_difference(const Expr& a, const Expr& b) const;
  /// An equivalent int64 expression with provably redundant min/max removed,
  /// constants pushed into min/max, and affine parts in canonical form.
  Expr simplify(const Expr& e) const;
  /// The extents of a box, hi - lo + 1 per dimension, simplified: the shape
  /// of a buffer holding a domain (lowering allocates it, the entry checks an
  /// output against it, the header documents it).
  std::vector<Expr> extents(const std::vector<Interval>& box) const;

private:
  // Whether d >= 0: by one fact, or, up to `depth` atoms deep, by replacing
  // a min, max or floor-division atom with its bounds.
  bool prove_nonnegative(const AffineForm& d, int depth) const;
  static constexpr int kAtomDepth = 4;

  std::vector<AffineForm> facts_;
};

} // namespace trapeze::analysis
