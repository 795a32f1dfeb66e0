// Value numbering: equal subexpressions get one number, whichever nodes hold
// them. Inlining copies a stage's definition into every read of it, so a
// value is often held by many distinct but equal nodes; code generators use
// the numbers to compute such a value once (codegen/shared_values.h).
#pragma once

#include "trapeze/expr.h"
#include "trapeze/ir_visitor.h"

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace trapeze::ir {

/// Numbers expressions by structure: two expressions get the same number if
/// and only if they have the same kind, type, operator or constant (floats
/// compared bit for bit), name or producer, and operands of equal numbers.
/// Each node is numbered once, so numbering a tree of shared nodes takes
/// time linear in its distinct nodes. The nodes it numbered stay alive with
/// it, so that no later node takes a numbered one's address.
class ValueNumbers {
public:
  int number(const Expr& e);

private:
  std::unordered_map<const ExprNode*, std::pair<Expr, int>> by_node_;
  std::unordered_map<std::string, int> by_key_;
};

/// Equal values as one node (hash-consing): `canonical(e)` is `e` rebuilt so
/// that its equal subexpressions, and those equal to any subexpression of an
/// expression it returned before, are one node; integer sums are first put in
/// their sum form (integer_sums.h), so that x + 3 + 1 and x + 2 + 2 are one. Rewriting an
/// expression whose copies are one node rewrites each once (ExprMutator), which is what keeps a
/// chain of inlined stages from growing with the product of its reads.
class Canonicalizer {
public:
  Canonicalizer();
  ~Canonicalizer();
  Canonicalizer(const Canonicalizer&) = delete;
  Canonicalizer& operator=(const Canonicalizer&) = delete;
  Expr canonical(const Expr& e);

private:
  class Rebuilder;
  std::unique_ptr<Rebuilder> rebuilder_;
};

} // namespace trapeze::ir
