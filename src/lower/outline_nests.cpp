// outline_nests: each nest of a fused group's tile as an Outlined statement
// (passes.h).
#include "lower/passes.h"

#include <fmt/format.h>

#include <algorithm>

namespace trapeze::lower {

namespace {

// The stages a nest stores to, for its name: "blurx", or "Ixx_Iyy" for a
// fused nest.
std::string stores_of(const Stmt& nest) {
  struct Stores : StmtVisitor {
    std::vector<std::string> names;
    void visit_node(const Store* n, const Stmt& self) override {
      if (std::find(names.begin(), names.end(), n->buffer) == names.end())
        names.push_back(n->buffer);
      StmtVisitor::visit_node(n, self);
    }
  } stores;
  stores.visit(nest);
  return fmt::format("{}", fmt::join(stores.names, "_"));
}

// What an Outlined statement may not hold (loop_ir.h): a buffer or a parallel loop.
bool outlinable(const Stmt& nest) {
  struct Check : StmtVisitor {
    bool ok = true;
    void visit_node(const Allocate*, const Stmt&) override { ok = false; }
    void visit_node(const For* n, const Stmt& self) override {
      ok = ok && !is_parallel(n->kind);
      StmtVisitor::visit_node(n, self);
    }
  } check;
  check.visit(nest);
  return check.ok;
}

Stmt outline(const Stmt& nest) {
  if (nest.as<Comment>() || !outlinable(nest)) return nest;
  const std::string name = stores_of(nest);
  return name.empty() ? nest : Outlined::make(name, nest);
}

} // namespace

void outline_nests(GroupState& g, LoweringState&) {
  if (!g.plan.fused) return; // a lone stage's loops are a parallel loop of their own
  if (g.fused) {
    for (Stmt& s : *g.fused)
      s = outline(s);
    return;
  }
  for (TileNest& n : g.nests)
    n.nest = outline(n.nest);
}

} // namespace trapeze::lower
