// Visitor and mutator over expressions, generated from TRAPEZE_FOR_EACH_EXPR_NODE.
#pragma once

#include "trapeze/expr.h"

#include <functional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

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

/// Rebuilds an expression bottom-up. The default of each kind mutates the
/// children and rebuilds the node through its validating factory only if a
/// child changed (otherwise it returns `self`, sharing the subtree).
///
/// A mutator is a function of the node: mutate() rewrites each node once and
/// returns that result wherever the node appears again, in this call or a
/// later one. So a subtree shared by many parents (inlining makes them) is
/// rewritten once and stays shared, and the time is linear in the distinct
/// nodes, not in the size of the tree they spell. A mutator whose result
/// depends on where a node is met must not derive from this class.
class ExprMutator {
public:
  virtual ~ExprMutator() = default;
  Expr mutate(const Expr& e);

protected:
#define TRAPEZE_MUTATE_DECL(name) virtual Expr mutate_node(const name* node, const Expr& self);
  TRAPEZE_FOR_EACH_EXPR_NODE(TRAPEZE_MUTATE_DECL)
#undef TRAPEZE_MUTATE_DECL

private:
  // Each node mutated so far (kept alive, so no new node takes its address)
  // and its result.
  std::unordered_map<const ExprNode*, std::pair<Expr, Expr>> done_;
};

/// The operands of `e` in order (a Select's condition, then its values; an
/// Access's indices); none for a leaf.
std::vector<Expr> operands(const Expr& e);

/// Calls `fn` once on each distinct node of `e` (a node shared by several
/// parents once), parents before children.
void for_each_node(const Expr& e, const std::function<void(const Expr&)>& fn);

/// Replaces every VarRef named in `values` by the given expression.
Expr substitute_vars(const Expr& e, const std::vector<std::pair<std::string, Expr>>& values);

/// True if `e` contains an Access (it reads a stage or an input).
bool reads_memory(const Expr& e);

/// True if `e` has a VarRef or a ParamRef named in `names`.
bool refers_to(const Expr& e, const std::set<std::string>& names);

/// The expression in the text form's syntax, e.g. "(img(c, (x - 2), y) * 0.0625f)".
std::string to_string(const Expr& e);

} // namespace trapeze::ir
