// Splitting case conditions into a box and a residual condition.
#include "analysis/case_region.h"

#include "trapeze/dsl.h"
#include "trapeze/ir_visitor.h"

#include <algorithm>

namespace trapeze::analysis {

using namespace ir;

namespace {

bool is_param_expression(const Expr& e) {
  if (!is_integer(e.type()) || e.type() == ScalarType::Bool) return false;
  bool ok = true;
  for_each_node(e, [&](const Expr& n) {
    if (n.as<VarRef>() || n.as<Access>()) ok = false;
    if (const auto* p = n.as<ParamRef>(); p && p->type != ScalarType::Int64) ok = false;
  });
  return ok;
}

void split_conjuncts(const Expr& e, std::vector<Expr>& out) {
  if (const auto* b = e.as<Binary>(); b && b->op == BinaryOp::And) {
    split_conjuncts(b->a, out);
    split_conjuncts(b->b, out);
    return;
  }
  out.push_back(e);
}

// The variable under a (possibly widening) cast, or nullptr.
const VarRef* as_var(const Expr& e) {
  if (const auto* c = e.as<Cast>();
      c && is_integer(c->type) && c->type != ScalarType::Bool && byte_size(c->type) >= 4)
    return c->value.as<VarRef>();
  return e.as<VarRef>();
}

Expr tighter_lo(const Expr& a, const Expr& b) { return Binary::make(BinaryOp::Max, a, b); }
Expr tighter_hi(const Expr& a, const Expr& b) { return Binary::make(BinaryOp::Min, a, b); }

// Applies `v op e` to the box; false if the conjunct has another form.
bool apply_bound(const Function& f, std::vector<Interval>& box, const Expr& conjunct) {
  const auto* b = conjunct.as<Binary>();
  if (!b || !is_comparison(b->op) || b->op == BinaryOp::NE) return false;
  BinaryOp op = b->op;
  const VarRef* v = as_var(b->a);
  Expr bound = b->b;
  if (!v) { // e OP v: mirror it to v OP' e
    v = as_var(b->b);
    bound = b->a;
    switch (op) {
    case BinaryOp::LT: op = BinaryOp::GT; break;
    case BinaryOp::LE: op = BinaryOp::GE; break;
    case BinaryOp::GT: op = BinaryOp::LT; break;
    case BinaryOp::GE: op = BinaryOp::LE; break;
    default: break;
    }
  }
  if (!v || !is_param_expression(bound)) return false;
  const auto it = std::find(f.vars().begin(), f.vars().end(), v->name);
  if (it == f.vars().end()) return false;
  Interval& range = box[static_cast<std::size_t>(it - f.vars().begin())];
  switch (op) {
  case BinaryOp::LT: range.hi = tighter_hi(range.hi, bound - Expr(1)); return true;
  case BinaryOp::LE: range.hi = tighter_hi(range.hi, bound); return true;
  case BinaryOp::GT: range.lo = tighter_lo(range.lo, bound + Expr(1)); return true;
  case BinaryOp::GE: range.lo = tighter_lo(range.lo, bound); return true;
  case BinaryOp::EQ:
    range.lo = tighter_lo(range.lo, bound);
    range.hi = tighter_hi(range.hi, bound);
    return true;
  default: return false;
  }
}

} // namespace

CaseRegion case_region(const Function& f, const Expr& condition) {
  CaseRegion region;
  region.box = f.domain();
  std::vector<Expr> conjuncts;
  split_conjuncts(condition, conjuncts);
  for (const Expr& c : conjuncts) {
    if (const auto* k = c.as<IntConst>(); k && k->value != 0) continue; // `true`
    if (apply_bound(f, region.box, c)) continue;
    region.residual =
        region.residual.defined() ? Binary::make(BinaryOp::And, region.residual, c) : c;
  }
  return region;
}

std::vector<CaseRegion> case_regions(const Function& f) {
  std::vector<CaseRegion> out;
  for (const ir::Case& c : f.definition().cases)
    out.push_back(case_region(f, c.condition));
  return out;
}

} // namespace trapeze::analysis
