// Interval arithmetic over expressions (integer and float ranges).
#include "analysis/interval_bounds.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace trapeze::analysis {

using namespace ir;

namespace {

using i64 = std::int64_t;
constexpr i64 kMin = std::numeric_limits<i64>::min();
constexpr i64 kMax = std::numeric_limits<i64>::max();
constexpr double kInf = std::numeric_limits<double>::infinity();

// --- integer helpers --------------------------------------------------------

// nullopt means "the int64 computation can overflow": nothing is known.
using MaybeRange = std::optional<IntRange>;

std::optional<i64> checked_add(i64 a, i64 b) {
  i64 r = 0;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}
std::optional<i64> checked_sub(i64 a, i64 b) {
  i64 r = 0;
  if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
  return r;
}
std::optional<i64> checked_mul(i64 a, i64 b) {
  i64 r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// Floor and truncating division for a non-zero divisor; nullopt on kMin / -1.
std::optional<i64> floor_div(i64 a, i64 b) {
  if (b == -1) return a == kMin ? std::nullopt : std::optional<i64>(-a);
  i64 q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}
std::optional<i64> trunc_div(i64 a, i64 b) {
  if (b == -1) return a == kMin ? std::nullopt : std::optional<i64>(-a);
  return a / b;
}
i64 floor_mod(i64 a, i64 b) {
  if (b == -1) return 0;
  const i64 r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
i64 trunc_mod(i64 a, i64 b) { return b == -1 ? 0 : a % b; }

IntRange hull(const IntRange& a, const IntRange& b) {
  return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)};
}

// The range of f over the four corners of a x b (f monotone in each argument).
template <typename F> MaybeRange corners(const IntRange& a, const IntRange& b, F f) {
  IntRange r{kMax, kMin};
  for (i64 x : {a.lo, a.hi}) {
    for (i64 y : {b.lo, b.hi}) {
      const std::optional<i64> v = f(x, y);
      if (!v) return std::nullopt;
      r.lo = std::min(r.lo, *v);
      r.hi = std::max(r.hi, *v);
    }
  }
  return r;
}

// The parts of a divisor range without zero: negative and positive.
std::optional<IntRange> negative_part(const IntRange& b) {
  if (b.lo > -1) return std::nullopt;
  return IntRange{b.lo, std::min<i64>(b.hi, -1)};
}
std::optional<IntRange> positive_part(const IntRange& b) {
  if (b.hi < 1) return std::nullopt;
  return IntRange{std::max<i64>(b.lo, 1), b.hi};
}

// a / b over the divisor's non-zero parts, plus 0 where b may be zero.
template <typename Div> MaybeRange divide(const IntRange& a, const IntRange& b, Div div) {
  std::optional<IntRange> r;
  if (b.contains(0)) r = IntRange{0, 0};
  for (const std::optional<IntRange>& part : {negative_part(b), positive_part(b)}) {
    if (!part) continue;
    const MaybeRange q = corners(a, *part, div);
    if (!q) return std::nullopt;
    r = r ? hull(*r, *q) : *q;
  }
  return r;
}

MaybeRange floor_mod_range(const IntRange& a, const IntRange& b) {
  if (b.lo == b.hi) {
    const i64 k = b.lo;
    if (k == 0) return IntRange{0, 0};
    // Inside one block of k values the remainder grows with a.
    if (floor_div(a.lo, k) == floor_div(a.hi, k))
      return IntRange{floor_mod(a.lo, k), floor_mod(a.hi, k)};
    return k > 0 ? IntRange{0, k - 1} : IntRange{k + 1, 0};
  }
  std::optional<IntRange> r;
  if (b.contains(0)) r = IntRange{0, 0};
  if (const auto pos = positive_part(b)) {
    IntRange p{0, pos->hi - 1};
    if (a.lo >= 0) p.hi = std::min(p.hi, a.hi);
    if (a.lo >= 0 && a.hi < pos->lo) p = a; // the remainder is a itself
    r = r ? hull(*r, p) : p;
  }
  if (const auto neg = negative_part(b)) {
    IntRange n{neg->lo + 1, 0};
    if (a.hi <= 0) n.lo = std::max(n.lo, a.lo);
    if (a.hi <= 0 && a.lo > neg->hi) n = a;
    r = r ? hull(*r, n) : n;
  }
  return r;
}

MaybeRange trunc_mod_range(const IntRange& a, const IntRange& b) {
  if (b.lo == b.hi && b.lo != 0 && (a.lo >= 0 || a.hi <= 0) &&
      trunc_div(a.lo, b.lo) == trunc_div(a.hi, b.lo))
    return IntRange{trunc_mod(a.lo, b.lo), trunc_mod(a.hi, b.lo)};
  // |a % b| < |b| and |a % b| <= |a|; the sign is a's.
  const i64 max_abs_b =
      std::max(b.lo == kMin ? kMax : std::abs(b.lo), b.hi == kMin ? kMax : std::abs(b.hi));
  const i64 m = max_abs_b == 0 ? 0 : max_abs_b - 1;
  IntRange r{std::max(a.lo, -m), std::min(a.hi, m)};
  r.lo = std::min<i64>(r.lo, 0);
  r.hi = std::max<i64>(r.hi, 0);
  if (a.lo >= 0) r.lo = 0;
  if (a.hi <= 0) r.hi = 0;
  return r;
}

// 0 / 1 ranges for definitely false / true / either.
IntRange truth(bool can_be_false, bool can_be_true) {
  return {can_be_false ? 0 : 1, can_be_true ? 1 : 0};
}

IntRange compare(BinaryOp op, const IntRange& a, const IntRange& b) {
  switch (op) {
  case BinaryOp::LT: return truth(a.hi >= b.lo, a.lo < b.hi);
  case BinaryOp::LE: return truth(a.hi > b.lo, a.lo <= b.hi);
  case BinaryOp::GT: return truth(a.lo <= b.hi, a.hi > b.lo);
  case BinaryOp::GE: return truth(a.lo < b.hi, a.hi >= b.lo);
  case BinaryOp::EQ: {
    const bool overlap = a.lo <= b.hi && b.lo <= a.hi;
    const bool both_single = a.lo == a.hi && b.lo == b.hi;
    return truth(!(both_single && overlap), overlap);
  }
  case BinaryOp::NE: {
    const bool overlap = a.lo <= b.hi && b.lo <= a.hi;
    const bool both_single = a.lo == a.hi && b.lo == b.hi;
    return truth(overlap, !(both_single && overlap));
  }
  default: TRAPEZE_ASSERT(false, "not a comparison");
  }
}

IntRange compare_floats(BinaryOp op, const FloatRange& a, const FloatRange& b) {
  if (a.may_be_nan || b.may_be_nan) return {0, 1};
  switch (op) {
  case BinaryOp::LT: return truth(a.hi >= b.lo, a.lo < b.hi);
  case BinaryOp::LE: return truth(a.hi > b.lo, a.lo <= b.hi);
  case BinaryOp::GT: return truth(a.lo <= b.hi, a.hi > b.lo);
  case BinaryOp::GE: return truth(a.lo < b.hi, a.hi >= b.lo);
  default: return {0, 1};
  }
}

// Where a float (without NaN) truncated toward zero lands, if representable.
std::optional<IntRange> truncated(const FloatRange& f, ScalarType t) {
  if (f.may_be_nan || !std::isfinite(f.lo) || !std::isfinite(f.hi)) return std::nullopt;
  const IntRange full = full_range(t);
  const double lo = std::trunc(f.lo), hi = std::trunc(f.hi);
  // Compare in double: 2^63 is exactly representable, kMax is not.
  if (lo < static_cast<double>(full.lo) || hi >= static_cast<double>(full.hi) + 1.0)
    return std::nullopt;
  if (hi > 9.2e18 || lo < -9.2e18) return std::nullopt;
  return IntRange{static_cast<i64>(lo), static_cast<i64>(hi)};
}

// --- float helpers ------------------------------------------------------------

FloatRange anything() { return {-kInf, kInf, true}; }

bool finite(const FloatRange& r) { return std::isfinite(r.lo) && std::isfinite(r.hi); }

// Rounds both bounds to the node's type (rounding is monotone).
FloatRange rounded(ScalarType t, FloatRange r) {
  if (t == ScalarType::Float32) {
    r.lo = static_cast<float>(r.lo);
    r.hi = static_cast<float>(r.hi);
  }
  if (std::isnan(r.lo) || std::isnan(r.hi)) return anything();
  return r;
}

// Widens by a few units in the last place, for library functions that are
// not correctly rounded.
FloatRange widened(ScalarType t, FloatRange r) {
  const double rel = t == ScalarType::Float32 ? 1e-6 : 1e-14;
  r.lo -= std::abs(r.lo) * rel + std::numeric_limits<double>::denorm_min();
  r.hi += std::abs(r.hi) * rel + std::numeric_limits<double>::denorm_min();
  return r;
}

template <typename F> FloatRange float_corners(const FloatRange& a, const FloatRange& b, F f) {
  FloatRange r{kInf, -kInf, a.may_be_nan || b.may_be_nan};
  for (double x : {a.lo, a.hi}) {
    for (double y : {b.lo, b.hi}) {
      const double v = f(x, y);
      if (std::isnan(v)) return anything();
      r.lo = std::min(r.lo, v);
      r.hi = std::max(r.hi, v);
    }
  }
  return r;
}

double param_value(const ParamValues& params, const std::string& name) {
  auto it = params.find(name);
  if (it == params.end())
    throw Error("parameter '" + name + "' has no value while bounding an index: bind it");
  return it->second.is_float ? it->second.f : static_cast<double>(it->second.i);
}

// --- the two recursive evaluators ---------------------------------------------

class RangeEvaluator {
public:
  RangeEvaluator(const VarRanges& vars, const ParamValues& params) : vars_(vars), params_(params) {}

  IntRange ints(const Expr& e) const {
    TRAPEZE_ASSERT(is_integer(e.type()), "integer_range of a float expression");
    const ScalarType t = e.type();
    switch (e->kind) {
    case ExprKind::IntConst: {
      const i64 v = e.as<IntConst>()->value;
      return {v, v};
    }
    case ExprKind::VarRef: {
      auto it = vars_.find(e.as<VarRef>()->name);
      return it == vars_.end() ? full_range(ScalarType::Int32) : it->second;
    }
    case ExprKind::ParamRef: {
      const auto* p = e.as<ParamRef>();
      auto it = params_.find(p->name);
      if (it == params_.end())
        throw Error("parameter '" + p->name + "' has no value while bounding an index: bind it");
      return {it->second.i, it->second.i};
    }
    case ExprKind::Cast: return cast_to_int(*e.as<Cast>());
    case ExprKind::Unary: return fit(t, unary(*e.as<Unary>()));
    case ExprKind::Binary: return fit(t, binary(*e.as<Binary>()));
    case ExprKind::Select: {
      const auto* s = e.as<Select>();
      const IntRange c = ints(s->cond);
      if (c.lo == 1) return ints(s->if_true);
      if (c.hi == 0) return ints(s->if_false);
      return hull(ints(s->if_true), ints(s->if_false));
    }
    case ExprKind::Access: return full_range(t);
    case ExprKind::FloatConst: break;
    }
    TRAPEZE_ASSERT(false, "unexpected integer expression kind");
  }

  FloatRange floats(const Expr& e) const {
    TRAPEZE_ASSERT(is_float(e.type()), "float_range of an integer expression");
    const ScalarType t = e.type();
    switch (e->kind) {
    case ExprKind::FloatConst: {
      const double v = e.as<FloatConst>()->value;
      if (std::isnan(v)) return anything();
      return {v, v, false};
    }
    case ExprKind::ParamRef: {
      const double v = param_value(params_, e.as<ParamRef>()->name);
      return rounded(t, {v, v, std::isnan(v)});
    }
    case ExprKind::Cast: {
      const Expr& v = e.as<Cast>()->value;
      if (is_float(v.type())) return rounded(t, floats(v));
      const IntRange r = ints(v);
      if (t == ScalarType::Float32)
        return {static_cast<float>(r.lo), static_cast<float>(r.hi), false};
      return {static_cast<double>(r.lo), static_cast<double>(r.hi), false};
    }
    case ExprKind::Unary: return float_unary(*e.as<Unary>());
    case ExprKind::Binary: return float_binary(*e.as<Binary>());
    case ExprKind::Select: {
      const auto* s = e.as<Select>();
      const IntRange c = ints(s->cond);
      if (c.lo == 1) return floats(s->if_true);
      if (c.hi == 0) return floats(s->if_false);
      const FloatRange a = floats(s->if_true), b = floats(s->if_false);
      return {std::min(a.lo, b.lo), std::max(a.hi, b.hi), a.may_be_nan || b.may_be_nan};
    }
    case ExprKind::Access: return anything();
    case ExprKind::IntConst:
    case ExprKind::VarRef: break;
    }
    TRAPEZE_ASSERT(false, "unexpected float expression kind");
  }

private:
  // The node's value wraps to its type's width: beyond it, anything is possible.
  static IntRange fit(ScalarType t, const MaybeRange& r) {
    const IntRange full = full_range(t);
    if (!r || r->lo < full.lo || r->hi > full.hi) return full;
    return *r;
  }

  IntRange cast_to_int(const Cast& c) const {
    const ScalarType t = c.type;
    if (is_float(c.value.type())) {
      const FloatRange f = floats(c.value);
      if (t == ScalarType::Bool) {
        if (f.may_be_nan) return {0, 1};
        return truth(f.lo <= 0 && f.hi >= 0, !(f.lo == 0 && f.hi == 0));
      }
      const std::optional<IntRange> r = truncated(f, t);
      return r ? *r : full_range(t);
    }
    const IntRange r = ints(c.value);
    if (t == ScalarType::Bool) return truth(r.contains(0), !(r.lo == 0 && r.hi == 0));
    return fit(t, r);
  }

  MaybeRange unary(const Unary& u) const {
    const IntRange a = ints(u.value);
    switch (u.op) {
    case UnaryOp::Not: return IntRange{1 - a.hi, 1 - a.lo};
    case UnaryOp::Neg:
      if (a.lo == kMin) return std::nullopt;
      return IntRange{-a.hi, -a.lo};
    case UnaryOp::Abs:
      if (a.lo == kMin) return std::nullopt;
      if (a.lo >= 0) return a;
      if (a.hi <= 0) return IntRange{-a.hi, -a.lo};
      return IntRange{0, std::max(-a.lo, a.hi)};
    default: break;
    }
    TRAPEZE_ASSERT(false, "float unary op with an integer type");
  }

  MaybeRange binary(const Binary& b) const {
    if (is_comparison(b.op) && is_float(b.a.type()))
      return compare_floats(b.op, floats(b.a), floats(b.b));
    const IntRange x = ints(b.a), y = ints(b.b);
    switch (b.op) {
    case BinaryOp::Add: {
      const auto lo = checked_add(x.lo, y.lo), hi = checked_add(x.hi, y.hi);
      if (!lo || !hi) return std::nullopt;
      return IntRange{*lo, *hi};
    }
    case BinaryOp::Sub: {
      const auto lo = checked_sub(x.lo, y.hi), hi = checked_sub(x.hi, y.lo);
      if (!lo || !hi) return std::nullopt;
      return IntRange{*lo, *hi};
    }
    case BinaryOp::Mul: return corners(x, y, checked_mul);
    case BinaryOp::Div: return divide(x, y, floor_div);
    case BinaryOp::TruncDiv: return divide(x, y, trunc_div);
    case BinaryOp::Mod: return floor_mod_range(x, y);
    case BinaryOp::TruncMod: return trunc_mod_range(x, y);
    case BinaryOp::Min: return IntRange{std::min(x.lo, y.lo), std::min(x.hi, y.hi)};
    case BinaryOp::Max: return IntRange{std::max(x.lo, y.lo), std::max(x.hi, y.hi)};
    case BinaryOp::EQ:
    case BinaryOp::NE:
    case BinaryOp::LT:
    case BinaryOp::LE:
    case BinaryOp::GT:
    case BinaryOp::GE: return compare(b.op, x, y);
    case BinaryOp::And: return truth(x.lo == 0 || y.lo == 0, x.hi == 1 && y.hi == 1);
    case BinaryOp::Or: return truth(x.lo == 0 && y.lo == 0, x.hi == 1 || y.hi == 1);
    case BinaryOp::Pow: break;
    }
    TRAPEZE_ASSERT(false, "pow with an integer type");
  }

  FloatRange float_unary(const Unary& u) const {
    const ScalarType t = u.type;
    const FloatRange a = floats(u.value);
    if (!finite(a) && u.op != UnaryOp::Neg && u.op != UnaryOp::Abs) return anything();
    FloatRange r{0, 0, a.may_be_nan};
    switch (u.op) {
    case UnaryOp::Neg: r = {-a.hi, -a.lo, a.may_be_nan}; break;
    case UnaryOp::Abs:
      if (a.lo >= 0)
        r = a;
      else if (a.hi <= 0)
        r = {-a.hi, -a.lo, a.may_be_nan};
      else
        r = {0, std::max(-a.lo, a.hi), a.may_be_nan};
      break;
    case UnaryOp::Sqrt:
      r = {std::sqrt(std::max(a.lo, 0.0)), std::sqrt(std::max(a.hi, 0.0)),
           a.may_be_nan || a.lo < 0};
      break;
    case UnaryOp::Exp: r = widened(t, {std::exp(a.lo), std::exp(a.hi), a.may_be_nan}); break;
    case UnaryOp::Log:
      r = widened(t, {a.lo <= 0 ? -kInf : std::log(a.lo), a.hi <= 0 ? -kInf : std::log(a.hi),
                      a.may_be_nan || a.lo < 0});
      break;
    case UnaryOp::Floor: r = {std::floor(a.lo), std::floor(a.hi), a.may_be_nan}; break;
    case UnaryOp::Ceil: r = {std::ceil(a.lo), std::ceil(a.hi), a.may_be_nan}; break;
    case UnaryOp::Sin:
    case UnaryOp::Cos: r = {-1, 1, a.may_be_nan}; break;
    case UnaryOp::Not: TRAPEZE_ASSERT(false, "not of a float");
    }
    return rounded(t, r);
  }

  FloatRange float_binary(const Binary& b) const {
    const ScalarType t = b.type;
    const FloatRange x = floats(b.a), y = floats(b.b);
    const bool nan = x.may_be_nan || y.may_be_nan;
    switch (b.op) {
    case BinaryOp::Min: return {std::min(x.lo, y.lo), std::min(x.hi, y.hi), nan};
    case BinaryOp::Max: return {std::max(x.lo, y.lo), std::max(x.hi, y.hi), nan};
    default: break;
    }
    // Infinite operands can meet (inf - inf, 0 * inf): give up on them.
    if (!finite(x) || !finite(y)) return anything();
    FloatRange r;
    switch (b.op) {
    case BinaryOp::Add: r = {x.lo + y.lo, x.hi + y.hi, nan}; break;
    case BinaryOp::Sub: r = {x.lo - y.hi, x.hi - y.lo, nan}; break;
    case BinaryOp::Mul: r = float_corners(x, y, [](double p, double q) { return p * q; }); break;
    case BinaryOp::Div:
      if (y.lo <= 0 && y.hi >= 0) return anything();
      r = float_corners(x, y, [](double p, double q) { return p / q; });
      break;
    case BinaryOp::Mod: // a - b*floor(a/b) lies between 0 and b (b itself after rounding)
      if (y.lo > 0)
        r = {0, y.hi, nan};
      else if (y.hi < 0)
        r = {y.lo, 0, nan};
      else
        return anything();
      break;
    case BinaryOp::Pow:
      // For a positive base, pow is monotone in each argument.
      if (x.lo <= 0) return anything();
      r = widened(t, float_corners(x, y, [](double p, double q) { return std::pow(p, q); }));
      break;
    default: TRAPEZE_ASSERT(false, "unexpected float binary op");
    }
    return rounded(t, r);
  }

  const VarRanges& vars_;
  const ParamValues& params_;
};

} // namespace

IntRange full_range(ScalarType t) {
  switch (t) {
  case ScalarType::Bool: return {0, 1};
  case ScalarType::UInt8: return {0, 255};
  case ScalarType::UInt16: return {0, 65535};
  case ScalarType::Int16: return {-32768, 32767};
  case ScalarType::Int32:
    return {std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max()};
  case ScalarType::Int64: return {kMin, kMax};
  case ScalarType::Float32:
  case ScalarType::Float64: break;
  }
  TRAPEZE_ASSERT(false, "full_range of a float type");
}

IntRange integer_range(const Expr& e, const VarRanges& vars, const ParamValues& params) {
  return RangeEvaluator(vars, params).ints(e);
}

FloatRange float_range(const Expr& e, const VarRanges& vars, const ParamValues& params) {
  return RangeEvaluator(vars, params).floats(e);
}

} // namespace trapeze::analysis
