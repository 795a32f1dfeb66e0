// Constant and parity folding of lowered expressions (fold.h).
#include "lower/fold.h"

#include "analysis/bounds_prover.h"
#include "trapeze/ir_visitor.h"

#include <optional>

namespace trapeze::lower {

using namespace ir;

namespace {

std::int64_t floor_quotient(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}

bool is_index_type(ScalarType t) { return t == ScalarType::Int32 || t == ScalarType::Int64; }

Expr truth(bool value) { return IntConst::make(ScalarType::Bool, value ? 1 : 0); }

std::optional<bool> decided(const Expr& e) {
  if (const auto* k = e.as<IntConst>(); k && e.type() == ScalarType::Bool) return k->value != 0;
  return std::nullopt;
}

std::optional<std::int64_t> integer(const Expr& e) {
  if (const auto* k = e.as<IntConst>(); k && e.type() != ScalarType::Bool) return k->value;
  return std::nullopt;
}

// `e` (an integer expression) as `type`: a cast unless it already is.
Expr as_type(ScalarType type, const Expr& e) {
  if (e.type() == type) return e;
  if (const auto k = integer(e)) return IntConst::make(type, *k);
  return Cast::make(type, e);
}

class Folder : public ExprMutator {
protected:
  Expr mutate_node(const Cast* n, const Expr& self) override {
    const Expr value = mutate(n->value);
    if (const auto k = integer(value); k && is_index_type(n->type) && is_index_type(value.type()))
      return IntConst::make(n->type, *k);
    return value.same_as(n->value) ? self : Cast::make(n->type, value);
  }

  Expr mutate_node(const Unary* n, const Expr& self) override {
    const Expr value = mutate(n->value);
    if (n->op == UnaryOp::Not)
      if (const auto b = decided(value)) return truth(!*b);
    return value.same_as(n->value) ? self : Unary::make(n->op, value);
  }

  Expr mutate_node(const Select* n, const Expr& self) override {
    const Expr cond = mutate(n->cond);
    if (const auto b = decided(cond)) return mutate(*b ? n->if_true : n->if_false);
    const Expr t = mutate(n->if_true), f = mutate(n->if_false);
    if (cond.same_as(n->cond) && t.same_as(n->if_true) && f.same_as(n->if_false)) return self;
    return Select::make(cond, t, f);
  }

  Expr mutate_node(const Binary* n, const Expr& self) override {
    const Expr a = mutate(n->a), b = mutate(n->b);
    if (n->op == BinaryOp::And || n->op == BinaryOp::Or) {
      const bool is_and = n->op == BinaryOp::And;
      const auto da = decided(a), db = decided(b);
      if (da) return *da == is_and ? b : truth(!is_and);
      if (db) return *db == is_and ? a : truth(!is_and);
    }
    if ((n->op == BinaryOp::Div || n->op == BinaryOp::Mod) && is_index_type(n->type))
      if (const Expr reduced = divided(n->op, a, b, n->type); reduced.defined()) return reduced;
    if (is_comparison(n->op) && is_index_type(a.type()) && is_index_type(b.type()))
      if (const auto fa = analysis::affine_form(a), fb = analysis::affine_form(b);
          fa && fb && of_indices(*fa) && of_indices(*fb)) {
        const analysis::AffineForm d = *fa - *fb;
        if (d.is_constant()) return truth(compare(n->op, d.constant));
      }
    if (a.same_as(n->a) && b.same_as(n->b)) return self;
    return Binary::make(n->op, a, b);
  }

private:
  // Whether every symbol of `f` is an index: made of variables, integer
  // parameters and constants (min, max, division), whose arithmetic stays in
  // range. Values computed from data (a cast of a read or of a float) wrap in
  // int32, where (2a + 2b) / 2 is not a + b and a + 1 > a may be false.
  static bool of_indices(const analysis::AffineForm& f) {
    for (const auto& [key, term] : f.terms) {
      bool index = true;
      for_each_node(term.second, [&](const Expr& node) {
        if (node.as<VarRef>() || node.as<ParamRef>() || node.as<IntConst>() || node.as<Binary>())
          index = index && is_index_type(node.type());
        else if (const auto* c = node.as<Cast>())
          index = index && is_index_type(c->type) && is_index_type(c->value.type());
        else
          index = false;
      });
      if (!index) return false;
    }
    return true;
  }

  // a / k or a % k for an affine a whose non-constant coefficients are
  // multiples of k > 0; undefined otherwise.
  static Expr divided(BinaryOp op, const Expr& a, const Expr& b, ScalarType type) {
    const auto k = integer(b);
    const auto form = analysis::affine_form(a);
    if (!k || *k <= 0 || !form) return Expr();
    // Symbols of other types (an int64 parameter in an int32 index) keep the
    // expression as it is: the form's arithmetic would change their type.
    if (!of_indices(*form)) return Expr();
    for (const auto& [key, term] : form->terms)
      if (term.second.type() != type) return Expr();
    analysis::AffineForm quotient;
    for (const auto& [key, term] : form->terms) {
      if (term.first % *k != 0) return Expr();
      quotient.terms[key] = {term.first / *k, term.second};
    }
    const std::int64_t q = floor_quotient(form->constant, *k);
    if (op == BinaryOp::Mod) return IntConst::make(type, form->constant - q * *k);
    quotient.constant = q;
    return affine_in(type, quotient);
  }

  // An affine form as an expression of `type` (the variables' own int32
  // arithmetic where the form came from int32).
  static Expr affine_in(ScalarType type, const analysis::AffineForm& f) {
    Expr acc;
    for (const auto& [key, term] : f.terms) {
      const auto [k, symbol] = term;
      const Expr s = as_type(type, symbol);
      const Expr t = std::llabs(k) == 1
                         ? s
                         : Binary::make(BinaryOp::Mul, IntConst::make(type, std::llabs(k)), s);
      acc = !acc.defined() ? (k < 0 ? Unary::make(UnaryOp::Neg, t) : t)
                           : Binary::make(k < 0 ? BinaryOp::Sub : BinaryOp::Add, acc, t);
    }
    if (!acc.defined()) return IntConst::make(type, f.constant);
    if (f.constant == 0) return acc;
    return Binary::make(f.constant > 0 ? BinaryOp::Add : BinaryOp::Sub, acc,
                        IntConst::make(type, std::llabs(f.constant)));
  }

  // d = a - b against 0.
  static bool compare(BinaryOp op, std::int64_t d) {
    switch (op) {
    case BinaryOp::EQ: return d == 0;
    case BinaryOp::NE: return d != 0;
    case BinaryOp::LT: return d < 0;
    case BinaryOp::LE: return d <= 0;
    case BinaryOp::GT: return d > 0;
    case BinaryOp::GE: return d >= 0;
    default: TRAPEZE_ASSERT(false, "not a comparison");
    }
  }
};

} // namespace

Expr fold(const Expr& e) { return Folder().mutate(e); }

} // namespace trapeze::lower
