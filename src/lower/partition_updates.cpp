// Splitting a reduction's update loops where a select's box test holds
// (partition_updates.h).
#include "lower/partition_updates.h"

#include "ir/ir_operators.h"
#include "trapeze/ir_visitor.h"

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace trapeze::lower {

using namespace ir;

namespace {

void conjuncts(const Expr& cond, std::vector<Expr>& out) {
  if (const auto* b = cond.as<Binary>(); b && b->op == BinaryOp::And) {
    conjuncts(b->a, out);
    conjuncts(b->b, out);
    return;
  }
  out.push_back(cond);
}

// An integer comparison as `form <= 0`, or nullopt.
std::optional<analysis::AffineForm> nonpositive_form(const Expr& comparison) {
  const auto* b = comparison.as<Binary>();
  if (!b || !is_integer(b->a.type()) || b->a.type() == ScalarType::Bool) return std::nullopt;
  const auto fa = analysis::affine_form(b->a), fb = analysis::affine_form(b->b);
  if (!fa || !fb) return std::nullopt;
  analysis::AffineForm one;
  one.constant = 1;
  switch (b->op) {
  case BinaryOp::LE: return *fa - *fb;
  case BinaryOp::LT: return *fa - *fb + one;
  case BinaryOp::GE: return *fb - *fa;
  case BinaryOp::GT: return *fb - *fa + one;
  default: return std::nullopt;
  }
}

// What a conjunct says of `var` where it says something of it alone: var <=
// bound (upper) or var >= bound, the bound free of `var` and of `inner`
// (names bound inside the loop).
struct VarBound {
  bool upper = false;
  Expr bound; // int64
};

std::optional<VarBound> bound_on(const Expr& conjunct, const std::string& var,
                                 const std::set<std::string>& inner) {
  std::optional<analysis::AffineForm> form = nonpositive_form(conjunct);
  if (!form) return std::nullopt;
  std::int64_t k = 0;
  analysis::AffineForm rest = *form;
  for (const auto& [key, term] : form->terms)
    if (const auto* v = term.second.as<VarRef>(); v && v->name == var) {
      k = term.first;
      rest.terms.erase(key);
    }
  if (k == 0) return std::nullopt;
  std::set<std::string> varying = inner;
  varying.insert(var);
  for (const auto& [key, term] : rest.terms)
    if (refers_to(term.second, varying)) return std::nullopt;
  const Expr r = analysis::affine_expr(rest);
  // k * var + r <= 0: var <= floor(-r / k) for k > 0, var >= ceil(r / -k) for k < 0.
  if (k > 0) return VarBound{true, floor_div(Unary::make(UnaryOp::Neg, r), k)};
  return VarBound{false, ceil_div(r, -k)};
}

// Every select's test, in the expressions of a statement.
std::vector<Expr> select_tests(const Stmt& s) {
  struct Collect : StmtVisitor {
    std::vector<Expr> tests;
    void visit_expr(const Expr& e) override {
      for_each_node(e, [&](const Expr& node) {
        if (const auto* sel = node.as<Select>()) tests.push_back(sel->cond);
      });
    }
  } collect;
  collect.visit(s);
  return collect.tests;
}

// Selects with the conjuncts `holding` (keyed by their text) taken as true:
// the rest of each test, or the first arm where nothing is left.
class DropConjuncts : public ExprMutator {
public:
  explicit DropConjuncts(const std::set<std::string>& holding) : holding_(holding) {}

protected:
  Expr mutate_node(const Select* n, const Expr& self) override {
    const Expr e = ExprMutator::mutate_node(n, self);
    const auto* sel = e.as<Select>();
    if (!sel) return e;
    std::vector<Expr> parts;
    conjuncts(sel->cond, parts);
    Expr rest;
    bool dropped = false;
    for (const Expr& part : parts) {
      if (holding_.count(ir::to_string(part))) {
        dropped = true;
        continue;
      }
      rest = and_defined(rest, part);
    }
    if (!dropped) return e;
    return rest.defined() ? Select::make(rest, sel->if_true, sel->if_false) : sel->if_true;
  }

private:
  const std::set<std::string>& holding_;
};

class DropInStmt : public StmtMutator {
public:
  explicit DropInStmt(const std::set<std::string>& holding) : drop_(holding) {}

protected:
  Expr mutate_expr(const Expr& e) override { return drop_.mutate(e); }

private:
  DropConjuncts drop_;
};

class SplitUpdates : public StmtMutator {
public:
  explicit SplitUpdates(const analysis::BoundsProver& prover) : prover_(prover) {}

protected:
  Stmt mutate_node(const For* n, const Stmt& self) override {
    // A parallel loop split in three would be three parallel loops.
    if (is_parallel(n->kind)) return StmtMutator::mutate_node(n, self);
    const std::set<std::string> inner = bound_names(n->body);
    Expr first, last; // the range where every box-test conjunct on the variable holds
    std::set<std::string> holding;
    for (const Expr& test : select_tests(n->body)) {
      std::vector<Expr> parts;
      conjuncts(test, parts);
      for (const Expr& part : parts) {
        const std::optional<VarBound> b = bound_on(part, n->var, inner);
        if (!b) continue;
        holding.insert(ir::to_string(part));
        Expr& side = b->upper ? last : first;
        side = !side.defined() ? b->bound
                               : (b->upper ? min_of(side, b->bound) : max_of(side, b->bound));
      }
    }
    if (holding.empty()) return StmtMutator::mutate_node(n, self);
    // Cuts clamped into [lo, hi + 1] and ordered, so the three pieces tile
    // the loop's range exactly, whatever the tests.
    const Expr lo = as_i64(n->min), end = prover_.simplify(plus(as_i64(n->max), 1));
    const Expr a = first.defined() ? prover_.simplify(min_of(max_of(first, lo), end)) : lo;
    const Expr b = last.defined() ? prover_.simplify(min_of(max_of(plus(last, 1), a), end)) : end;
    const Stmt body = mutate(n->body);
    const Stmt inside = mutate(DropInStmt(holding).mutate(n->body));
    std::vector<Stmt> pieces;
    const auto piece = [&](const Expr& from, const Expr& to, const Stmt& what) {
      if (prover_.prove_le(to, from)) return; // provably no iteration
      pieces.push_back(For::make(n->var, from, prover_.simplify(plus(to, -1)), n->kind, what,
                                 n->collapse, n->schedule));
    };
    piece(lo, a, body);
    piece(a, b, inside);
    piece(b, end, body);
    if (pieces.empty())
      return For::make(n->var, n->min, n->max, n->kind, body, n->collapse, n->schedule);
    return Block::make(std::move(pieces));
  }

private:
  const analysis::BoundsProver& prover_;
};

} // namespace

Stmt partition_update_loops(const Stmt& loops, const analysis::BoundsProver& prover) {
  return SplitUpdates(prover).mutate(loops);
}

} // namespace trapeze::lower
