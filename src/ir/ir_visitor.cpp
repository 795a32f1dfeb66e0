// The generic expression visitor and mutator, substitution, and the printer.
#include "trapeze/ir_visitor.h"

#include "trapeze/function.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <unordered_set>

namespace trapeze::ir {

void ExprVisitor::visit(const Expr& e) {
  TRAPEZE_ASSERT(e.defined(), "visiting an undefined Expr");
  switch (e->kind) {
#define TRAPEZE_DISPATCH(name)                                                                     \
  case ExprKind::name: visit_node(static_cast<const name*>(e.get()), e); return;
    TRAPEZE_FOR_EACH_EXPR_NODE(TRAPEZE_DISPATCH)
#undef TRAPEZE_DISPATCH
  }
}

void ExprVisitor::visit_node(const IntConst*, const Expr&) {}
void ExprVisitor::visit_node(const FloatConst*, const Expr&) {}
void ExprVisitor::visit_node(const VarRef*, const Expr&) {}
void ExprVisitor::visit_node(const ParamRef*, const Expr&) {}
void ExprVisitor::visit_node(const Cast* n, const Expr&) { visit(n->value); }
void ExprVisitor::visit_node(const Unary* n, const Expr&) { visit(n->value); }
void ExprVisitor::visit_node(const Binary* n, const Expr&) {
  visit(n->a);
  visit(n->b);
}
void ExprVisitor::visit_node(const Select* n, const Expr&) {
  visit(n->cond);
  visit(n->if_true);
  visit(n->if_false);
}
void ExprVisitor::visit_node(const Access* n, const Expr&) {
  for (const Expr& a : n->args)
    visit(a);
}

Expr ExprMutator::mutate(const Expr& e) {
  TRAPEZE_ASSERT(e.defined(), "mutating an undefined Expr");
  if (const auto done = done_.find(e.get()); done != done_.end()) return done->second.second;
  Expr result;
  switch (e->kind) {
#define TRAPEZE_DISPATCH(name)                                                                     \
  case ExprKind::name: result = mutate_node(static_cast<const name*>(e.get()), e); break;
    TRAPEZE_FOR_EACH_EXPR_NODE(TRAPEZE_DISPATCH)
#undef TRAPEZE_DISPATCH
  }
  done_.emplace(e.get(), std::make_pair(e, result));
  return result;
}

Expr ExprMutator::mutate_node(const IntConst*, const Expr& self) { return self; }
Expr ExprMutator::mutate_node(const FloatConst*, const Expr& self) { return self; }
Expr ExprMutator::mutate_node(const VarRef*, const Expr& self) { return self; }
Expr ExprMutator::mutate_node(const ParamRef*, const Expr& self) { return self; }
Expr ExprMutator::mutate_node(const Cast* n, const Expr& self) {
  Expr v = mutate(n->value);
  return v.same_as(n->value) ? self : Cast::make(n->type, v);
}
Expr ExprMutator::mutate_node(const Unary* n, const Expr& self) {
  Expr v = mutate(n->value);
  return v.same_as(n->value) ? self : Unary::make(n->op, v);
}
Expr ExprMutator::mutate_node(const Binary* n, const Expr& self) {
  Expr a = mutate(n->a), b = mutate(n->b);
  return a.same_as(n->a) && b.same_as(n->b) ? self : Binary::make(n->op, a, b);
}
Expr ExprMutator::mutate_node(const Select* n, const Expr& self) {
  Expr c = mutate(n->cond), t = mutate(n->if_true), f = mutate(n->if_false);
  if (c.same_as(n->cond) && t.same_as(n->if_true) && f.same_as(n->if_false)) return self;
  return Select::make(c, t, f);
}
Expr ExprMutator::mutate_node(const Access* n, const Expr& self) {
  std::vector<Expr> args;
  bool changed = false;
  for (const Expr& a : n->args) {
    args.push_back(mutate(a));
    changed = changed || !args.back().same_as(a);
  }
  if (!changed) return self;
  return n->func ? Access::make(n->func, std::move(args), n->where)
                 : Access::make(n->image, std::move(args), n->where);
}

std::vector<Expr> operands(const Expr& e) {
  switch (e->kind) {
  case ExprKind::IntConst:
  case ExprKind::FloatConst:
  case ExprKind::VarRef:
  case ExprKind::ParamRef: return {};
  case ExprKind::Cast: return {e.as<Cast>()->value};
  case ExprKind::Unary: return {e.as<Unary>()->value};
  case ExprKind::Binary: return {e.as<Binary>()->a, e.as<Binary>()->b};
  case ExprKind::Select: {
    const auto* s = e.as<Select>();
    return {s->cond, s->if_true, s->if_false};
  }
  case ExprKind::Access: return e.as<Access>()->args;
  }
  TRAPEZE_ASSERT(false, "unknown expression kind");
}

void for_each_node(const Expr& e, const std::function<void(const Expr&)>& fn) {
  // Depth first with a stack of its own: an inlined expression can be deeper
  // than the call stack allows.
  // A node is marked when it is visited, not when it is pushed, so the order
  // is the recursive pre-order's (each node where that order first meets it).
  std::unordered_set<const ExprNode*> seen;
  std::vector<Expr> pending{e};
  while (!pending.empty()) {
    const Expr node = std::move(pending.back());
    pending.pop_back();
    if (!seen.insert(node.get()).second) continue;
    fn(node);
    const std::vector<Expr> children = operands(node);
    for (auto child = children.rbegin(); child != children.rend(); ++child)
      if (!seen.count(child->get())) pending.push_back(*child);
  }
}

Expr substitute_vars(const Expr& e, const std::vector<std::pair<std::string, Expr>>& values) {
  struct Substituter : ExprMutator {
    const std::vector<std::pair<std::string, Expr>>& values;
    explicit Substituter(const std::vector<std::pair<std::string, Expr>>& v) : values(v) {}
    Expr mutate_node(const VarRef* n, const Expr& self) override {
      for (const auto& [name, value] : values)
        if (name == n->name) return value;
      return self;
    }
  } substituter(values);
  return substituter.mutate(e);
}

bool reads_memory(const Expr& e) {
  bool found = false;
  for_each_node(e, [&](const Expr& n) { found = found || n->kind == ExprKind::Access; });
  return found;
}

bool refers_to(const Expr& e, const std::set<std::string>& names) {
  bool found = false;
  for_each_node(e, [&](const Expr& n) {
    if (const auto* v = n.as<VarRef>(); v && names.count(v->name)) found = true;
    if (const auto* q = n.as<ParamRef>(); q && names.count(q->name)) found = true;
  });
  return found;
}

namespace {

// Precedence levels of the text form (higher binds tighter), as in C.
int precedence(const Expr& e) {
  if (const auto* b = e.as<Binary>()) {
    switch (b->op) {
    case BinaryOp::Or: return 1;
    case BinaryOp::And: return 2;
    case BinaryOp::EQ:
    case BinaryOp::NE: return 3;
    case BinaryOp::LT:
    case BinaryOp::LE:
    case BinaryOp::GT:
    case BinaryOp::GE: return 4;
    case BinaryOp::Add:
    case BinaryOp::Sub: return 5;
    case BinaryOp::Mul:
    case BinaryOp::Div:
    case BinaryOp::Mod: return 6;
    default: return 9; // printed as a call
    }
  }
  if (const auto* u = e.as<Unary>(); u && (u->op == UnaryOp::Neg || u->op == UnaryOp::Not))
    return 7;
  if (const auto* i = e.as<IntConst>(); i && i->value < 0) return 7;
  if (const auto* f = e.as<FloatConst>(); f && std::signbit(f->value)) return 7;
  return 9;
}

std::string float_literal(double v, ScalarType t) {
  char buf[64];
  if (std::isinf(v))
    return std::string(v < 0 ? "-" : "") + (t == ScalarType::Float32 ? "inf_f32" : "inf_f64");
  if (std::isnan(v)) return t == ScalarType::Float32 ? "nan_f32" : "nan_f64";
  // The shortest decimal that reads back to the same value.
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    const double back = std::strtod(buf, nullptr);
    if (t == ScalarType::Float32 ? static_cast<float>(back) == static_cast<float>(v) : back == v)
      break;
  }
  std::string s(buf);
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  if (t == ScalarType::Float32) s += "f";
  return s;
}

class Printer : public ExprVisitor {
public:
  std::string out;

  // Binary::make widens an operand to int64 when the other one is int64, so
  // beside an operand that is int64 by itself, an int64 constant prints as a
  // plain literal and a widening cast is left out: `x <= R + 1` reads back to
  // the same tree as `int64(x) <= R + int64(1)`.
  void print_operand(const Expr& operand, const Expr& other, int min_precedence) {
    if (is_int64_by_itself(other)) {
      if (const auto* c = operand.as<Cast>(); c && is_widening_to_int64(c)) {
        print(c->value, min_precedence);
        return;
      }
      implied_int64_ = true;
    }
    print(operand, min_precedence);
    implied_int64_ = false;
  }

  static bool is_widening_to_int64(const Cast* c) {
    return c->type == ScalarType::Int64 && is_integer(c->value.type());
  }
  // Prints as an int64 expression without help from its sibling.
  static bool is_int64_by_itself(const Expr& e) {
    if (e.type() != ScalarType::Int64 || e.as<IntConst>()) return false;
    const auto* c = e.as<Cast>();
    return !(c && is_widening_to_int64(c));
  }

  void print(const Expr& e, int min_precedence) {
    const bool parens = precedence(e) < min_precedence;
    if (parens) out += "(";
    visit(e);
    if (parens) out += ")";
  }

protected:
  void visit_node(const IntConst* n, const Expr&) override {
    const bool implied = implied_int64_;
    implied_int64_ = false;
    if (n->type == ScalarType::Bool) {
      out += n->value ? "true" : "false";
    } else if (n->type == ScalarType::Int32 ||
               (implied && n->type == ScalarType::Int64 && n->value >= INT32_MIN &&
                n->value <= INT32_MAX)) { // a plain literal is read as int32
      out += std::to_string(n->value);
    } else {
      out += std::string(type_name(n->type)) + "(" + std::to_string(n->value) + ")";
    }
  }
  void visit_node(const FloatConst* n, const Expr&) override {
    out += float_literal(n->value, n->type);
  }
  void visit_node(const VarRef* n, const Expr&) override { out += n->name; }
  void visit_node(const ParamRef* n, const Expr&) override { out += n->name; }
  void visit_node(const Cast* n, const Expr&) override {
    out += std::string(type_name(n->type)) + "(";
    print(n->value, 0);
    out += ")";
  }
  void visit_node(const Unary* n, const Expr&) override {
    if (n->op == UnaryOp::Neg || n->op == UnaryOp::Not) {
      out += n->op == UnaryOp::Neg ? "-" : "!";
      print(n->value, 8);
      return;
    }
    out += std::string(unary_op_name(n->op)) + "(";
    print(n->value, 0);
    out += ")";
  }
  void visit_node(const Binary* n, const Expr& self) override {
    if (!is_infix(n->op)) {
      out += std::string(binary_op_name(n->op)) + "(";
      print_operand(n->a, n->b, 0);
      out += ", ";
      print_operand(n->b, n->a, 0);
      out += ")";
      return;
    }
    const int p = precedence(self);
    print_operand(n->a, n->b, p); // left-associative: an equal level needs no parentheses
    out += std::string(" ") + binary_op_name(n->op) + " ";
    print_operand(n->b, n->a, p + 1);
  }
  void visit_node(const Select* n, const Expr&) override {
    out += "select(";
    print(n->cond, 0);
    out += ", ";
    print(n->if_true, 0);
    out += ", ";
    print(n->if_false, 0);
    out += ")";
  }
  void visit_node(const Access* n, const Expr&) override {
    out += n->producer_name() + "(";
    for (std::size_t i = 0; i < n->args.size(); ++i) {
      if (i) out += ", ";
      print(n->args[i], 0);
    }
    out += ")";
  }

private:
  bool implied_int64_ = false;
};

} // namespace

std::string to_string(const Expr& e) {
  if (!e.defined()) return "<undefined>";
  Printer p;
  p.print(e, 0);
  return p.out;
}

} // namespace trapeze::ir
