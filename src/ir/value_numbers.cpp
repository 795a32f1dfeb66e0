#include "ir/value_numbers.h"

#include "ir/integer_sums.h"

#include <cstring>

namespace trapeze::ir {

int ValueNumbers::number(const Expr& e) {
  const auto known = by_node_.find(e.get());
  if (known != by_node_.end()) return known->second.second;
  // The key: kind, type, the node's own fields, then its operands' numbers.
  std::string key;
  key += static_cast<char>(e->kind);
  key += static_cast<char>(e->type);
  if (const auto* k = e.as<IntConst>()) {
    key += std::to_string(k->value);
  } else if (const auto* f = e.as<FloatConst>()) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &f->value, sizeof bits);
    key += std::to_string(bits);
  } else if (const auto* v = e.as<VarRef>()) {
    key += v->name;
  } else if (const auto* p = e.as<ParamRef>()) {
    key += p->name;
  } else if (const auto* u = e.as<Unary>()) {
    key += static_cast<char>(u->op);
  } else if (const auto* b = e.as<Binary>()) {
    key += static_cast<char>(b->op);
  } else if (const auto* a = e.as<Access>()) {
    // Names are unique among a pipeline's stages and inputs, and a stage
    // never shares a name with an input.
    key += a->producer_name();
  }
  key += '|'; // the fields end here: operands follow
  for (const Expr& operand : operands(e))
    key += "," + std::to_string(number(operand));
  const int n = by_key_.emplace(std::move(key), static_cast<int>(by_key_.size())).first->second;
  by_node_.emplace(e.get(), std::make_pair(e, n));
  return n;
}

// Each node rebuilt over canonical operands (ExprMutator's defaults), an
// integer sum in its sum form, then replaced by the first node of its value.
class Canonicalizer::Rebuilder : public ExprMutator {
protected:
#define TRAPEZE_CANONICAL_NODE(name)                                                               \
  Expr mutate_node(const name* node, const Expr& self) override {                                  \
    const Expr rebuilt = sum_form(ExprMutator::mutate_node(node, self), numbers_);                 \
    return first_.emplace(numbers_.number(rebuilt), rebuilt).first->second;                        \
  }
  TRAPEZE_FOR_EACH_EXPR_NODE(TRAPEZE_CANONICAL_NODE)
#undef TRAPEZE_CANONICAL_NODE

private:
  ValueNumbers numbers_;
  std::unordered_map<int, Expr> first_;
};

Canonicalizer::Canonicalizer() : rebuilder_(std::make_unique<Rebuilder>()) {}
Canonicalizer::~Canonicalizer() = default;

Expr Canonicalizer::canonical(const Expr& e) { return rebuilder_->mutate(e); }

} // namespace trapeze::ir
