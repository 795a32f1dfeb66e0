// Splitting stages with cases into the boxes where one case holds (passes.h).
#include "ir/ir_operators.h"
#include "lower/passes.h"
#include "trapeze/ir_visitor.h"

#include <optional>

namespace trapeze::lower {

using namespace ir;

namespace {

// `e` with every integer min and max that the prover orders replaced by the
// side it picks: a clamped index of a boundary condition, min(max(y - 31, 0),
// C - 1), is y - 31 in the interior piece and 0 in the piece where y < 31, a
// direct or a constant read the C++ compiler vectorizes.
class ResolveMinMax : public ExprMutator {
public:
  explicit ResolveMinMax(const analysis::BoundsProver& prover) : prover_(prover) {}

protected:
  Expr mutate_node(const Binary* n, const Expr& self) override {
    const Expr e = ExprMutator::mutate_node(n, self);
    const auto* b = e.as<Binary>();
    if (!b || (b->op != BinaryOp::Min && b->op != BinaryOp::Max) ||
        !(b->type == ScalarType::Int32 || b->type == ScalarType::Int64))
      return e;
    const bool is_min = b->op == BinaryOp::Min;
    if (prover_.prove_le(b->a, b->b)) return is_min ? b->a : b->b;
    if (prover_.prove_le(b->b, b->a)) return is_min ? b->b : b->a;
    return e;
  }

private:
  const analysis::BoundsProver& prover_;
};

// A case still possible in the piece being split: its index, and the test of
// its box along the dimensions where its boundaries could not be ordered.
struct LiveCase {
  std::size_t index;
  Expr box_test;
};

// One Produce with cases, split dimension by dimension. Along a dimension, the
// live cases' boundaries (start = box.lo, stop = max(box.hi + 1, box.lo)) are
// ordered once among themselves with the prover: they are expressions of the
// parameters, so their order holds for every tile. Each is then clamped into
// the box being split, min(max(cut, lo), hi + 1), which keeps the order (the
// clamp is monotone), so the pieces between consecutive cuts tile the box
// exactly, whatever the tile. A case whose boundaries cannot be ordered with
// the others keeps its box test along that dimension, lazily in front of its
// value (which may read out of bounds outside its box).
class CasePartition {
public:
  CasePartition(const Produce& p, const analysis::BoundsProver& prover) : p_(p), prover_(prover) {
    for (const ProduceCase& c : p.cases) {
      std::vector<Interval> box;
      for (const Interval& range : c.box)
        box.emplace_back(prover.simplify(range.lo), prover.simplify(range.hi));
      boxes_.push_back(std::move(box));
    }
  }

  std::vector<Stmt> run() {
    std::vector<LiveCase> live;
    for (std::size_t i = 0; i < p_.cases.size(); ++i)
      live.push_back({i, Expr()});
    return split(0, p_.box, live, p_.loops.parallel, {});
  }

private:
  int dims() const { return p_.stage->dimensions(); }
  Expr var(int d) const { return VarRef::make(p_.stage->vars()[static_cast<std::size_t>(d)]); }

  // The value at a point of a piece where `live` may hold, in order.
  Expr chain(const std::vector<LiveCase>& live) const {
    Expr value = p_.otherwise;
    for (auto it = live.rbegin(); it != live.rend(); ++it) {
      const ProduceCase& c = p_.cases[it->index];
      Expr inside = c.residual.defined() ? Select::make(c.residual, c.value, value) : c.value;
      // The box test only reads coordinates: code generation keeps it lazy.
      value = it->box_test.defined() ? Select::make(it->box_test, inside, value) : inside;
    }
    return value;
  }

  // `known`: what the pieces around this one say of its variables (each >= 0).
  Stmt leaf(const std::vector<Interval>& box, const std::vector<LiveCase>& live, bool parallel,
            const std::vector<analysis::AffineForm>& known) const {
    ProduceLoops loops = p_.loops;
    loops.parallel = parallel;
    Expr value = chain(live);
    if (!known.empty()) value = ResolveMinMax(prover_.with_facts(known)).mutate(value);
    return Produce::make(p_.stage, p_.buffer, box, {}, value, std::nullopt, loops);
  }

  bool equal(const Expr& a, const Expr& b) const {
    return prover_.prove_le(a, b) && prover_.prove_le(b, a);
  }

  // Inserts `cut` into the sorted `cuts` where its place is proven, at or
  // after position `from` (cut >= cuts[from - 1] is known); returns its
  // position, or nullopt if it cannot be placed.
  std::optional<std::size_t> insert_cut(std::vector<Expr>& cuts, const Expr& cut,
                                        std::size_t from = 0) const {
    for (std::size_t at = 0; at < cuts.size(); ++at)
      if (equal(cuts[at], cut)) return at;
    for (std::size_t at = from; at <= cuts.size(); ++at) {
      const bool after_previous = at == from || prover_.prove_le(cuts[at - 1], cut);
      const bool before_next = at == cuts.size() || prover_.prove_le(cut, cuts[at]);
      if (after_previous && before_next) {
        cuts.insert(cuts.begin() + static_cast<std::ptrdiff_t>(at), cut);
        return at;
      }
    }
    return std::nullopt;
  }

  std::size_t position(const std::vector<Expr>& cuts, const Expr& cut) const {
    for (std::size_t at = 0; at < cuts.size(); ++at)
      if (equal(cuts[at], cut)) return at + 1; // piece j lies between cut j and cut j+1
    TRAPEZE_ASSERT(false, "a cut disappeared: " + ir::to_string(cut));
  }

  // The statements computing `box` from dimension d on, with `live` possible
  // and the outer dimensions' pieces `known`.
  std::vector<Stmt> split(int d, const std::vector<Interval>& box,
                          const std::vector<LiveCase>& live, bool parallel,
                          const std::vector<analysis::AffineForm>& known) const {
    if (d == dims() || live.empty()) return {leaf(box, live, parallel, known)};
    const auto k = static_cast<std::size_t>(d);
    struct Span {
      Expr start, stop;
      bool placed = false;
    };
    std::vector<Expr> cuts;
    std::vector<Span> spans;
    for (const LiveCase& c : live) {
      const Interval& b = boxes_[c.index][k];
      Span s{b.lo, prover_.simplify(max_of(plus(b.hi, 1), b.lo))};
      // stop >= start by construction: it goes after start's place.
      std::vector<Expr> trial = cuts;
      const auto start = insert_cut(trial, s.start);
      if (start && insert_cut(trial, s.stop, *start + 1)) {
        cuts = std::move(trial);
        s.placed = true;
      }
      spans.push_back(std::move(s));
    }
    // The pieces' bounds: the box's start, the clamped cuts, the box's end.
    const Expr end = prover_.simplify(plus(box[k].hi, 1));
    std::vector<Expr> bounds = {box[k].lo};
    for (const Expr& cut : cuts)
      bounds.push_back(prover_.simplify(min_of(max_of(cut, box[k].lo), end)));
    bounds.push_back(end);

    // The box lies in the domain, so a piece that ends at a cut below the
    // domain's start, or starts at one past its end, is empty too.
    const Interval& domain = p_.stage->domain()[k];
    const auto empty = [&](std::size_t j) {
      if (prover_.prove_le(bounds[j + 1], bounds[j])) return true;
      if (j + 1 <= cuts.size() && prover_.prove_le(cuts[j], domain.lo)) return true;
      return j >= 1 && prover_.prove_le(plus(domain.hi, 1), cuts[j - 1]);
    };
    std::vector<Stmt> out;
    for (std::size_t j = 0; j + 1 < bounds.size(); ++j) {
      if (empty(j)) continue;
      std::vector<LiveCase> inside;
      for (std::size_t i = 0; i < live.size(); ++i) {
        const Span& s = spans[i];
        if (!s.placed) {
          const Interval& b = boxes_[live[i].index][k];
          inside.push_back(
              {live[i].index, and_defined(in_range(as_i64(var(d)), b.lo, b.hi), live[i].box_test)});
        } else if (position(cuts, s.start) <= j && j + 1 <= position(cuts, s.stop)) {
          inside.push_back(live[i]);
        }
      }
      const Interval piece(bounds[j], prover_.simplify(plus(bounds[j + 1], -1)));
      std::vector<Interval> narrowed = box;
      narrowed[k] = piece;
      // Whatever the tile, the piece lies between its cuts: cuts[j-1] <= v <= cuts[j] - 1.
      std::vector<analysis::AffineForm> facts = known;
      const auto v = analysis::affine_form(as_i64(var(d)));
      if (j >= 1)
        if (const auto lo = analysis::affine_form(cuts[j - 1])) facts.push_back(*v - *lo);
      if (j < cuts.size())
        if (const auto hi = analysis::affine_form(plus(cuts[j], -1))) facts.push_back(*hi - *v);
      std::vector<Stmt> below = split(d + 1, narrowed, inside, parallel, facts);
      if (below.size() == 1) {
        out.push_back(below.front());
        continue;
      }
      // The inner dimensions split again: a loop over this piece around them.
      const auto span = prover_.constant_difference(piece.lo, piece.hi);
      const bool parallel_here = parallel && (!span || *span > 0);
      narrowed[k] = Interval(var(d), var(d));
      out.push_back(
          For::make(p_.stage->vars()[k], piece.lo, piece.hi,
                    parallel_here ? ForKind::Parallel : ForKind::Serial,
                    Block::make(split(d + 1, narrowed, inside, parallel && !parallel_here, facts)),
                    1, p_.loops.schedule));
    }
    return out;
  }

  const Produce& p_;
  const analysis::BoundsProver& prover_;
  std::vector<std::vector<Interval>> boxes_;
};

} // namespace

void partition_cases(GroupState& g, LoweringState& state) {
  for (TileNest& n : g.nests) {
    const auto* p = n.nest.as<Produce>();
    TRAPEZE_ASSERT(p, "partition_cases runs on Produces");
    TRAPEZE_ASSERT(!p->box.empty(), "an unbounded Produce of " + p->stage->describe());
    if (p->cases.empty()) continue;
    n.nest = Block::make(CasePartition(*p, state.prover).run());
  }
}

} // namespace trapeze::lower
