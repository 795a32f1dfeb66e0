// Alignment and scaling of a group of stages into a common space (PolyMage).
#include "analysis/alignment.h"

#include "trapeze/ir_visitor.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <optional>
#include <unordered_set>

namespace trapeze::analysis {

using namespace ir;

namespace {

std::string quoted(const std::string& name) { return "'" + name + "'"; }

std::string edge_name(const EdgeDependence& e) {
  return "edge " + quoted(e.producer_name()) + " -> " + quoted(e.consumer->name());
}

// Where one stage dimension lies while the mapping is being built.
struct Placement {
  int common = -1;
  Rational scale;
};

class Aligner {
public:
  Aligner(const Pipeline& p, const std::vector<const Function*>& group,
          const std::vector<const EdgeDependence*>& edges) {
    // The group's stages in the pipeline's topological order.
    std::vector<std::pair<std::size_t, const Function*>> ordered;
    for (const Function* f : group) {
      const std::optional<std::size_t> i = p.stage_index(*f);
      TRAPEZE_ASSERT(i.has_value(), "align_and_scale: the group has a stage that is not in the "
                                    "pipeline");
      ordered.emplace_back(*i, f);
    }
    std::sort(ordered.begin(), ordered.end());
    for (const auto& [position, f] : ordered) {
      index_.emplace_back(f, static_cast<int>(stages_.size()));
      stages_.push_back(f);
    }
    std::sort(index_.begin(), index_.end(), [](const auto& a, const auto& b) {
      return std::less<const Function*>()(a.first, b.first);
    });
    TRAPEZE_ASSERT(std::adjacent_find(index_.begin(), index_.end(),
                                      [](const auto& a, const auto& b) {
                                        return a.first == b.first;
                                      }) == index_.end(),
                   "align_and_scale: the group has a stage twice");
    for (const EdgeDependence* e : edges)
      if (e->producer_stage && index_of(e->producer_stage) >= 0 && index_of(e->consumer) >= 0)
        edges_.push_back(e);
    // Consumers in topological order, whatever order the caller's edges came in.
    std::stable_sort(edges_.begin(), edges_.end(),
                     [&](const EdgeDependence* a, const EdgeDependence* b) {
                       return index_of(a->consumer) < index_of(b->consumer);
                     });
    placement_.resize(stages_.size());
    edges_of_stage_.resize(stages_.size());
    this_round_.assign(edges_.size(), true); // the first round looks at every edge
    next_round_.assign(edges_.size(), false);
    for (std::size_t i = 0; i < stages_.size(); ++i)
      placement_[i].resize(static_cast<std::size_t>(stages_[i]->dimensions()));
    for (std::size_t e = 0; e < edges_.size(); ++e) {
      const auto producer = static_cast<std::size_t>(index_of(edges_[e]->producer_stage));
      const auto consumer = static_cast<std::size_t>(index_of(edges_[e]->consumer));
      ends_.push_back({producer, consumer});
      edges_of_stage_[producer].push_back(e);
      edges_of_stage_[consumer].push_back(e);
    }
  }

  GroupAlignment run() {
    GroupAlignment out;
    if (stages_.empty()) {
      out.ok = true;
      return out;
    }
    if (!check_edges() || !check_connected() || !place_all() || !uniform_dependences(out)) {
      out.ok = false;
      out.reason = reason_;
      out.dependences.clear();
      return out;
    }
    out.ok = true;
    out.common_dims = common_names_;
    for (std::size_t i = 0; i < stages_.size(); ++i) {
      StageAlignment& a = out.stages.emplace_back();
      a.stage = stages_[i];
      for (const Placement& pl : placement_[i]) {
        a.common_dim.push_back(pl.common);
        TRAPEZE_ASSERT(pl.scale.is_integer() && pl.scale.num > 0, "scale not normalized");
        a.scale.push_back(pl.scale.num);
      }
    }
    return out;
  }

private:
  std::vector<const Function*> stages_; // topological order
  // Each stage's position in stages_, sorted by pointer: a group has a few
  // stages and is aligned thousands of times by the autoscheduler, so a
  // binary search beats hashing.
  std::vector<std::pair<const Function*, int>> index_;
  std::vector<const EdgeDependence*> edges_;
  // Per edge, the positions of its producer and consumer in stages_.
  struct Ends {
    std::size_t producer, consumer;
  };
  std::vector<Ends> ends_;
  std::vector<std::vector<Placement>> placement_;
  std::vector<std::string> common_names_;
  std::unordered_set<std::string> common_name_set_;
  std::string reason_;
  // The rounds of propagate() (see there): per stage the positions of its
  // edges in edges_, per edge whether it is still to be looked at in this
  // round and in the next, and the position of the edge being looked at
  // (-1 between rounds).
  std::vector<std::vector<std::size_t>> edges_of_stage_;
  std::vector<bool> this_round_, next_round_;
  std::ptrdiff_t current_edge_ = -1;

  int index_of(const Function* f) const {
    const auto it =
        std::lower_bound(index_.begin(), index_.end(), f, [](const auto& entry, const Function* g) {
          return std::less<const Function*>()(entry.first, g);
        });
    return it == index_.end() || it->first != f ? -1 : it->second;
  }

  // A dimension of stage `i` was placed: its edges must be looked at again,
  // later in this round if they come after the current one, else in the next.
  void placed(std::size_t i) {
    for (std::size_t e : edges_of_stage_[i])
      (static_cast<std::ptrdiff_t>(e) > current_edge_ ? this_round_ : next_round_)[e] = true;
  }

  bool fail(std::string why) {
    reason_ = std::move(why);
    return false;
  }

  // Every dependence inside the group must be affine, single-variable, size-independent.
  bool check_edges() {
    // A reduction's reads run over its reduction domain, not its own: it can
    // share the space only as a producer, reading stages outside the group.
    for (const EdgeDependence* e : edges_)
      if (e->consumer->definition().is_reduction())
        return fail(quoted(e->consumer->name()) + " is a reduction that reads " +
                    quoted(e->producer_name()) +
                    " inside the group: its updates run over a reduction domain, not its own "
                    "domain, so the distance has no meaning in a common space");
    for (const EdgeDependence* e : edges_) {
      for (std::size_t k = 0; k < e->dims.size(); ++k) {
        const DimDependence& d = e->dims[k];
        const auto dim = [&] {
          return edge_name(*e) + ": dimension " + std::to_string(k) + " of " +
                 quoted(e->producer_name());
        };
        if (d.kind != DimDependenceKind::Aligned && d.kind != DimDependenceKind::Constant)
          return fail(dim() + " is " + dim_dependence_kind_name(d.kind) + " (" + d.note + ")");
        if (d.parametric)
          return fail(dim() + " is read at " + d.str() +
                      ": the distance depends on a parameter, not a constant");
        if (d.kind == DimDependenceKind::Aligned && d.scale.num < 0)
          return fail(dim() + " is read reversed (" + d.str() + "): no positive scaling aligns it");
      }
    }
    return true;
  }

  bool check_connected() {
    std::vector<std::size_t> parent(stages_.size());
    std::iota(parent.begin(), parent.end(), std::size_t{0});
    const auto find = [&](std::size_t i) {
      while (parent[i] != i)
        i = parent[i] = parent[parent[i]];
      return i;
    };
    for (const Ends& e : ends_)
      parent[find(e.producer)] = find(e.consumer);
    for (std::size_t i = 1; i < stages_.size(); ++i)
      if (find(i) != find(0))
        return fail("stages " + quoted(stages_[0]->name()) + " and " + quoted(stages_[i]->name()) +
                    " are not connected by producer-consumer edges inside the group");
    return true;
  }

  std::string placement_text(const Placement& pl) const {
    return "common dimension " + quoted(common_names_[static_cast<std::size_t>(pl.common)]) +
           " with scale " + pl.scale.str();
  }

  bool uses_common(std::size_t stage, int common) {
    const auto& dims = placement_[stage];
    return std::any_of(dims.begin(), dims.end(),
                       [&](const Placement& pl) { return pl.common == common; });
  }

  // Places one side of an aligned dimension pair from the other; false on a conflict.
  bool propagate_edge(std::size_t edge) {
    const EdgeDependence& e = *edges_[edge];
    const auto [producer, consumer] = ends_[edge];
    for (std::size_t k = 0; k < e.dims.size(); ++k) {
      const DimDependence& d = e.dims[k];
      if (d.kind != DimDependenceKind::Aligned) continue;
      TRAPEZE_ASSERT(d.consumer_dim >= 0, "reduction variable in a multi-stage group");
      Placement& prod = placement_[producer][k];
      Placement& cons = placement_[consumer][static_cast<std::size_t>(d.consumer_dim)];
      // Built only for a failure message: this loop runs in the autoscheduler's inner loop.
      const auto what = [&] {
        return edge_name(e) + ": dimension " + std::to_string(k) + " of " +
               quoted(e.producer_name()) + " (read at " + d.str() + ")";
      };
      if (prod.common >= 0 && cons.common < 0) {
        if (uses_common(consumer, prod.common))
          return fail(what() + " needs " + quoted(e.consumer->name()) + " dimension " +
                      quoted(d.consumer_var) + " in " + placement_text(prod) +
                      ", which another dimension of " + quoted(e.consumer->name()) +
                      " already occupies");
        cons = Placement{prod.common, prod.scale * d.scale};
        placed(consumer);
      } else if (cons.common >= 0 && prod.common < 0) {
        if (uses_common(producer, cons.common))
          return fail(what() + " must lie in common dimension " +
                      quoted(common_names_[static_cast<std::size_t>(cons.common)]) +
                      ", which another dimension of " + quoted(e.producer_name()) +
                      " already occupies");
        prod = Placement{cons.common, cons.scale / d.scale};
        placed(producer);
      } else if (prod.common >= 0 && cons.common >= 0) {
        if (prod.common != cons.common)
          return fail(what() + " lies in " + placement_text(prod) + " but " +
                      quoted(e.consumer->name()) + " dimension " + quoted(d.consumer_var) +
                      " lies in " + placement_text(cons) +
                      ": the dimensions are aligned differently");
        if (prod.scale * d.scale != cons.scale)
          return fail(what() + ": scales disagree: " + quoted(e.producer_name()) + " has scale " +
                      prod.scale.str() + " and " + quoted(e.consumer->name()) + " dimension " +
                      quoted(d.consumer_var) + " has scale " + cons.scale.str() +
                      ", but the access needs " + (cons.scale / d.scale).str());
      }
    }
    return true;
  }

  // Rounds over the edges in order, each edge placing one side from the
  // other, until a round places nothing. An edge is looked at again only
  // when one of its stages got a placement since it last was: otherwise it
  // would place nothing and find no conflict, as every placement is final.
  // So the rounds cost what they place, not rounds x edges (a chain of N
  // stages, aligned from its last stage backwards, takes N rounds), and they
  // place and fail exactly as full rounds would.
  bool propagate() {
    // Edges are looked at in ascending order within a round, and an edge
    // marked for this round always lies after the current one, so one scan
    // forward per round finds them all.
    for (;;) {
      for (std::size_t e = static_cast<std::size_t>(current_edge_ + 1); e < edges_.size(); ++e) {
        if (!this_round_[e]) continue;
        this_round_[e] = false;
        current_edge_ = static_cast<std::ptrdiff_t>(e);
        if (!propagate_edge(e)) return false;
      }
      current_edge_ = -1;
      if (std::none_of(next_round_.begin(), next_round_.end(), [](bool b) { return b; })) break;
      std::swap(this_round_, next_round_);
    }
    return true;
  }

  int new_common(const Function* f, int dim) {
    std::string name = f->vars()[static_cast<std::size_t>(dim)];
    if (common_name_set_.count(name)) name = f->name() + "." + name;
    common_name_set_.insert(name);
    common_names_.push_back(name);
    return static_cast<int>(common_names_.size()) - 1;
  }

  bool place_all() {
    // The reference: most dimensions, latest in topological order (usually the group's output).
    std::size_t ref = 0;
    for (std::size_t i = 0; i < stages_.size(); ++i)
      if (stages_[i]->dimensions() >= stages_[ref]->dimensions()) ref = i;
    for (int k = 0; k < stages_[ref]->dimensions(); ++k)
      placement_[ref][static_cast<std::size_t>(k)] = Placement{new_common(stages_[ref], k), 1};
    placed(ref);
    if (!propagate()) return false;
    // Dimensions no edge aligns (read only at constants) get common dimensions of their own.
    for (std::size_t i = 0; i < stages_.size(); ++i)
      for (int k = 0; k < stages_[i]->dimensions(); ++k)
        if (placement_[i][static_cast<std::size_t>(k)].common < 0) {
          placement_[i][static_cast<std::size_t>(k)] = Placement{new_common(stages_[i], k), 1};
          placed(i);
          if (!propagate()) return false;
        }
    normalize_scales();
    return true;
  }

  // Per common dimension, the smallest factor making every scale a positive integer
  // (one pass over the placements for all common dimensions together).
  void normalize_scales() {
    const std::size_t n = common_names_.size();
    std::vector<std::int64_t> lcm(n, 1), gcd(n, 0);
    const auto common = [](const Placement& pl) { return static_cast<std::size_t>(pl.common); };
    for (auto& dims : placement_)
      for (Placement& pl : dims)
        lcm[common(pl)] = std::lcm(lcm[common(pl)], pl.scale.den);
    for (auto& dims : placement_)
      for (Placement& pl : dims) {
        pl.scale = pl.scale * Rational(lcm[common(pl)]);
        gcd[common(pl)] = std::gcd(gcd[common(pl)], pl.scale.num);
      }
    for (auto& dims : placement_)
      for (Placement& pl : dims)
        if (gcd[common(pl)] > 1) pl.scale = Rational(pl.scale.num / gcd[common(pl)]);
  }

  // The dimension of stages_[stage] placed in common dimension m, or -1.
  int dim_in(std::size_t stage, int m) {
    const auto& dims = placement_[stage];
    for (std::size_t k = 0; k < dims.size(); ++k)
      if (dims[k].common == m) return static_cast<int>(k);
    return -1;
  }

  bool uniform_dependences(GroupAlignment& out) {
    const int n = static_cast<int>(common_names_.size());
    for (std::size_t edge = 0; edge < edges_.size(); ++edge) {
      const EdgeDependence* e = edges_[edge];
      const auto [producer, consumer] = ends_[edge];
      UniformDependence u;
      u.producer = e->producer_stage;
      u.consumer = e->consumer;
      u.lo.assign(static_cast<std::size_t>(n), 0);
      u.hi.assign(static_cast<std::size_t>(n), 0);
      u.broadcast.assign(static_cast<std::size_t>(n), false);
      for (int m = 0; m < n; ++m) {
        const auto mu = static_cast<std::size_t>(m);
        const int kp = dim_in(producer, m);
        const int jc = dim_in(consumer, m);
        if (kp < 0) {
          u.broadcast[mu] = jc >= 0;
          continue;
        }
        const Rational sp = placement_[producer][static_cast<std::size_t>(kp)].scale;
        bool first = true;
        for (const AccessInfo& a : e->accesses) {
          const AffineIndex& f = *a.forms[static_cast<std::size_t>(kp)];
          if (f.vars.empty() && jc >= 0)
            return fail(edge_name(*e) + ": " + ir::to_string(a.access) + " reads dimension " +
                        std::to_string(kp) + " of " + quoted(e->producer_name()) +
                        " at a constant, but that dimension is aligned with " +
                        quoted(e->consumer->name()) + " dimension " +
                        quoted(e->consumer->vars()[static_cast<std::size_t>(jc)]) +
                        ": the distance grows with it");
          // S_P * floor((a*v + c)/d) - S_C*v lies in [S_P*(c - d + 1)/d, S_P*c/d]
          // because S_P*a/d = S_C; the consumer lies at 0 where it has no dimension.
          const Rational hi = sp * Rational(f.constant, f.divisor);
          const Rational lo =
              f.vars.empty() ? hi : sp * Rational(f.constant - f.divisor + 1, f.divisor);
          const std::int64_t l = lo.ceil(), h = hi.floor();
          u.lo[mu] = first ? l : std::min(u.lo[mu], l);
          u.hi[mu] = first ? h : std::max(u.hi[mu], h);
          first = false;
        }
      }
      out.dependences.push_back(std::move(u));
    }
    return true;
  }
};

} // namespace

std::string StageAlignment::str(const std::vector<std::string>& common_names) const {
  std::string out = "(";
  for (std::size_t k = 0; k < stage->vars().size(); ++k)
    out += (k ? ", " : "") + stage->vars()[k];
  out += ") -> (";
  for (std::size_t m = 0; m < common_names.size(); ++m) {
    if (m) out += ", ";
    const auto it = std::find(common_dim.begin(), common_dim.end(), static_cast<int>(m));
    if (it == common_dim.end()) {
      out += "0";
      continue;
    }
    const auto k = static_cast<std::size_t>(it - common_dim.begin());
    if (scale[k] != 1) out += std::to_string(scale[k]) + "*";
    out += stage->vars()[k];
  }
  return out + ")";
}

std::string UniformDependence::str() const {
  std::string out;
  for (std::size_t m = 0; m < lo.size(); ++m) {
    if (m) out += " x ";
    if (broadcast[m]) {
      out += "*";
    } else {
      out += "[" + std::to_string(lo[m]) + ", " + std::to_string(hi[m]) + "]";
    }
  }
  return out;
}

GroupAlignment align_and_scale(const Pipeline& p, const std::vector<const Function*>& group,
                               const std::vector<const EdgeDependence*>& edges) {
  return Aligner(p, group, edges).run();
}

GroupAlignment align_and_scale(const Pipeline& p, const std::vector<const Function*>& group,
                               const std::vector<EdgeDependence>& edges) {
  std::vector<const EdgeDependence*> pointers;
  for (const EdgeDependence& e : edges)
    pointers.push_back(&e);
  return Aligner(p, group, pointers).run();
}

GroupAlignment align_and_scale(const Pipeline& p, const std::vector<const Function*>& group) {
  std::vector<EdgeDependence> edges;
  for (const Function* f : group) {
    std::vector<EdgeDependence> in = consumer_dependences(*f);
    std::move(in.begin(), in.end(), std::back_inserter(edges));
  }
  return align_and_scale(p, group, edges);
}

} // namespace trapeze::analysis
