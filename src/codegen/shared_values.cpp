#include "codegen/shared_values.h"

#include <unordered_map>
#include <unordered_set>

namespace trapeze::codegen {

using namespace ir;

namespace {

// The operands a printed value is made of: an access's indices are not.
std::vector<Expr> value_operands(const Expr& e) {
  return e.as<Access>() ? std::vector<Expr>{} : operands(e);
}

bool leaf(const Expr& e) {
  return e.as<IntConst>() || e.as<FloatConst>() || e.as<VarRef>() || e.as<ParamRef>();
}

// A leaf, or a cast or negation of one: as cheap to print twice as a name.
bool trivial(const Expr& e) {
  if (leaf(e)) return true;
  if (const auto* c = e.as<Cast>()) return trivial(c->value);
  if (const auto* u = e.as<Unary>()) return u->op == UnaryOp::Neg && trivial(u->value);
  return false;
}

class Finder {
public:
  Finder(ValueNumbers& numbers, const SharedValueRules& rules) : numbers_(numbers), rules_(rules) {}

  std::vector<Expr> find(const Expr& root) {
    count_uses(root);
    mark_always_evaluated(root, always_);
    std::unordered_set<int> visited;
    std::vector<Expr> order;
    collect(root, visited, order);
    return order;
  }

private:
  // How many operands hold each value: a value's own operands are counted
  // once, however often it is held, so that only the outermost shared value
  // of a shared subtree is declared.
  void count_uses(const Expr& e) {
    for (const Expr& o : value_operands(e)) {
      const int n = numbers_.number(o);
      if (rules_.declared(n)) continue;
      if (uses_[n]++ == 0) count_uses(o);
    }
  }

  // The values every evaluation of `e` computes, into `out`: its operands,
  // but of a select printed as a branch, its condition and the values both
  // of its arms compute (computed before the branch, they are computed on
  // either path all the same: the pieces of a stage split by an inlined
  // producer's cases differ in a few reads and share the rest). A branch's
  // set is found once: branches nested in both arms of another would
  // otherwise be walked twice a level.
  void mark_always_evaluated(const Expr& e, std::unordered_set<int>& out) {
    const auto* select = e.as<Select>();
    if (select && rules_.branches(*select)) {
      const int n = numbers_.number(e);
      auto known = branch_always_.find(n);
      if (known == branch_always_.end()) {
        std::unordered_set<int> always, if_true, if_false;
        mark_operand(select->cond, always);
        mark_operand(select->if_true, if_true);
        mark_operand(select->if_false, if_false);
        for (const int m : if_true)
          if (if_false.count(m)) always.insert(m);
        known = branch_always_.emplace(n, std::vector<int>(always.begin(), always.end())).first;
      }
      out.insert(known->second.begin(), known->second.end());
      return;
    }
    for (const Expr& o : value_operands(e))
      mark_operand(o, out);
  }

  void mark_operand(const Expr& o, std::unordered_set<int>& out) {
    const int n = numbers_.number(o);
    if (!rules_.declared(n) && out.insert(n).second) mark_always_evaluated(o, out);
  }

  // Children first, so that each value is declared after those it uses.
  void collect(const Expr& e, std::unordered_set<int>& visited, std::vector<Expr>& order) {
    for (const Expr& o : value_operands(e)) {
      const int n = numbers_.number(o);
      if (rules_.declared(n) || !visited.insert(n).second) continue;
      collect(o, visited, order);
      if (uses_[n] >= 2 && always_.count(n) && !trivial(o) && varies(o)) order.push_back(o);
    }
  }

  // Whether `e` reads memory or a variable: a value of constants and
  // parameters alone is the compiler's to fold or hoist, and a name would
  // only hide it from the reader.
  bool varies(const Expr& e) {
    const int n = numbers_.number(e);
    if (const auto known = varies_.find(n); known != varies_.end()) return known->second;
    bool v = e.as<VarRef>() || e.as<Access>();
    for (const Expr& o : operands(e))
      v = v || varies(o);
    varies_.emplace(n, v);
    return v;
  }

  ValueNumbers& numbers_;
  const SharedValueRules& rules_;
  std::unordered_map<int, int> uses_;
  std::unordered_set<int> always_;
  std::unordered_map<int, std::vector<int>> branch_always_; ///< by a branch's number
  std::unordered_map<int, bool> varies_;
};

} // namespace

std::vector<Expr> shared_values(const Expr& root, ValueNumbers& numbers,
                                const SharedValueRules& rules) {
  return Finder(numbers, rules).find(root);
}

} // namespace trapeze::codegen
