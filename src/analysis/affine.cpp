// Recognising index expressions as floor-affine forms.
#include "analysis/affine.h"

#include "trapeze/ir_visitor.h"

#include <algorithm>
#include <numeric>

namespace trapeze::analysis {

using namespace ir;

// ---- Rational -------------------------------------------------------------------------------

namespace {

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// Products and sums of rationals in this analysis are tiny (access coefficients), so
// overflow would be a bug in a pipeline nobody can write; it is checked anyway.
std::int64_t checked_mul(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  TRAPEZE_ASSERT(!__builtin_mul_overflow(a, b, &r), "rational arithmetic overflowed");
  return r;
}
std::int64_t checked_add(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  TRAPEZE_ASSERT(!__builtin_add_overflow(a, b, &r), "rational arithmetic overflowed");
  return r;
}

} // namespace

Rational::Rational(std::int64_t n, std::int64_t d) : num(n), den(d) {
  TRAPEZE_ASSERT(d != 0, "rational with a zero denominator");
  if (den < 0) num = -num, den = -den;
  const std::int64_t g = std::gcd(num, den);
  if (g > 1) num /= g, den /= g;
}

std::int64_t Rational::floor() const { return floor_div(num, den); }
std::int64_t Rational::ceil() const { return -floor_div(-num, den); }

std::string Rational::str() const {
  if (den == 1) return std::to_string(num);
  return std::to_string(num) + "/" + std::to_string(den);
}

bool operator<(const Rational& a, const Rational& b) {
  return checked_mul(a.num, b.den) < checked_mul(b.num, a.den);
}
Rational operator+(const Rational& a, const Rational& b) {
  return {checked_add(checked_mul(a.num, b.den), checked_mul(b.num, a.den)),
          checked_mul(a.den, b.den)};
}
Rational operator-(const Rational& a, const Rational& b) { return a + Rational(-b.num, b.den); }
Rational operator*(const Rational& a, const Rational& b) {
  return {checked_mul(a.num, b.num), checked_mul(a.den, b.den)};
}
Rational operator/(const Rational& a, const Rational& b) {
  TRAPEZE_ASSERT(b.num != 0, "rational division by zero");
  return {checked_mul(a.num, b.den), checked_mul(a.den, b.num)};
}

// ---- AffineIndex ----------------------------------------------------------------------------

std::int64_t AffineIndex::var_coefficient(const std::string& var) const {
  for (const auto& [name, a] : vars)
    if (name == var) return a;
  return 0;
}

namespace {

void append_term(std::string& out, std::int64_t coeff, const std::string& name) {
  if (coeff == 0) return;
  const std::int64_t mag = coeff < 0 ? -coeff : coeff;
  if (out.empty()) {
    if (coeff < 0) out += "-";
  } else {
    out += coeff < 0 ? " - " : " + ";
  }
  if (name.empty()) {
    out += std::to_string(mag);
  } else {
    if (mag != 1) out += std::to_string(mag) + "*";
    out += name;
  }
}

// "2*x + R - 1" for the numerator terms (constant `c`), "0" if everything is zero.
std::string numerator_text(const AffineIndex& f, std::int64_t c, int* terms) {
  std::string out;
  *terms = 0;
  for (const auto& [name, a] : f.vars)
    append_term(out, a, name), ++*terms;
  for (const auto& [name, b] : f.params)
    append_term(out, b, name), ++*terms;
  if (c != 0) append_term(out, c, ""), ++*terms;
  if (out.empty()) out = "0";
  return out;
}

} // namespace

std::string AffineIndex::str() const {
  int terms = 0;
  if (divisor == 1) return numerator_text(*this, constant, &terms);
  // floor((e + q*d)/d) = floor(e/d) + q: pull the integer part out when it is exact.
  std::int64_t outer = 0;
  std::int64_t inner = constant;
  if (constant % divisor == 0) outer = constant / divisor, inner = 0;
  std::string e = numerator_text(*this, inner, &terms);
  std::string out = (terms > 1 ? "(" + e + ")" : e) + "/" + std::to_string(divisor);
  if (outer > 0) out += " + " + std::to_string(outer);
  if (outer < 0) out += " - " + std::to_string(-outer);
  return out;
}

const char* access_kind_name(AccessKind kind) {
  switch (kind) {
  case AccessKind::Affine: return "affine";
  case AccessKind::DataDependent: return "data-dependent";
  case AccessKind::NonAffine: return "non-affine";
  }
  return "?";
}

// ---- Recognition ----------------------------------------------------------------------------

namespace {

using Terms = std::vector<std::pair<std::string, std::int64_t>>;

// Builds forms bottom-up; any int64 overflow makes the whole index non-affine.
class FormBuilder {
public:
  std::optional<AffineIndex> build(const Expr& e) {
    std::optional<AffineIndex> f = form(e);
    if (overflow_) return std::nullopt;
    return f;
  }

private:
  bool overflow_ = false;

  std::int64_t add(std::int64_t a, std::int64_t b) {
    std::int64_t r = 0;
    if (__builtin_add_overflow(a, b, &r)) overflow_ = true;
    return r;
  }
  std::int64_t mul(std::int64_t a, std::int64_t b) {
    std::int64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r)) overflow_ = true;
    return r;
  }

  static bool is_index_type(ScalarType t) {
    return t == ScalarType::Int32 || t == ScalarType::Int64;
  }

  // a*x + b*y merged by name (both sorted), dropping zero coefficients.
  Terms merge(const Terms& a, std::int64_t ka, const Terms& b, std::int64_t kb) {
    Terms out;
    out.reserve(a.size() + b.size());
    std::size_t i = 0, j = 0;
    while (i < a.size() || j < b.size()) {
      std::string name;
      std::int64_t v = 0;
      if (j == b.size() || (i < a.size() && a[i].first < b[j].first)) {
        name = a[i].first, v = mul(a[i].second, ka), ++i;
      } else if (i == a.size() || b[j].first < a[i].first) {
        name = b[j].first, v = mul(b[j].second, kb), ++j;
      } else {
        name = a[i].first, v = add(mul(a[i].second, ka), mul(b[j].second, kb)), ++i, ++j;
      }
      if (v != 0) out.emplace_back(std::move(name), v);
    }
    return out;
  }

  // Divides out the common factor; a constant form is evaluated (d = 1).
  static AffineIndex normalize(AffineIndex f) {
    if (f.is_constant()) {
      f.constant = floor_div(f.constant, f.divisor);
      f.divisor = 1;
      return f;
    }
    std::int64_t g = std::gcd(f.divisor, f.constant);
    for (const auto& t : f.vars)
      g = std::gcd(g, t.second);
    for (const auto& t : f.params)
      g = std::gcd(g, t.second);
    if (g > 1) {
      f.divisor /= g, f.constant /= g;
      for (auto& t : f.vars)
        t.second /= g;
      for (auto& t : f.params)
        t.second /= g;
    }
    return f;
  }

  // Numerator scaled by k (the divisor unchanged).
  AffineIndex scale_numerator(const AffineIndex& f, std::int64_t k) {
    AffineIndex r;
    r.vars = merge(f.vars, k, {}, 0);
    r.params = merge(f.params, k, {}, 0);
    r.constant = mul(f.constant, k);
    r.divisor = f.divisor;
    return r;
  }

  // a + k*b where one of them has divisor 1: floor(e/d) + k*g = floor((e + k*d*g)/d).
  std::optional<AffineIndex> add_forms(const AffineIndex& a, const AffineIndex& b, std::int64_t k) {
    if (a.divisor != 1 && b.divisor != 1) return std::nullopt;
    if (b.divisor != 1) {
      // floor(e/d) is not linear: negate it exactly first when it is subtracted.
      return k == 1 ? add_forms(b, a, 1) : add_forms(negate(b), a, 1);
    }
    const std::int64_t kd = mul(k, a.divisor);
    AffineIndex r;
    r.vars = merge(a.vars, 1, b.vars, kd);
    r.params = merge(a.params, 1, b.params, kd);
    r.constant = add(a.constant, mul(b.constant, kd));
    r.divisor = a.divisor;
    return normalize(std::move(r));
  }

  // -floor(e/d) = ceil(-e/d) = floor((-e + d - 1)/d).
  AffineIndex negate(const AffineIndex& f) {
    AffineIndex r = scale_numerator(f, -1);
    r.constant = add(r.constant, f.divisor - 1);
    return normalize(std::move(r));
  }

  std::optional<std::int64_t> constant_of(const std::optional<AffineIndex>& f) {
    if (f && f->is_constant() && f->divisor == 1) return f->constant;
    return std::nullopt;
  }

  std::optional<AffineIndex> form(const Expr& e) {
    if (!is_index_type(e.type())) return std::nullopt;
    if (const auto* k = e.as<IntConst>()) {
      AffineIndex r;
      r.constant = k->value;
      return r;
    }
    if (const auto* v = e.as<VarRef>()) {
      AffineIndex r;
      r.vars.emplace_back(v->name, 1);
      return r;
    }
    if (const auto* p = e.as<ParamRef>()) {
      AffineIndex r;
      r.params.emplace_back(p->name, 1);
      return r;
    }
    if (const auto* c = e.as<Cast>()) {
      // int32 <-> int64: indices of a valid pipeline stay well inside int32.
      if (!is_index_type(c->value.type())) return std::nullopt;
      return form(c->value);
    }
    if (const auto* u = e.as<Unary>()) {
      if (u->op != UnaryOp::Neg) return std::nullopt;
      std::optional<AffineIndex> f = form(u->value);
      if (!f) return std::nullopt;
      return negate(*f);
    }
    const auto* b = e.as<Binary>();
    if (!b) return std::nullopt;
    switch (b->op) {
    case BinaryOp::Add:
    case BinaryOp::Sub: {
      std::optional<AffineIndex> x = form(b->a);
      if (!x) return std::nullopt;
      std::optional<AffineIndex> y = form(b->b);
      if (!y) return std::nullopt;
      return add_forms(*x, *y, b->op == BinaryOp::Add ? 1 : -1);
    }
    case BinaryOp::Mul: {
      std::optional<AffineIndex> x = form(b->a);
      if (!x) return std::nullopt;
      std::optional<AffineIndex> y = form(b->b);
      if (!y) return std::nullopt;
      std::optional<std::int64_t> k = constant_of(y);
      const AffineIndex* other = &*x;
      if (!k) k = constant_of(x), other = &*y;
      if (!k) return std::nullopt; // x*y
      if (*k == 0) return AffineIndex{};
      if (other->divisor != 1) return std::nullopt; // k*floor(e/d) is not a floor-affine form
      return normalize(scale_numerator(*other, *k));
    }
    case BinaryOp::Div: {
      std::optional<AffineIndex> x = form(b->a);
      if (!x) return std::nullopt;
      std::optional<std::int64_t> k = constant_of(form(b->b));
      if (!k || *k == 0) return std::nullopt;
      // floor(floor(e/d)/k) = floor(e/(d*k)) for k > 0; for k < 0 divide -floor(e/d) by |k|.
      AffineIndex r = *k > 0 ? *x : negate(*x);
      r.divisor = mul(r.divisor, *k > 0 ? *k : -*k);
      return normalize(std::move(r));
    }
    default: return std::nullopt;
    }
  }
};

} // namespace

std::optional<AffineIndex> affine_index(const Expr& index) {
  if (!index.defined()) return std::nullopt;
  return FormBuilder().build(index);
}

AccessKind classify_index(const Expr& index) {
  if (affine_index(index)) return AccessKind::Affine;
  if (index.defined() && reads_memory(index)) return AccessKind::DataDependent;
  return AccessKind::NonAffine;
}

} // namespace trapeze::analysis
