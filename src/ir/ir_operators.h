// Building IR expressions inside the compiler: each helper makes exactly one
// node (or none), with no type promotion. The user-facing operators of dsl.h
// apply the DSL's conversions; analysis, planning and lowering build bounds
// and indices with these instead, so the node they mean is the node they get.
#pragma once

#include "trapeze/expr.h"

#include <climits>
#include <cstdint>

namespace trapeze::ir {

/// An int64 literal.
inline Expr i64(std::int64_t v) { return Expr(v); }
/// `e` as int64: a cast unless it already is.
inline Expr as_i64(const Expr& e) {
  return e.type() == ScalarType::Int64 ? e : Cast::make(ScalarType::Int64, e);
}

inline Expr add(const Expr& a, const Expr& b) { return Binary::make(BinaryOp::Add, a, b); }
inline Expr sub(const Expr& a, const Expr& b) { return Binary::make(BinaryOp::Sub, a, b); }
inline Expr mul(const Expr& a, const Expr& b) { return Binary::make(BinaryOp::Mul, a, b); }
/// Floor division (the IR's integer `/`).
inline Expr div_of(const Expr& a, const Expr& b) { return Binary::make(BinaryOp::Div, a, b); }
inline Expr min_of(const Expr& a, const Expr& b) { return Binary::make(BinaryOp::Min, a, b); }
inline Expr max_of(const Expr& a, const Expr& b) { return Binary::make(BinaryOp::Max, a, b); }
inline Expr eq(const Expr& a, const Expr& b) { return Binary::make(BinaryOp::EQ, a, b); }
inline Expr le(const Expr& a, const Expr& b) { return Binary::make(BinaryOp::LE, a, b); }
inline Expr lt(const Expr& a, const Expr& b) { return Binary::make(BinaryOp::LT, a, b); }
inline Expr and_of(const Expr& a, const Expr& b) { return Binary::make(BinaryOp::And, a, b); }

/// a + c for an int64 `a`; `a` itself when c is 0.
inline Expr plus(const Expr& a, std::int64_t c) { return c == 0 ? a : add(a, i64(c)); }
/// k * e; `e` itself when k is 1.
inline Expr times(std::int64_t k, const Expr& e) { return k == 1 ? e : mul(i64(k), e); }
/// floor(e / k) and ceil(e / k) for k >= 1.
inline Expr floor_div(const Expr& e, std::int64_t k) { return k == 1 ? e : div_of(e, i64(k)); }
inline Expr ceil_div(const Expr& e, std::int64_t k) {
  return k == 1 ? e : floor_div(plus(e, k - 1), k);
}

/// lo <= e <= hi.
inline Expr in_range(const Expr& e, const Expr& lo, const Expr& hi) {
  return and_of(le(lo, e), le(e, hi));
}
/// a && b, or the other where one is undefined.
inline Expr and_defined(const Expr& a, const Expr& b) {
  return !a.defined() ? b : !b.defined() ? a : and_of(a, b);
}

/// An integer literal as the DSL writes one: int32 where it fits, else int64.
inline Expr int_literal(std::int64_t v) {
  return v >= INT32_MIN && v <= INT32_MAX ? Expr(static_cast<int>(v)) : Expr(v);
}

/// e + k for a bound (an integer expression of parameters and constants),
/// folded where e is a constant or ends in one (R - 1 + 1 is R), so that
/// widened domains read as the user would write them.
inline Expr shifted_bound(const Expr& e, std::int64_t k) {
  if (k == 0) return e;
  if (const auto* c = e.as<IntConst>()) return int_literal(c->value + k);
  if (const auto* b = e.as<Binary>()) {
    const auto* c = b->b.as<IntConst>();
    if (c && (b->op == BinaryOp::Add || b->op == BinaryOp::Sub)) {
      const std::int64_t rest = (b->op == BinaryOp::Add ? c->value : -c->value) + k;
      if (rest == 0) return b->a;
      return rest > 0 ? Binary::make(BinaryOp::Add, b->a, int_literal(rest))
                      : Binary::make(BinaryOp::Sub, b->a, int_literal(-rest));
    }
  }
  return k > 0 ? Binary::make(BinaryOp::Add, e, int_literal(k))
               : Binary::make(BinaryOp::Sub, e, int_literal(-k));
}

} // namespace trapeze::ir
