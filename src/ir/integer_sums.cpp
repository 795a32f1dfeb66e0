#include "ir/integer_sums.h"

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <vector>

namespace trapeze::ir {

namespace {

bool summable_type(ScalarType t) { return t == ScalarType::Int32 || t == ScalarType::Int64; }

// Arithmetic modulo 2^64, the wider of the two types' rings: reduced to the
// node's width once, at the end.
using Word = std::uint64_t;

struct Term {
  Expr atom;
  Word coefficient;
};

// A sum's terms and constant, atoms not yet merged.
struct Sum {
  std::vector<Term> terms;
  Word constant = 0;
};

bool is_sum_node(const Expr& e, ScalarType t) {
  if (e.type() != t) return false;
  if (const auto* u = e.as<Unary>()) return u->op == UnaryOp::Neg;
  if (const auto* b = e.as<Binary>())
    return b->op == BinaryOp::Add || b->op == BinaryOp::Sub ||
           (b->op == BinaryOp::Mul && (b->a.as<IntConst>() || b->b.as<IntConst>()));
  return e.as<IntConst>() != nullptr;
}

// Adds `scale` times `e` (of type t) to `sum`, through nested sum nodes.
void collect(const Expr& e, ScalarType t, Word scale, Sum& sum) {
  if (!is_sum_node(e, t)) {
    sum.terms.push_back({e, scale});
    return;
  }
  if (const auto* k = e.as<IntConst>()) {
    sum.constant += scale * static_cast<Word>(k->value);
    return;
  }
  if (const auto* u = e.as<Unary>()) {
    collect(u->value, t, Word{0} - scale, sum);
    return;
  }
  const auto* b = e.as<Binary>();
  switch (b->op) {
  case BinaryOp::Add:
    collect(b->a, t, scale, sum);
    collect(b->b, t, scale, sum);
    return;
  case BinaryOp::Sub:
    collect(b->a, t, scale, sum);
    collect(b->b, t, Word{0} - scale, sum);
    return;
  default: { // a multiplication by a constant
    const bool constant_first = b->a.as<IntConst>() != nullptr;
    const Word k = static_cast<Word>((constant_first ? b->a : b->b).as<IntConst>()->value);
    collect(constant_first ? b->b : b->a, t, scale * k, sum);
    return;
  }
  }
}

// A coordinate, a parameter, or arithmetic of them (through casts, min, max
// and divisions, a few levels deep): what index arithmetic is made of. Sums
// of other values (loads, math) keep the order they were written in.
bool index_atom(const Expr& e, int depth = 4) {
  if (e.as<VarRef>() || e.as<ParamRef>() || e.as<IntConst>()) return true;
  if (depth == 0) return false;
  if (const auto* c = e.as<Cast>()) return is_integer(c->type) && index_atom(c->value, depth - 1);
  if (const auto* u = e.as<Unary>())
    return u->op == UnaryOp::Neg && index_atom(u->value, depth - 1);
  if (const auto* b = e.as<Binary>())
    return !is_comparison(b->op) && b->op != BinaryOp::And && b->op != BinaryOp::Or &&
           b->op != BinaryOp::Pow && index_atom(b->a, depth - 1) && index_atom(b->b, depth - 1);
  return false;
}

// A word as a value of type t: the low bits, sign-extended.
std::int64_t in_type(Word w, ScalarType t) {
  if (t == ScalarType::Int32) return static_cast<std::int32_t>(static_cast<std::uint32_t>(w));
  return static_cast<std::int64_t>(w);
}

// The order of atoms: variables, then parameters, each by name; then the rest
// in the order the sum first holds them.
using AtomKey = std::tuple<int, std::string, std::size_t>;
AtomKey atom_key(const Expr& atom, std::size_t position) {
  if (const auto* v = atom.as<VarRef>()) return {0, v->name, 0};
  if (const auto* p = atom.as<ParamRef>()) return {1, p->name, 0};
  return {2, std::string(), position};
}

} // namespace

Expr sum_form(const Expr& node, ValueNumbers& numbers) {
  const ScalarType t = node.type();
  if (!summable_type(t) || node.as<IntConst>() || !is_sum_node(node, t)) return node;
  Sum sum;
  collect(node, t, 1, sum);
  for (const Term& term : sum.terms)
    if (!index_atom(term.atom)) return node;

  // Equal atoms (by value number) merged, in the key's order.
  struct Merged {
    int number;
    AtomKey key;
    Expr atom;
    std::int64_t coefficient;
  };
  std::vector<Merged> merged;
  for (const Term& term : sum.terms) {
    const int number = numbers.number(term.atom);
    const auto same = std::find_if(merged.begin(), merged.end(),
                                   [&](const Merged& m) { return m.number == number; });
    if (same != merged.end()) {
      same->coefficient = in_type(static_cast<Word>(same->coefficient) + term.coefficient, t);
    } else {
      merged.push_back(
          {number, atom_key(term.atom, merged.size()), term.atom, in_type(term.coefficient, t)});
    }
  }
  std::erase_if(merged, [](const Merged& m) { return m.coefficient == 0; });
  std::stable_sort(merged.begin(), merged.end(), [](const Merged& a, const Merged& b) {
    const bool pa = a.coefficient > 0, pb = b.coefficient > 0;
    return pa != pb ? pa : a.key < b.key;
  });
  const std::int64_t constant = in_type(sum.constant, t);
  const std::int64_t lowest = t == ScalarType::Int32 ? INT32_MIN : INT64_MIN;

  // coefficient * atom, or the atom alone for 1.
  const auto scaled = [&](const Expr& atom, std::int64_t k) {
    return k == 1 ? atom : Binary::make(BinaryOp::Mul, IntConst::make(t, k), atom);
  };
  Expr acc;
  // 3 - x rather than -x + 3.
  const bool constant_first = !merged.empty() && merged.front().coefficient < 0 && constant > 0;
  if (constant_first) acc = IntConst::make(t, constant);
  for (const Merged& m : merged) {
    if (!acc.defined()) {
      acc = m.coefficient < 0 && m.coefficient != lowest
                ? Unary::make(UnaryOp::Neg, scaled(m.atom, -m.coefficient))
                : scaled(m.atom, m.coefficient);
    } else if (m.coefficient < 0 && m.coefficient != lowest) {
      acc = Binary::make(BinaryOp::Sub, acc, scaled(m.atom, -m.coefficient));
    } else {
      acc = Binary::make(BinaryOp::Add, acc, scaled(m.atom, m.coefficient));
    }
  }
  if (!acc.defined()) return IntConst::make(t, constant);
  if (constant_first || constant == 0) return acc;
  if (constant < 0 && constant != lowest)
    return Binary::make(BinaryOp::Sub, acc, IntConst::make(t, -constant));
  return Binary::make(BinaryOp::Add, acc, IntConst::make(t, constant));
}

} // namespace trapeze::ir
