// Visitor and mutator over expressions, generated from TRAPEZE_FOR_EACH_EXPR_NODE.
#pragma once

#include "trapeze/expr.h"

#include <functional>

namespace trapeze::ir {

/// Walks an expression tree. The default visit of each kind visits its
/// children; override the kinds you care about and call the base to recurse.
class ExprVisitor {
public:
  virtual ~ExprVisitor() = default;
  void visit(const Expr& e);

protected:
#define TRAPEZE_VISIT_DECL(name) virtual void visit_node(const name* node, const Expr& self);
  TRAPEZE_FOR_EACH_EXPR_NODE(TRAPEZE_VISIT_DECL)
#undef TRAPEZE_VISIT_DECL
};

/// Rebuilds an expression tree bottom-up. The default of each kind mutates the
/// children and rebuilds the node through its validating factory only if a
/// child changed (otherwise it returns `self`, sharing the subtree).
class ExprMutator {
public:
  virtual ~ExprMutator() = default;
  Expr mutate(const Expr& e);

protected:
#define TRAPEZE_MUTATE_DECL(name) virtual Expr mutate_node(const name* node, const Expr& self);
  TRAPEZE_FOR_EACH_EXPR_NODE(TRAPEZE_MUTATE_DECL)
#undef TRAPEZE_MUTATE_DECL
};

/// Calls `fn` on every node of `e`, parents before children.
void for_each_node(const Expr& e, const std::function<void(const Expr&)>& fn);

/// Replaces every VarRef named in `values` by the given expression.
Expr substitute_vars(const Expr& e, const std::vector<std::pair<std::string, Expr>>& values);

/// True if `e` contains an Access (it reads a stage or an input).
bool reads_memory(const Expr& e);

/// The expression in the text form's syntax, e.g. "(img(c, (x - 2), y) * 0.0625f)".
std::string to_string(const Expr& e);

} // namespace trapeze::ir
