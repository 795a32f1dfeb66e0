// Fusing the loop nests of stages inside a tile (paper 001 §5.3; passes.h).
#include "lower/passes.h"

#include "trapeze/ir_visitor.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>

namespace trapeze::lower {

using namespace ir;

namespace {

// The stages and inputs a nest reads (after inlining: what it really loads).
std::set<std::string> reads_of(const Stmt& nest) {
  class Collect : public StmtVisitor {
  public:
    explicit Collect(std::set<std::string>& names) : names_(names) {}

  protected:
    void visit_expr(const Expr& e) override {
      for_each_node(e, [&](const Expr& node) {
        if (const auto* a = node.as<Access>())
          names_.insert(a->func ? a->func->name() : a->image->name());
      });
    }

  private:
    std::set<std::string>& names_;
  };
  std::set<std::string> names;
  Collect(names).visit(nest);
  return names;
}

// The variables of every loop in a statement.
void loop_vars(const Stmt& s, std::set<std::string>& out) {
  class Collect : public StmtVisitor {
  public:
    explicit Collect(std::set<std::string>& vars) : vars_(vars) {}

  protected:
    void visit_node(const For* node, const Stmt& self) override {
      vars_.insert(node->var);
      StmtVisitor::visit_node(node, self);
    }

  private:
    std::set<std::string>& vars_;
  };
  Collect(out).visit(s);
}

// Renames a loop variable in the expressions of a statement.
class RenameVar : public StmtMutator {
public:
  RenameVar(std::string from, std::string to) : from_(std::move(from)), to_(std::move(to)) {}

protected:
  Expr mutate_expr(const Expr& e) override {
    return substitute_vars(e, {{from_, VarRef::make(to_)}});
  }

private:
  std::string from_, to_;
};

bool same_bound(const Expr& a, const Expr& b, const analysis::BoundsProver& prover) {
  if (const auto d = prover.constant_difference(a, b)) return *d == 0;
  return ir::to_string(a) == ir::to_string(b);
}

// The stores at one point of a nest (of one stage or of several fused ones).
bool is_point_body(const Stmt& s) {
  if (s.as<Store>()) return true;
  const auto* block = s.as<Block>();
  return block && std::all_of(block->stmts.begin(), block->stmts.end(),
                              [](const Stmt& t) { return t.as<Store>() != nullptr; });
}

// `a` and `b` as one statement running both at each point (a's part first), or
// nullopt if their structures differ.
std::optional<Stmt> fuse(const Stmt& a, const Stmt& b, const analysis::BoundsProver& prover) {
  if (is_point_body(a) && is_point_body(b)) return Block::make({a, b});
  if (const auto* fa = a.as<For>()) {
    const auto* fb = b.as<For>();
    if (!fb || fa->kind != fb->kind || fa->collapse != fb->collapse ||
        fa->schedule != fb->schedule || !same_bound(fa->min, fb->min, prover) ||
        !same_bound(fa->max, fb->max, prover))
      return std::nullopt;
    Stmt body_b = fb->body;
    if (fa->var != fb->var) {
      std::set<std::string> inner;
      loop_vars(body_b, inner);
      if (inner.count(fa->var)) return std::nullopt; // renaming would capture a loop of b
      body_b = RenameVar(fb->var, fa->var).mutate(body_b);
    }
    const auto body = fuse(fa->body, body_b, prover);
    if (!body) return std::nullopt;
    return For::make(fa->var, fa->min, fa->max, fa->kind, *body, fa->collapse, fa->schedule);
  }
  if (const auto* ba = a.as<Block>()) {
    const auto* bb = b.as<Block>();
    if (!bb || ba->stmts.size() != bb->stmts.size()) return std::nullopt;
    std::vector<Stmt> stmts;
    for (std::size_t k = 0; k < ba->stmts.size(); ++k) {
      const auto piece = fuse(ba->stmts[k], bb->stmts[k], prover);
      if (!piece) return std::nullopt;
      stmts.push_back(*piece);
    }
    return Block::make(std::move(stmts));
  }
  return std::nullopt;
}

// The tile's statements, in order, with nests fused where (paper 001 §5.3)
// (i) the stages read a common producer (a stage or an input), (ii) their
// nests have the same structure: loops of equal bounds, kinds and depth at
// every level, the same case pieces, and a store at the bottom, and (iii) the
// later stage needs (reads, directly or through other nests) none of the
// stages fused so far; the nests between them that it needs move ahead of the
// fused set, unless they need the set themselves. The fused nest runs at the
// place of its first stage and stores every stage at each point, in order.
// Nests with lets (reductions) are not fused. `fused` receives the names of
// each fused set of stages.
std::vector<Stmt> fuse_intra_tile(const std::vector<TileNest>& nests,
                                  const analysis::BoundsProver& prover,
                                  std::vector<std::vector<std::string>>& fused) {
  const std::size_t n = nests.size();
  std::vector<std::set<std::string>> reads;
  for (const TileNest& nest : nests)
    reads.push_back(reads_of(nest.nest));
  // needs[i][j]: nest i reads nest j's stage, directly or through other nests
  // (nests come in an order where producers are first).
  std::vector<std::vector<bool>> needs(n, std::vector<bool>(n, false));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (reads[i].count(nests[j].stage->name()))
        for (std::size_t k = 0; k <= j; ++k)
          needs[i][k] = needs[i][k] || k == j || needs[j][k];

  // The order the nests run in; a fused set runs at its first member's place.
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i)
    order[i] = i;
  std::vector<std::vector<std::size_t>> members(n);
  std::vector<Stmt> fused_nest(n);
  for (std::size_t place = 0; place < order.size(); ++place) {
    const std::size_t first = order[place];
    members[first] = {first};
    fused_nest[first] = nests[first].nest;
    std::set<std::string> producers = reads[first];
    for (std::size_t at = place + 1; at < order.size(); ++at) {
      const std::size_t later = order[at];
      const auto needs_member = [&](std::size_t i) {
        return std::any_of(members[first].begin(), members[first].end(),
                           [&](std::size_t m) { return needs[i][m]; });
      };
      // (iii) It may run at `first`'s place once the nests between that it
      // needs move before `first`; none of those may need the fused set.
      if (needs_member(later)) continue;
      std::vector<std::size_t> moved, stay;
      for (std::size_t k = place + 1; k < at; ++k)
        (needs[later][order[k]] ? moved : stay).push_back(order[k]);
      if (std::any_of(moved.begin(), moved.end(), needs_member)) continue;
      // (i) A common producer with the nests fused so far.
      if (std::none_of(reads[later].begin(), reads[later].end(),
                       [&](const std::string& r) { return producers.count(r) > 0; }))
        continue;
      // (ii) The same loop structure.
      const auto both = fuse(fused_nest[first], nests[later].nest, prover);
      if (!both) continue;
      fused_nest[first] = *both;
      members[first].push_back(later);
      producers.insert(reads[later].begin(), reads[later].end());
      // New order: ..., moved, first, stay, (later gone), ...
      std::vector<std::size_t> reordered(order.begin(), order.begin() + place);
      reordered.insert(reordered.end(), moved.begin(), moved.end());
      reordered.push_back(first);
      reordered.insert(reordered.end(), stay.begin(), stay.end());
      reordered.insert(reordered.end(), order.begin() + at + 1, order.end());
      order = std::move(reordered);
      // The moved nests now run before `first` and stay unfused (their turn
      // as a first member has passed); go on after `first`.
      place += moved.size();
      at = place;
    }
  }

  std::vector<Stmt> out;
  std::vector<bool> emitted(n, false);
  for (std::size_t i : order) {
    if (emitted[i]) continue;
    if (members[i].size() <= 1) {
      out.push_back(nests[i].comment);
      out.push_back(nests[i].nest);
      emitted[i] = true;
      continue;
    }
    std::vector<std::string> names;
    for (std::size_t m : members[i]) {
      out.push_back(nests[m].comment);
      names.push_back(nests[m].stage->name());
      emitted[m] = true;
    }
    out.push_back(Comment::make(fmt::format("{}: one fused nest (intra-tile fusion: common "
                                            "producers, equal loop bounds)",
                                            fmt::join(names, ", "))));
    out.push_back(fused_nest[i]);
    fused.push_back(std::move(names));
  }
  return out;
}

} // namespace

void intra_tile_fusion(GroupState& g, LoweringState& state) {
  if (!g.plan.fused || !g.plan.schedule.intra_tile_fusion) return;
  g.fused = fuse_intra_tile(g.nests, state.prover, g.fused_sets);
  for (const std::vector<std::string>& set : g.fused_sets)
    g.comment += fmt::format("; loops fused: {}", fmt::join(set, ", "));
}

} // namespace trapeze::lower
