// Affine forms, a small prover over non-emptiness facts, and bound simplification.
#include "analysis/bounds_prover.h"

#include "trapeze/ir_visitor.h"

#include <cstdlib>
#include <set>

namespace trapeze::analysis {

using namespace ir;

AffineForm AffineForm::operator+(const AffineForm& o) const {
  AffineForm r = *this;
  r.constant += o.constant;
  for (const auto& [key, term] : o.terms) {
    auto [it, fresh] = r.terms.emplace(key, term);
    if (!fresh) {
      it->second.first += term.first;
      if (it->second.first == 0) r.terms.erase(it);
    }
  }
  return r;
}

AffineForm AffineForm::scaled(std::int64_t k) const {
  AffineForm r;
  if (k == 0) return r;
  r.constant = constant * k;
  for (const auto& [key, term] : terms)
    r.terms.emplace(key, std::make_pair(term.first * k, term.second));
  return r;
}

AffineForm AffineForm::operator-(const AffineForm& o) const { return *this + o.scaled(-1); }

namespace {

bool is_index_type(ScalarType t) { return t == ScalarType::Int32 || t == ScalarType::Int64; }

AffineForm atom(const Expr& e) {
  AffineForm f;
  std::string key;
  if (const auto* p = e.as<ParamRef>()) {
    key = "0" + p->name;
  } else if (const auto* v = e.as<VarRef>()) {
    key = "1" + v->name;
  } else {
    key = "2" + ir::to_string(e);
  }
  f.terms.emplace(key, std::make_pair(std::int64_t{1}, e));
  return f;
}

Expr as_int64(const Expr& e) { return Cast::make(ScalarType::Int64, e); }

} // namespace

std::optional<AffineForm> affine_form(const Expr& e) {
  if (!is_integer(e.type()) || e.type() == ScalarType::Bool) return std::nullopt;
  if (const auto* k = e.as<IntConst>()) {
    AffineForm f;
    f.constant = k->value;
    return f;
  }
  if (const auto* c = e.as<Cast>(); c && is_index_type(c->type) && is_index_type(c->value.type()))
    return affine_form(c->value); // bounds fit in int32 (they bound int32 variables)
  if (const auto* u = e.as<Unary>(); u && u->op == UnaryOp::Neg) {
    if (auto f = affine_form(u->value)) return f->scaled(-1);
  }
  if (const auto* b = e.as<Binary>()) {
    const auto fa = affine_form(b->a), fb = affine_form(b->b);
    if (fa && fb) {
      switch (b->op) {
      case BinaryOp::Add: return *fa + *fb;
      case BinaryOp::Sub: return *fa - *fb;
      case BinaryOp::Mul:
        if (fa->is_constant()) return fb->scaled(fa->constant);
        if (fb->is_constant()) return fa->scaled(fb->constant);
        break;
      default: break;
      }
    }
  }
  return atom(e);
}

Expr affine_expr(const AffineForm& f) {
  Expr acc;
  for (const auto& [key, term] : f.terms) {
    const auto [k, symbol] = term;
    const Expr s = as_int64(symbol);
    const std::int64_t mag = std::llabs(k);
    const Expr t = mag == 1 ? s : Binary::make(BinaryOp::Mul, Expr(mag), s);
    if (!acc.defined()) {
      acc = k < 0 ? Unary::make(UnaryOp::Neg, t) : t;
    } else {
      acc = Binary::make(k < 0 ? BinaryOp::Sub : BinaryOp::Add, acc, t);
    }
  }
  if (!acc.defined()) return Expr(f.constant);
  if (f.constant > 0) return Binary::make(BinaryOp::Add, acc, Expr(f.constant));
  if (f.constant < 0) return Binary::make(BinaryOp::Sub, acc, Expr(-f.constant));
  return acc;
}

BoundsProver BoundsProver::for_pipeline(const Pipeline& p) {
  std::vector<AffineForm> facts;
  // Many stages share their domains: every fact once (prove_le tries each).
  std::set<std::string> seen;
  const auto add = [&](const Interval& range) {
    const auto lo = affine_form(range.lo), hi = affine_form(range.hi);
    if (!lo || !hi) return;
    const AffineForm fact = *hi - *lo;
    if (fact.is_constant()) return; // says nothing about the parameters
    std::string key = std::to_string(fact.constant);
    for (const auto& [name, term] : fact.terms)
      key += ";" + name + "*" + std::to_string(term.first);
    if (seen.insert(key).second) facts.push_back(fact);
  };
  for (const auto& f : p.stages())
    for (const Interval& range : f->domain())
      add(range);
  for (const auto& in : p.inputs())
    for (const Interval& range : in->domain())
      add(range);
  // The parameters' declared ranges (Pipeline::set_range): bind() enforces them.
  for (const ParamInfo& q : p.params()) {
    const Expr n = ParamRef::make(q.name, q.type);
    if (q.min) add(Interval(Expr(*q.min), n));
    if (q.max) add(Interval(n, Expr(*q.max)));
  }
  return BoundsProver(std::move(facts));
}

BoundsProver BoundsProver::with_facts(const std::vector<AffineForm>& more) const {
  std::vector<AffineForm> facts = facts_;
  facts.insert(facts.end(), more.begin(), more.end());
  return BoundsProver(std::move(facts));
}

std::optional<std::int64_t> BoundsProver::constant_difference(const Expr& a, const Expr& b) const {
  const auto fa = affine_form(a), fb = affine_form(b);
  if (!fa || !fb) return std::nullopt;
  const AffineForm d = *fb - *fa;
  if (!d.is_constant()) return std::nullopt;
  return d.constant;
}

bool BoundsProver::prove_nonnegative(const AffineForm& d, int depth) const {
  if (d.is_constant()) return d.constant >= 0;
  // d >= 0 if d = k * fact + c for a fact (>= 0), an integer k >= 1 and c >= 0:
  // 8n + 7 >= 0 from n - 1 >= 0 (k = 8, c = 15).
  for (const AffineForm& fact : facts_) {
    if (fact.terms.empty() || fact.terms.size() != d.terms.size()) continue;
    const auto& [key, term] = *fact.terms.begin();
    const auto it = d.terms.find(key);
    if (it == d.terms.end() || term.first == 0 || it->second.first % term.first != 0) continue;
    const std::int64_t k = it->second.first / term.first;
    if (k < 1) continue;
    const AffineForm rest = d - fact.scaled(k);
    if (rest.is_constant() && rest.constant >= 0) return true;
  }
  if (depth == 0) return false;
  // Otherwise through the first atom that is a min, a max or a floor
  // division by a constant, as a term t * atom of d = rest + t * atom.
  for (const auto& [key, term] : d.terms) {
    const auto [t, symbol] = term;
    const auto* b = symbol.as<Binary>();
    if (!b) continue;
    AffineForm rest = d;
    rest.terms.erase(key);
    if (b->op == BinaryOp::Min || b->op == BinaryOp::Max) {
      // t * min(x, y) is t * x or t * y: for a lower bound of d, both when
      // the atom's least value bounds d (min with t > 0, max with t < 0),
      // either one otherwise.
      const auto fx = affine_form(b->a), fy = affine_form(b->b);
      if (!fx || !fy) continue;
      const bool both = (b->op == BinaryOp::Min) == (t > 0);
      const bool x = prove_nonnegative(rest + fx->scaled(t), depth - 1);
      if (x != both) return x; // both and x false: false; either and x true: true
      return prove_nonnegative(rest + fy->scaled(t), depth - 1);
    }
    const auto* k = b->b.as<IntConst>();
    if (b->op == BinaryOp::Div && k && k->value >= 1) {
      // q = floor(n / k): n - k + 1 <= k * q <= n, so k * d >= k * rest +
      // t * (n - k + 1) for t > 0 and k * rest + t * n for t < 0.
      const auto fn = affine_form(b->a);
      if (!fn) continue;
      AffineForm low = rest.scaled(k->value) + fn->scaled(t);
      if (t > 0) low.constant -= t * (k->value - 1);
      return prove_nonnegative(low, depth - 1);
    }
  }
  return false;
}

bool BoundsProver::prove_le(const Expr& a, const Expr& b) const {
  const auto fa = affine_form(a), fb = affine_form(b);
  if (!fa || !fb) return false;
  if (prove_nonnegative(*fb - *fa, kAtomDepth)) return true;
  // Structural rules for min and max (through casts between index types).
  const auto strip = [](const Expr& e) {
    const auto* c = e.as<Cast>();
    return c && is_index_type(c->type) && is_index_type(c->value.type()) ? c->value : e;
  };
  const Expr sa = strip(a), sb = strip(b);
  const auto* ma = sa.as<Binary>();
  const auto* mb = sb.as<Binary>();
  // Monotonicity: min(a1, a2) <= min(b1, b2) if a1 <= b1 and a2 <= b2 (max alike).
  if (ma && mb && ma->op == mb->op && (ma->op == BinaryOp::Min || ma->op == BinaryOp::Max)) {
    if ((prove_le(ma->a, mb->a) && prove_le(ma->b, mb->b)) ||
        (prove_le(ma->a, mb->b) && prove_le(ma->b, mb->a)))
      return true;
  }
  if (const auto* m = ma) {
    if (m->op == BinaryOp::Min) return prove_le(m->a, b) || prove_le(m->b, b);
    if (m->op == BinaryOp::Max) return prove_le(m->a, b) && prove_le(m->b, b);
  }
  if (const auto* m = mb) {
    if (m->op == BinaryOp::Min) return prove_le(a, m->a) && prove_le(a, m->b);
    if (m->op == BinaryOp::Max) return prove_le(a, m->a) || prove_le(a, m->b);
  }
  return false;
}

std::vector<Expr> BoundsProver::extents(const std::vector<Interval>& box) const {
  std::vector<Expr> out;
  for (const Interval& range : box)
    out.push_back(simplify(
        Binary::make(BinaryOp::Add, Binary::make(BinaryOp::Sub, range.hi, range.lo), Expr(1))));
  return out;
}

Expr BoundsProver::simplify(const Expr& e) const {
  TRAPEZE_ASSERT(is_integer(e.type()) && e.type() != ScalarType::Bool,
                 "simplifying a non-integer bound " + ir::to_string(e));
  if (const auto* c = e.as<Cast>(); c && is_index_type(c->type) && is_index_type(c->value.type()))
    return simplify(c->value);
  if (const auto* b = e.as<Binary>()) {
    if (b->op == BinaryOp::Min || b->op == BinaryOp::Max) {
      const Expr x = simplify(b->a), y = simplify(b->b);
      const bool is_min = b->op == BinaryOp::Min;
      if (prove_le(x, y)) return is_min ? x : y;
      if (prove_le(y, x)) return is_min ? y : x;
      return Binary::make(b->op, x, y);
    }
    if (b->op == BinaryOp::Add || b->op == BinaryOp::Sub) {
      // Push a constant into min/max: min(x, y) + c = min(x + c, y + c).
      const Expr x = simplify(b->a), y = simplify(b->b);
      const auto* m = x.as<Binary>();
      if (const auto* k = y.as<IntConst>();
          k && m && (m->op == BinaryOp::Min || m->op == BinaryOp::Max)) {
        const std::int64_t c = b->op == BinaryOp::Add ? k->value : -k->value;
        return simplify(Binary::make(m->op, Binary::make(BinaryOp::Add, m->a, Expr(c)),
                                     Binary::make(BinaryOp::Add, m->b, Expr(c))));
      }
      const Expr rebuilt = Binary::make(b->op, x, y);
      return affine_expr(*affine_form(rebuilt));
    }
    if (const auto* k = b->b.as<IntConst>(); b->op == BinaryOp::Div && k && k->value >= 1) {
      // Floor division by a positive constant: of a constant, folded; of an
      // affine form every term of which k divides, exact; otherwise an atom
      // over the simplified numerator, so that equal quotients cancel.
      const Expr n = simplify(b->a);
      const AffineForm f = *affine_form(n);
      const std::int64_t d = k->value;
      const auto floor_of = [d](std::int64_t v) { return v / d - (v % d != 0 && v < 0 ? 1 : 0); };
      if (f.is_constant()) return Expr(floor_of(f.constant));
      bool exact = f.constant % d == 0;
      for (const auto& [key, term] : f.terms)
        exact = exact && term.first % d == 0;
      if (exact) {
        AffineForm q;
        q.constant = f.constant / d;
        for (const auto& [key, term] : f.terms)
          q.terms[key] = {term.first / d, term.second};
        return affine_expr(q);
      }
      return affine_expr(*affine_form(Binary::make(BinaryOp::Div, n, b->b)));
    }
  }
  return affine_expr(*affine_form(e));
}

} // namespace trapeze::analysis
