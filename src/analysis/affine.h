// Index expressions as affine forms with rational coefficients.
//
// An access index such as `x/2 + 1` or `2*x - 1` is represented exactly as
//     floor((sum_i a_i*var_i + sum_j b_j*param_j + c) / d),   d >= 1,
// i.e. an affine form with rational coefficients a_i/d, b_j/d, c/d rounded
// down (integer `/` is floor division, see expr.h). Forms are kept reduced:
// gcd(a, b, c, d) = 1, and d = 1 whenever the division is exact.
//
// One of three tools on small affine forms, each for its own question: this
// one describes *accesses* exactly (rational coefficients of stage variables,
// so dependences and alignment can be read off them); interval_bounds.h
// bounds the *values* an expression takes over concrete boxes (the argument
// checks before a run); analysis/bounds_prover.h orders and simplifies
// *symbolic bounds* (integer forms of parameters and lets, with min and max)
// for lowering. They share no representation because each keeps exactly what
// its question needs.
#pragma once

#include "trapeze/expr.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace trapeze::analysis {

/// An exact rational number num/den with den >= 1 and gcd(num, den) = 1.
struct Rational {
  std::int64_t num = 0;
  std::int64_t den = 1;

  Rational() = default;
  Rational(std::int64_t n) : num(n) {}
  /// Reduces the fraction; den must not be zero.
  Rational(std::int64_t n, std::int64_t d);

  bool is_integer() const { return den == 1; }
  /// The largest integer <= this / the smallest integer >= this.
  std::int64_t floor() const;
  std::int64_t ceil() const;
  /// "3", "-1/2".
  std::string str() const;

  friend bool operator==(const Rational& a, const Rational& b) {
    return a.num == b.num && a.den == b.den;
  }
  friend bool operator!=(const Rational& a, const Rational& b) { return !(a == b); }
  friend bool operator<(const Rational& a, const Rational& b);
  friend bool operator<=(const Rational& a, const Rational& b) { return !(b < a); }
  friend bool operator>(const Rational& a, const Rational& b) { return b < a; }
  friend Rational operator+(const Rational& a, const Rational& b);
  friend Rational operator-(const Rational& a, const Rational& b);
  friend Rational operator*(const Rational& a, const Rational& b);
  /// b must not be zero.
  friend Rational operator/(const Rational& a, const Rational& b);
};

/// floor((sum a_i*var_i + sum b_j*param_j + c) / d), reduced.
struct AffineIndex {
  /// Nonzero coefficients a_i of loop variables, sorted by name.
  std::vector<std::pair<std::string, std::int64_t>> vars;
  /// Nonzero coefficients b_j of int64 parameters, sorted by name.
  std::vector<std::pair<std::string, std::int64_t>> params;
  std::int64_t constant = 0; ///< c
  std::int64_t divisor = 1;  ///< d >= 1

  /// a for `var` (0 if absent).
  std::int64_t var_coefficient(const std::string& var) const;
  /// The rational coefficient a/d of `var`.
  Rational scale(const std::string& var) const { return {var_coefficient(var), divisor}; }
  /// The rational constant c/d.
  Rational offset() const { return {constant, divisor}; }
  bool is_constant() const { return vars.empty() && params.empty(); }
  /// True if no parameter appears.
  bool parameter_free() const { return params.empty(); }
  /// Readable text: "x/2 + 1" for floor((x + 2)/2), "2*x + 1", "(x + 1)/2",
  /// "x + R - 1". An integer part is pulled out of the constant when that
  /// keeps the form exact (floor((x+2)/2) = floor(x/2) + 1).
  std::string str() const;

  friend bool operator==(const AffineIndex& a, const AffineIndex& b) {
    return a.vars == b.vars && a.params == b.params && a.constant == b.constant &&
           a.divisor == b.divisor;
  }
};

/// How an access index can be analysed.
enum class AccessKind : std::uint8_t {
  Affine,        ///< affine_index() succeeds
  DataDependent, ///< the index reads memory (contains an Access)
  NonAffine,     ///< anything else: x*y, x % 2, min, select, float math, ...
};
/// "affine", "data-dependent", "non-affine".
const char* access_kind_name(AccessKind kind);

/// The affine form of an integer index expression, or nullopt if it is not
/// one (data-dependent, non-affine, or a coefficient overflows int64).
/// Handles + and - (at most one operand may have d > 1: floor(e/d) + g =
/// floor((e + g*d)/d) for an integer form g), * by a constant (of a form with
/// d = 1: k*floor(e/d) is not a floor form), floor `/` by a nonzero constant
/// (floor(floor(e/d1)/d2) = floor(e/(d1*d2))), negation (-floor(e/d) =
/// floor((-e + d - 1)/d)), and int32 <-> int64 casts.
std::optional<AffineIndex> affine_index(const Expr& index);

/// Affine, DataDependent (the index reads memory) or NonAffine.
AccessKind classify_index(const Expr& index);

} // namespace trapeze::analysis
