// Scope checks of the loop IR: buffers and variables must be bound where used
// (passes.h).
#include "lower/passes.h"

#include "trapeze/ir_visitor.h"

#include <map>
#include <set>

namespace trapeze::lower {

using namespace ir;

namespace {

class ScopeChecker : public StmtVisitor {
protected:
  void visit_expr(const Expr& e) override {
    for_each_node(e, [&](const Expr& n) {
      if (const auto* v = n.as<VarRef>()) {
        TRAPEZE_ASSERT(vars_.count(v->name), "variable '" + v->name + "' is not bound where " +
                                                 ir::to_string(e) + " uses it");
      } else if (const auto* a = n.as<Access>()) {
        const auto it = producers_.find(a->producer_name());
        TRAPEZE_ASSERT(it != producers_.end() && !it->second.empty(),
                       "no buffer holds '" + a->producer_name() + "' where " + ir::to_string(e) +
                           " reads it");
        TRAPEZE_ASSERT(it->second.back() == a->args.size(),
                       "access " + ir::to_string(n) + " has the wrong number of indices");
      }
    });
  }

  void visit_node(const For* n, const Stmt& self) override {
    TRAPEZE_ASSERT(!(outlined_ > 0 && is_parallel(n->kind)),
                   "a parallel loop over '" + n->var + "' inside an outlined statement");
    visit_expr(n->min);
    visit_expr(n->max);
    vars_.insert(n->var);
    visit(n->body);
    vars_.erase(vars_.find(n->var));
    (void)self;
  }
  void visit_node(const LetStmt* n, const Stmt&) override {
    visit_expr(n->value);
    const bool is_var = n->value.type() == ScalarType::Int32;
    if (is_var) vars_.insert(n->name);
    visit(n->body);
    if (is_var) vars_.erase(vars_.find(n->name));
  }
  void visit_node(const Outlined* n, const Stmt&) override {
    ++outlined_;
    visit(n->body);
    --outlined_;
  }
  void visit_node(const Allocate* n, const Stmt&) override {
    TRAPEZE_ASSERT(outlined_ == 0,
                   "buffer '" + n->name + "' allocated inside an outlined statement");
    for (const Expr& e : n->origin)
      visit_expr(e);
    for (const Expr& e : n->extents)
      visit_expr(e);
    if (n->scope == MemoryScope::Reuse && n->memory.empty()) {
      const auto it = per_thread_.find(n->name);
      TRAPEZE_ASSERT(it != per_thread_.end() && !it->second.empty() &&
                         it->second.back() == extents_text(n->extents),
                     "buffer '" + n->name + "' reuses no per-thread buffer of its extents");
    }
    if (n->scope == MemoryScope::Reuse && !n->memory.empty()) {
      const auto it = per_thread_.find(n->memory);
      TRAPEZE_ASSERT(it != per_thread_.end() && !it->second.empty(),
                     "buffer '" + n->name + "' shares the memory of '" + n->memory +
                         "', which is no per-thread buffer around it");
    }
    if (n->scope == MemoryScope::PerThread)
      per_thread_[n->name].push_back(extents_text(n->extents));
    producers_[n->producer].push_back(n->extents.size());
    buffers_[n->name].push_back(n->extents.size());
    visit(n->body);
    producers_[n->producer].pop_back();
    buffers_[n->name].pop_back();
    if (n->scope == MemoryScope::PerThread) per_thread_[n->name].pop_back();
  }

  static std::string extents_text(const std::vector<Expr>& extents) {
    std::string s;
    for (const Expr& e : extents)
      s += ir::to_string(e) + ";";
    return s;
  }
  void visit_node(const Store* n, const Stmt&) override {
    const auto it = buffers_.find(n->buffer);
    TRAPEZE_ASSERT(it != buffers_.end() && !it->second.empty(),
                   "store to '" + n->buffer + "' outside its allocation");
    TRAPEZE_ASSERT(it->second.back() == n->index.size(),
                   "store to '" + n->buffer + "' has the wrong number of indices");
    StmtVisitor::visit_node(n, Stmt());
  }
  void visit_node(const Produce* n, const Stmt&) override {
    TRAPEZE_ASSERT(false, "a Produce of " + n->stage->describe() + " is left after lowering");
  }

private:
  std::multiset<std::string> vars_;
  std::map<std::string, std::vector<std::size_t>> producers_, buffers_;
  std::map<std::string, std::vector<std::string>> per_thread_; ///< extents of PerThread buffers
  int outlined_ = 0; ///< Outlined statements around the one visited
};

} // namespace

Stmt validate(const Stmt& s, const LoweringState&) {
  ScopeChecker checker;
  checker.visit(s);
  return s;
}

} // namespace trapeze::lower
