// outline_nests: each nest of a fused group's tile as an Outlined statement
// (passes.h).
#include "lower/passes.h"

#include <fmt/format.h>

#include <algorithm>

namespace trapeze::lower {

namespace {

// The buffers a nest stores to (its stages', named after them), for its name:
// "blurx", or "Ixx_Iyy" for a fused nest.
std::vector<std::string> stores_of(const Stmt& nest) {
  struct Stores : StmtVisitor {
    std::vector<std::string> names;
    void visit_node(const Store* n, const Stmt& self) override {
      if (std::find(names.begin(), names.end(), n->buffer) == names.end())
        names.push_back(n->buffer);
      StmtVisitor::visit_node(n, self);
    }
  } stores;
  stores.visit(nest);
  return stores.names;
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

// The widest vectors the schedule allows the stages a nest stores to: the
// smallest of theirs (0: none given).
int vector_bytes_of(const std::vector<std::string>& stores, const GroupSchedule& schedule) {
  int bytes = 0;
  for (const std::string& stage : stores)
    if (const auto it = schedule.vector_bytes.find(stage); it != schedule.vector_bytes.end())
      bytes = bytes ? std::min(bytes, it->second) : it->second;
  return bytes;
}

Stmt outline(const Stmt& nest, const GroupSchedule& schedule) {
  if (nest.as<Comment>() || !outlinable(nest)) return nest;
  const std::vector<std::string> stores = stores_of(nest);
  if (stores.empty()) return nest;
  return Outlined::make(fmt::format("{}", fmt::join(stores, "_")), nest,
                        vector_bytes_of(stores, schedule));
}

} // namespace

void outline_nests(GroupState& g, LoweringState&) {
  if (!g.plan.fused) return; // a lone stage's loops are a parallel loop of their own
  if (g.fused) {
    for (Stmt& s : *g.fused)
      s = outline(s, g.plan.schedule);
    return;
  }
  for (TileNest& n : g.nests)
    n.nest = outline(n.nest, g.plan.schedule);
}

} // namespace trapeze::lower
