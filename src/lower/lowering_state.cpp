// Assembling a group's parts, and the names and state the passes share.
#include "lower/lowering_state.h"

#include "ir/ir_operators.h"
#include "trapeze/error.h"
#include "trapeze/ir_visitor.h"

namespace trapeze::lower {

namespace {

std::set<std::string> parameter_names(const Pipeline& p) {
  std::set<std::string> names;
  for (const ParamInfo& q : p.params())
    names.insert(q.name);
  return names;
}

std::vector<ir::FunctionPtr> inlined_stages(const plan::Plan& plan) {
  std::vector<ir::FunctionPtr> out;
  for (const ir::FunctionPtr& f : plan.pipeline.stages())
    if (plan.inlined(f->name())) out.push_back(f);
  return out;
}

Stmt wrap(Stmt body, const std::vector<SkeletonLet>& lets, const std::vector<SkeletonLoop>& loops) {
  for (auto it = lets.rbegin(); it != lets.rend(); ++it)
    body = LetStmt::make(it->first, it->second, body);
  for (auto it = loops.rbegin(); it != loops.rend(); ++it)
    body = For::make(it->var, it->min, it->max, it->kind, body, it->collapse, it->schedule);
  return body;
}

} // namespace

Stmt GroupState::assemble() const {
  std::vector<Stmt> stmts;
  if (fused) {
    stmts = *fused;
  } else {
    for (const TileNest& n : nests) {
      stmts.push_back(n.comment);
      stmts.push_back(n.nest);
    }
  }
  std::vector<Stmt> per_tile;
  if (!band_comment.empty()) per_tile.push_back(Comment::make(band_comment));
  per_tile.push_back(wrap(Block::make(std::move(stmts)), band_lets, band_loops));
  per_tile.insert(per_tile.end(), after.begin(), after.end());
  Stmt body = Block::make(std::move(per_tile));
  for (auto it = buffers.rbegin(); it != buffers.rend(); ++it) {
    const ir::Function& f = *plan.stages[it->stage];
    body = Allocate::make(it->name, f.name(), f.type(), it->origin, it->extents, MemoryScope::Stack,
                          -1, body);
  }
  body = wrap(body, lets, tile_loops);
  return comment.empty() ? body : Block::make({Comment::make(comment), body});
}

std::string NameAllocator::fresh(const std::string& base) {
  std::string name = base;
  for (int n = 2; taken_.count(name); ++n)
    name = base + "_" + std::to_string(n);
  taken_.insert(name);
  return name;
}

LoweringState::LoweringState(const plan::Plan& p)
    : plan(p), prover(analysis::BoundsProver::for_pipeline(p.pipeline)),
      param_names(parameter_names(p.pipeline)), names(param_names),
      inliner(inlined_stages(p), prover) {
  for (const plan::GroupPlan& g : p.groups)
    groups.emplace_back(g);
}

std::size_t stage_index(const plan::GroupPlan& group, const ir::Function& stage) {
  for (std::size_t s = 0; s < group.stages.size(); ++s)
    if (group.stages[s].get() == &stage) return s;
  TRAPEZE_ASSERT(false, stage.describe() + " is not in " + group.name);
}

Stmt with_box(const Produce& p, std::vector<Interval> box) {
  return Produce::make(p.stage, p.buffer, std::move(box), p.cases, p.otherwise, p.reduction,
                       p.loops, p.parity);
}

Stmt with_buffer(const Produce& p, std::string buffer) {
  return Produce::make(p.stage, std::move(buffer), p.box, p.cases, p.otherwise, p.reduction,
                       p.loops, p.parity);
}

std::vector<std::vector<Interval>> stage_boxes(const GroupState& g, LoweringState& state,
                                               const plan::GroupRegions& regions,
                                               std::vector<SkeletonLet>& lets) {
  const plan::GroupGeometry& geometry = g.plan.geometry;
  std::vector<std::vector<Interval>> boxes;
  for (std::size_t s = 0; s < geometry.stages.size(); ++s) {
    const ir::Function& f = *geometry.stages[s];
    if (state.plan.inlined(f.name())) {
      boxes.emplace_back();
      continue;
    }
    std::vector<Interval> box = plan::stage_box(geometry, s, regions[s]);
    for (std::size_t c = 0; c < geometry.common_dims(); ++c) {
      const int k = geometry.stage_dim[s][c];
      if (k < 0 || geometry.scale[s][c] == 1) continue;
      Interval& range = box[static_cast<std::size_t>(k)];
      const std::string base = f.name() + "_" + f.vars()[static_cast<std::size_t>(k)];
      range =
          Interval(bind_let(lets, state.names, base + "_first", state.prover.simplify(range.lo)),
                   bind_let(lets, state.names, base + "_last", state.prover.simplify(range.hi)));
    }
    boxes.push_back(std::move(box));
  }
  return boxes;
}

Expr bind_let(std::vector<SkeletonLet>& lets, NameAllocator& names, const std::string& base,
              const Expr& value) {
  const std::string text = ir::to_string(value);
  for (const auto& [name, bound] : lets)
    if (ir::to_string(bound) == text) return let_ref(name, ScalarType::Int64);
  lets.emplace_back(names.fresh(base), value);
  return let_ref(lets.back().first, ScalarType::Int64);
}

} // namespace trapeze::lower
