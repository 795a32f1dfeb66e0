// Validating factories, visitor, mutator and printer of the loop IR.
#include "lower/loop_ir.h"

#include "analysis/case_region.h"
#include "ir/release_iteratively.h"
#include "trapeze/dsl.h"
#include "trapeze/ir_visitor.h"

#include <cctype>
#include <functional>

namespace trapeze::lower {

using namespace ir;

const char* for_kind_name(ForKind kind) {
  switch (kind) {
  case ForKind::Serial: return "serial";
  case ForKind::Parallel: return "parallel";
  case ForKind::Vectorized: return "vectorized";
  case ForKind::ParallelVectorized: return "parallel vectorized";
  }
  TRAPEZE_ASSERT(false, "unknown ForKind");
}

bool is_parallel(ForKind kind) {
  return kind == ForKind::Parallel || kind == ForKind::ParallelVectorized;
}
bool is_vectorized(ForKind kind) {
  return kind == ForKind::Vectorized || kind == ForKind::ParallelVectorized;
}

const char* memory_scope_name(MemoryScope scope) {
  switch (scope) {
  case MemoryScope::Input: return "input";
  case MemoryScope::Output: return "output";
  case MemoryScope::Heap: return "heap";
  case MemoryScope::Stack: return "stack";
  case MemoryScope::PerThread: return "per thread";
  case MemoryScope::Reuse: return "reuse";
  }
  TRAPEZE_ASSERT(false, "unknown MemoryScope");
}

namespace {
void check_index_type(const Expr& e, const char* what) {
  TRAPEZE_ASSERT(e.defined(), std::string("undefined ") + what);
  TRAPEZE_ASSERT(is_integer(e.type()) && e.type() != ScalarType::Bool,
                 std::string(what) + " is not an integer: " + ir::to_string(e));
}
} // namespace

Stmt For::make(std::string var, Expr min, Expr max, ForKind kind, Stmt body, int collapse,
               ParallelSchedule schedule) {
  check_index_type(min, "loop minimum");
  check_index_type(max, "loop maximum");
  TRAPEZE_ASSERT(body.defined(), "loop without a body");
  TRAPEZE_ASSERT(collapse >= 1, "collapse count below 1");
  return Stmt(std::make_shared<const For>(std::move(var), std::move(min), std::move(max), kind,
                                          collapse, schedule, std::move(body)));
}

Stmt Block::make(std::vector<Stmt> stmts) {
  std::vector<Stmt> flat;
  for (Stmt& s : stmts) {
    if (!s.defined()) continue;
    if (const auto* b = s.as<Block>()) {
      flat.insert(flat.end(), b->stmts.begin(), b->stmts.end());
    } else {
      flat.push_back(std::move(s));
    }
  }
  if (flat.size() == 1) return flat.front();
  return Stmt(std::make_shared<const Block>(std::move(flat)));
}

Stmt IfThenElse::make(Expr cond, Stmt then_case, Stmt else_case) {
  TRAPEZE_ASSERT(cond.defined() && cond.type() == ScalarType::Bool, "if condition is not bool");
  TRAPEZE_ASSERT(then_case.defined(), "if without a then case");
  return Stmt(std::make_shared<const IfThenElse>(std::move(cond), std::move(then_case),
                                                 std::move(else_case)));
}

// full_buffers nests one Allocate per full buffer, so the statement of a naive
// schedule is as deep as the pipeline is long (large_stack.h). (An object's
// members are not const while its destructor runs.)
Allocate::~Allocate() { ir::release_iteratively(std::move(const_cast<Stmt&>(body))); }

Stmt Allocate::make(std::string name, std::string producer, ScalarType type,
                    std::vector<Expr> origin, std::vector<Expr> extents, MemoryScope scope,
                    int slot, Stmt body, std::string memory) {
  TRAPEZE_ASSERT(!name.empty() && !producer.empty(), "buffer without a name");
  TRAPEZE_ASSERT(!extents.empty() && origin.size() == extents.size(),
                 "buffer '" + name + "': origin and extents differ in length");
  for (const Expr& e : origin)
    check_index_type(e, "buffer origin");
  for (const Expr& e : extents)
    check_index_type(e, "buffer extent");
  const bool caller = scope == MemoryScope::Input || scope == MemoryScope::Output;
  TRAPEZE_ASSERT(caller == (slot >= 0), "buffer '" + name + "': slot does not match its scope");
  TRAPEZE_ASSERT(body.defined(), "allocation without a body");
  TRAPEZE_ASSERT(memory.empty() || scope == MemoryScope::Reuse,
                 "buffer '" + name + "': only a reuse takes another buffer's memory");
  return Stmt(std::make_shared<const Allocate>(std::move(name), std::move(producer), type,
                                               std::move(origin), std::move(extents), scope, slot,
                                               std::move(body), std::move(memory)));
}

Stmt Store::make(std::string buffer, std::vector<Expr> index, Expr value) {
  for (const Expr& e : index)
    check_index_type(e, "store index");
  TRAPEZE_ASSERT(value.defined(), "store of an undefined value");
  return Stmt(std::make_shared<const Store>(std::move(buffer), std::move(index), std::move(value)));
}

Stmt Prefetch::make(Expr access) {
  const auto* a = access.as<Access>();
  TRAPEZE_ASSERT(a, "a prefetch of something other than an access");
  for (const Expr& e : a->args)
    check_index_type(e, "prefetch index");
  return Stmt(std::make_shared<const Prefetch>(std::move(access)));
}

Stmt LetStmt::make(std::string name, Expr value, Stmt body) {
  TRAPEZE_ASSERT(value.defined() && body.defined(), "incomplete let");
  const ScalarType t = value.type();
  TRAPEZE_ASSERT(t == ScalarType::Int32 || t == ScalarType::Int64 || t == ScalarType::Float32 ||
                     t == ScalarType::Float64,
                 "let '" + name + "' of type " + std::string(type_name(t)));
  return Stmt(std::make_shared<const LetStmt>(std::move(name), std::move(value), std::move(body)));
}

Stmt Comment::make(std::string text) {
  return Stmt(std::make_shared<const Comment>(std::move(text)));
}

Stmt Outlined::make(std::string name, Stmt body, int vector_bytes) {
  TRAPEZE_ASSERT(!name.empty() && body.defined(), "an outlined statement without a name or body");
  return Stmt(std::make_shared<const Outlined>(std::move(name), std::move(body), vector_bytes));
}

Stmt Produce::make(ir::FunctionPtr stage, std::string buffer, std::vector<Interval> box,
                   std::vector<ProduceCase> cases, Expr otherwise,
                   std::optional<ir::Reduction> reduction, ProduceLoops loops,
                   std::optional<ProduceParity> parity) {
  TRAPEZE_ASSERT(stage && !buffer.empty(), "a Produce without a stage or a buffer");
  TRAPEZE_ASSERT(box.empty() || static_cast<int>(box.size()) == stage->dimensions(),
                 "a Produce box of the wrong rank for " + stage->describe());
  TRAPEZE_ASSERT(reduction.has_value() == (!otherwise.defined() && cases.empty()),
                 "a Produce is either a reduction or has a value: " + stage->describe());
  for (const ProduceCase& c : cases)
    TRAPEZE_ASSERT(static_cast<int>(c.box.size()) == stage->dimensions() && c.value.defined(),
                   "a malformed case of " + stage->describe());
  TRAPEZE_ASSERT(!parity || (parity->dim >= 0 && parity->dim < stage->dimensions() &&
                             parity->factor >= 2 &&
                             static_cast<std::int64_t>(parity->values.size()) == parity->factor &&
                             cases.empty() && !reduction),
                 "a malformed parity split of " + stage->describe());
  return Stmt(std::make_shared<const Produce>(std::move(stage), std::move(buffer), std::move(box),
                                              std::move(cases), std::move(otherwise),
                                              std::move(reduction), loops, std::move(parity)));
}

Stmt Produce::of_definition(const ir::FunctionPtr& stage, std::string buffer,
                            std::vector<Interval> box, ProduceLoops loops) {
  const Definition& def = stage->definition();
  if (def.is_reduction())
    return make(stage, std::move(buffer), std::move(box), {}, Expr(), def.reduction, loops);
  std::vector<ProduceCase> cases;
  const std::vector<analysis::CaseRegion> regions = analysis::case_regions(*stage);
  for (std::size_t i = 0; i < def.cases.size(); ++i)
    cases.push_back({regions[i].box, regions[i].residual, def.cases[i].value});
  const Expr otherwise = def.otherwise.defined() ? def.otherwise : constant(stage->type(), 0);
  return make(stage, std::move(buffer), std::move(box), std::move(cases), otherwise, std::nullopt,
              loops);
}

Expr let_ref(const std::string& name, ScalarType type) {
  return type == ScalarType::Int32 ? VarRef::make(name) : ParamRef::make(name, type);
}

// ---------------------------------------------------------------- visitor

void StmtVisitor::visit(const Stmt& s) {
  TRAPEZE_ASSERT(s.defined(), "visiting an undefined Stmt");
  switch (s->kind) {
#define TRAPEZE_STMT_DISPATCH(name)                                                                \
  case StmtKind::name: visit_node(static_cast<const name*>(s.get()), s); return;
    TRAPEZE_FOR_EACH_STMT_NODE(TRAPEZE_STMT_DISPATCH)
#undef TRAPEZE_STMT_DISPATCH
  }
}

void StmtVisitor::visit_node(const For* n, const Stmt&) {
  visit_expr(n->min);
  visit_expr(n->max);
  visit(n->body);
}
void StmtVisitor::visit_node(const Block* n, const Stmt&) {
  for (const Stmt& s : n->stmts)
    visit(s);
}
void StmtVisitor::visit_node(const IfThenElse* n, const Stmt&) {
  visit_expr(n->cond);
  visit(n->then_case);
  if (n->else_case.defined()) visit(n->else_case);
}
void StmtVisitor::visit_node(const Allocate* n, const Stmt&) {
  for (const Expr& e : n->origin)
    visit_expr(e);
  for (const Expr& e : n->extents)
    visit_expr(e);
  visit(n->body);
}
void StmtVisitor::visit_node(const Store* n, const Stmt&) {
  for (const Expr& e : n->index)
    visit_expr(e);
  visit_expr(n->value);
}
void StmtVisitor::visit_node(const Prefetch* n, const Stmt&) { visit_expr(n->access); }
void StmtVisitor::visit_node(const LetStmt* n, const Stmt&) {
  visit_expr(n->value);
  visit(n->body);
}
void StmtVisitor::visit_node(const Comment*, const Stmt&) {}
void StmtVisitor::visit_node(const Outlined* n, const Stmt&) { visit(n->body); }
void StmtVisitor::visit_node(const Produce* n, const Stmt&) {
  for (const Interval& range : n->box) {
    visit_expr(range.lo);
    visit_expr(range.hi);
  }
  for (const ProduceCase& c : n->cases) {
    for (const Interval& range : c.box) {
      visit_expr(range.lo);
      visit_expr(range.hi);
    }
    if (c.residual.defined()) visit_expr(c.residual);
    visit_expr(c.value);
  }
  if (n->otherwise.defined()) visit_expr(n->otherwise);
  if (n->parity)
    for (const Expr& v : n->parity->values)
      visit_expr(v);
  if (n->reduction) {
    for (const Interval& range : n->reduction->rdom) {
      visit_expr(range.lo);
      visit_expr(range.hi);
    }
    visit_expr(n->reduction->init);
    for (const ReductionUpdate& u : n->reduction->updates) {
      for (const Expr& t : u.target)
        visit_expr(t);
      visit_expr(u.value);
    }
  }
}

std::set<std::string> bound_names(const Stmt& s) {
  struct Collect : StmtVisitor {
    std::set<std::string> names;
    void visit_node(const For* n, const Stmt& self) override {
      names.insert(n->var);
      StmtVisitor::visit_node(n, self);
    }
    void visit_node(const LetStmt* n, const Stmt& self) override {
      names.insert(n->name);
      StmtVisitor::visit_node(n, self);
    }
  } collect;
  collect.visit(s);
  return collect.names;
}

// ---------------------------------------------------------------- mutator

Stmt StmtMutator::mutate(const Stmt& s) {
  TRAPEZE_ASSERT(s.defined(), "mutating an undefined Stmt");
  switch (s->kind) {
#define TRAPEZE_STMT_DISPATCH(name)                                                                \
  case StmtKind::name: return mutate_node(static_cast<const name*>(s.get()), s);
    TRAPEZE_FOR_EACH_STMT_NODE(TRAPEZE_STMT_DISPATCH)
#undef TRAPEZE_STMT_DISPATCH
  }
  TRAPEZE_ASSERT(false, "unknown statement kind");
}

namespace {
// Mutates each expression; reports whether any changed.
bool mutate_all(std::vector<Expr>& es, const std::function<Expr(const Expr&)>& fn) {
  bool changed = false;
  for (Expr& e : es) {
    Expr m = fn(e);
    changed = changed || !m.same_as(e);
    e = std::move(m);
  }
  return changed;
}
} // namespace

Stmt StmtMutator::mutate_node(const For* n, const Stmt& self) {
  Expr lo = mutate_expr(n->min), hi = mutate_expr(n->max);
  Stmt body = mutate(n->body);
  if (lo.same_as(n->min) && hi.same_as(n->max) && body.same_as(n->body)) return self;
  return For::make(n->var, lo, hi, n->kind, body, n->collapse, n->schedule);
}
Stmt StmtMutator::mutate_node(const Block* n, const Stmt& self) {
  std::vector<Stmt> stmts;
  bool changed = false;
  for (const Stmt& s : n->stmts) {
    stmts.push_back(mutate(s));
    changed = changed || !stmts.back().same_as(s);
  }
  return changed ? Block::make(std::move(stmts)) : self;
}
Stmt StmtMutator::mutate_node(const IfThenElse* n, const Stmt& self) {
  Expr c = mutate_expr(n->cond);
  Stmt t = mutate(n->then_case);
  Stmt e = n->else_case.defined() ? mutate(n->else_case) : Stmt();
  if (c.same_as(n->cond) && t.same_as(n->then_case) && e.same_as(n->else_case)) return self;
  return IfThenElse::make(c, t, e);
}
Stmt StmtMutator::mutate_node(const Allocate* n, const Stmt& self) {
  const auto fn = [this](const Expr& e) { return mutate_expr(e); };
  std::vector<Expr> origin = n->origin, extents = n->extents;
  bool changed = mutate_all(origin, fn);
  changed = mutate_all(extents, fn) || changed;
  Stmt body = mutate(n->body);
  if (!changed && body.same_as(n->body)) return self;
  return Allocate::make(n->name, n->producer, n->type, origin, extents, n->scope, n->slot, body,
                        n->memory);
}
Stmt StmtMutator::mutate_node(const Store* n, const Stmt& self) {
  std::vector<Expr> index = n->index;
  bool changed = mutate_all(index, [this](const Expr& e) { return mutate_expr(e); });
  Expr value = mutate_expr(n->value);
  if (!changed && value.same_as(n->value)) return self;
  return Store::make(n->buffer, index, value);
}
Stmt StmtMutator::mutate_node(const Prefetch* n, const Stmt& self) {
  Expr access = mutate_expr(n->access);
  return access.same_as(n->access) ? self : Prefetch::make(access);
}
Stmt StmtMutator::mutate_node(const LetStmt* n, const Stmt& self) {
  Expr value = mutate_expr(n->value);
  Stmt body = mutate(n->body);
  if (value.same_as(n->value) && body.same_as(n->body)) return self;
  return LetStmt::make(n->name, value, body);
}
Stmt StmtMutator::mutate_node(const Comment*, const Stmt& self) { return self; }
Stmt StmtMutator::mutate_node(const Outlined* n, const Stmt& self) {
  Stmt body = mutate(n->body);
  return body.same_as(n->body) ? self : Outlined::make(n->name, body, n->vector_bytes);
}
Stmt StmtMutator::mutate_node(const Produce* n, const Stmt& self) {
  bool changed = false;
  const auto fn = [&](const Expr& e) {
    if (!e.defined()) return e;
    Expr m = mutate_expr(e);
    changed = changed || !m.same_as(e);
    return m;
  };
  const auto box_of = [&](const std::vector<Interval>& box) {
    std::vector<Interval> out;
    for (const Interval& range : box)
      out.emplace_back(fn(range.lo), fn(range.hi));
    return out;
  };
  std::vector<Interval> box = box_of(n->box);
  std::vector<ProduceCase> cases;
  for (const ProduceCase& c : n->cases)
    cases.push_back({box_of(c.box), fn(c.residual), fn(c.value)});
  const Expr otherwise = fn(n->otherwise);
  std::optional<Reduction> reduction = n->reduction;
  if (reduction) {
    reduction->rdom = box_of(reduction->rdom);
    reduction->init = fn(reduction->init);
    for (ReductionUpdate& u : reduction->updates) {
      for (Expr& t : u.target)
        t = fn(t);
      u.value = fn(u.value);
    }
  }
  std::optional<ProduceParity> parity = n->parity;
  if (parity)
    for (Expr& v : parity->values)
      v = fn(v);
  if (!changed) return self;
  return Produce::make(n->stage, n->buffer, std::move(box), std::move(cases), otherwise,
                       std::move(reduction), n->loops, std::move(parity));
}

// ---------------------------------------------------------------- printer

std::string expr_text(const Expr& e) {
  const std::string s = ir::to_string(e);
  static const std::string tag = "int64(";
  std::string out;
  std::size_t i = 0;
  while (i < s.size()) {
    const bool boundary =
        i == 0 || !(std::isalnum(static_cast<unsigned char>(s[i - 1])) || s[i - 1] == '_');
    if (boundary && s.compare(i, tag.size(), tag) == 0) {
      std::size_t j = i + tag.size();
      const std::size_t digits = j + (j < s.size() && s[j] == '-' ? 1 : 0);
      std::size_t k = digits;
      while (k < s.size() && std::isdigit(static_cast<unsigned char>(s[k])))
        ++k;
      if (k > digits && k < s.size() && s[k] == ')') {
        out += s.substr(j, k - j);
        i = k + 1;
        continue;
      }
    }
    out += s[i++];
  }
  return out;
}

std::string box_text(const std::vector<Interval>& box) {
  std::string s;
  for (std::size_t d = 0; d < box.size(); ++d)
    s += (d ? " x [" : "[") + expr_text(box[d].lo) + ", " + expr_text(box[d].hi) + "]";
  return s;
}

namespace {

std::string list(const std::vector<Expr>& es) {
  std::string s;
  for (std::size_t i = 0; i < es.size(); ++i)
    s += (i ? ", " : "") + expr_text(es[i]);
  return s;
}

class Printer : public StmtVisitor {
public:
  std::string out;

protected:
  void line(const std::string& text) { out += std::string(2 * depth_, ' ') + text + "\n"; }
  void nested(const Stmt& s) {
    ++depth_;
    visit(s);
    --depth_;
  }

  void visit_node(const For* n, const Stmt&) override {
    std::string head = std::string(for_kind_name(n->kind)) + " for " + n->var + " in [" +
                       expr_text(n->min) + ", " + expr_text(n->max) + "]";
    if (n->collapse > 1) head += " collapse(" + std::to_string(n->collapse) + ")";
    // Static is OpenMP's default and the printed IR's: only the others are named.
    if (is_parallel(n->kind) && n->schedule != ParallelSchedule::Static)
      head += std::string(" ") + parallel_schedule_name(n->schedule);
    line(head + ":");
    nested(n->body);
  }
  void visit_node(const IfThenElse* n, const Stmt&) override {
    line("if " + expr_text(n->cond) + ":");
    nested(n->then_case);
    if (n->else_case.defined()) {
      line("else:");
      nested(n->else_case);
    }
  }
  void visit_node(const Allocate* n, const Stmt&) override {
    std::string head = "allocate " + n->name + ": " + std::string(type_name(n->type)) + "[" +
                       list(n->extents) + "] origin (" + list(n->origin) + ") " +
                       memory_scope_name(n->scope);
    if (n->slot >= 0) head += " " + std::to_string(n->slot);
    if (n->producer != n->name) head += " holds " + n->producer;
    if (!n->memory.empty()) head += " in the memory of " + n->memory;
    line(head);
    visit(n->body);
  }
  void visit_node(const Store* n, const Stmt&) override {
    line(n->buffer + "(" + list(n->index) + ") = " + expr_text(n->value));
  }
  void visit_node(const Prefetch* n, const Stmt&) override {
    line("prefetch " + expr_text(n->access));
  }
  void visit_node(const LetStmt* n, const Stmt&) override {
    line("let " + n->name + " = " + expr_text(n->value));
    visit(n->body);
  }
  void visit_node(const Comment* n, const Stmt&) override { line("// " + n->text); }
  void visit_node(const Outlined* n, const Stmt&) override {
    line("outlined " + n->name +
         (n->vector_bytes ? " (vectors of " + std::to_string(n->vector_bytes) + " bytes)" : "") +
         ":");
    nested(n->body);
  }
  void visit_node(const Produce* n, const Stmt&) override {
    std::string head = "produce " + n->stage->name();
    if (n->buffer != n->stage->name()) head += " into " + n->buffer;
    head += n->box.empty() ? " (region not yet bounded)" : " over " + box_text(n->box);
    if (n->loops.parallel) head += " parallel";
    if (n->loops.vectorize) head += " vectorized";
    line(head + ":");
    ++depth_;
    for (const ProduceCase& c : n->cases)
      line("case " + box_text(c.box) +
           (c.residual.defined() ? " if " + expr_text(c.residual) : std::string()) + ": " +
           expr_text(c.value));
    if (n->reduction) {
      std::string rdom;
      for (std::size_t k = 0; k < n->reduction->rvars.size(); ++k)
        rdom += (k ? ", " : "") + n->reduction->rvars[k] + " in [" +
                expr_text(n->reduction->rdom[k].lo) + ", " + expr_text(n->reduction->rdom[k].hi) +
                "]";
      line("init: " + expr_text(n->reduction->init));
      for (const ReductionUpdate& u : n->reduction->updates)
        line("update over " + rdom + ": (" + list(u.target) + ") " + reduce_op_name(u.op) + " " +
             expr_text(u.value));
    } else {
      line((n->cases.empty() ? "value: " : "default: ") + expr_text(n->otherwise));
    }
    if (n->parity) {
      const std::string& v = n->stage->vars()[static_cast<std::size_t>(n->parity->dim)];
      line("by " + std::to_string(n->parity->factor) + " along " + v + " (" + v + " = " +
           std::to_string(n->parity->factor) + " * " + n->parity->coarse + " + r):");
      for (std::size_t r = 0; r < n->parity->values.size(); ++r)
        line("  r = " + std::to_string(r) + ": " + expr_text(n->parity->values[r]));
    }
    --depth_;
  }

private:
  int depth_ = 0;
};

} // namespace

std::string to_string(const Stmt& s) {
  Printer p;
  p.visit(s);
  return p.out;
}

} // namespace trapeze::lower
