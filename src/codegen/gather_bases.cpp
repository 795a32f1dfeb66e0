#include "codegen/gather_bases.h"

#include "trapeze/ir_visitor.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace trapeze::codegen {

using namespace ir;

bool GatherSplit::has_base() const {
  for (std::size_t d = 0; d < part.size(); ++d)
    if (part[d] == Part::Base || addend[d] != 0) return true;
  return false;
}

std::set<std::string> names_bound_in(const lower::For& loop) {
  struct Collector : lower::StmtVisitor {
    std::set<std::string> names;
    void visit_node(const lower::For* n, const lower::Stmt& self) override {
      names.insert(n->var);
      lower::StmtVisitor::visit_node(n, self);
    }
    void visit_node(const lower::LetStmt* n, const lower::Stmt& self) override {
      names.insert(n->name);
      lower::StmtVisitor::visit_node(n, self);
    }
  } collector;
  collector.names.insert(loop.var);
  collector.visit(loop.body);
  return collector.names;
}

std::vector<const Access*> gathering_loads(const lower::Stmt& body) {
  struct Collector : lower::StmtVisitor {
    std::vector<const Access*> loads;
    std::set<const Access*> seen;
    void visit_expr(const Expr& e) override {
      for_each_node(e, [&](const Expr& x) {
        const auto* a = x.as<Access>();
        if (!a || seen.count(a)) return;
        if (std::any_of(a->args.begin(), a->args.end(), reads_memory)) {
          seen.insert(a);
          loads.push_back(a);
        }
      });
    }
  } collector;
  collector.visit(body);
  return collector.loads;
}

std::set<std::string> stored_buffers(const lower::Stmt& body) {
  struct Collector : lower::StmtVisitor {
    std::set<std::string> buffers;
    void visit_node(const lower::Store* n, const lower::Stmt& self) override {
      buffers.insert(n->buffer);
      lower::StmtVisitor::visit_node(n, self);
    }
  } collector;
  collector.visit(body);
  return collector.buffers;
}

namespace {

// Whether `e` names one of `names` (a loop variable or a let of either kind).
bool names_any(const Expr& e, const std::set<std::string>& names) {
  bool found = false;
  for_each_node(e, [&](const Expr& x) {
    if (const auto* v = x.as<VarRef>()) found = found || names.count(v->name) > 0;
    if (const auto* p = x.as<ParamRef>()) found = found || names.count(p->name) > 0;
  });
  return found;
}

// Whether `k` is a constant that may go to a base pointer: a neighbour's
// distance, not one that a stride could multiply past int64.
bool small(const IntConst* k) { return k && k->value >= -(1 << 16) && k->value <= (1 << 16); }

} // namespace

GatherSplit split_gather_address(const Access& load, const std::set<std::string>& varying) {
  GatherSplit split;
  for (const Expr& index : load.args) {
    GatherSplit::Part part = GatherSplit::Part::Offset;
    Expr stem;
    std::int64_t addend = 0;
    // An int32 index widened to int64 (a clamp printed in int32) widens its
    // sum exactly: the index lies in the buffer, so the sum did not wrap.
    const auto* widened = index.as<Cast>();
    const bool widening =
        widened && index.type() == ScalarType::Int64 && widened->value.type() == ScalarType::Int32;
    const auto* b = (widening ? widened->value : index).as<Binary>();
    if (!reads_memory(index) && !names_any(index, varying)) {
      part = GatherSplit::Part::Base;
    } else if (b && (b->op == BinaryOp::Add || b->op == BinaryOp::Sub)) {
      // `stem + k`, `k + stem`, `stem - k`, for a neighbour's small k: the
      // index lies in the buffer (proven, or clamped), so the stem lies
      // within k of it, and the constant times a stride cannot overflow.
      const auto* right = b->b.as<IntConst>();
      const auto* left = b->op == BinaryOp::Add ? b->a.as<IntConst>() : nullptr;
      if (small(right)) {
        part = GatherSplit::Part::Stem;
        stem = b->a;
        addend = b->op == BinaryOp::Add ? right->value : -right->value;
      } else if (small(left)) {
        part = GatherSplit::Part::Stem;
        stem = b->b;
        addend = left->value;
      }
    }
    split.part.push_back(part);
    split.stem.push_back(stem);
    split.addend.push_back(addend);
  }
  return split;
}

} // namespace trapeze::codegen
