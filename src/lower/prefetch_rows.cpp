// prefetch_rows: the rows of a group's live-ins that each nest of a tile is
// about to load, fetched ahead of time (GroupSchedule::prefetch; passes.h).
//
// A tile reads its live-ins in short runs, one per row of its region, each
// starting in another page; the hardware's prefetchers pick such a stream up
// late, and Harris' gradients waited on the image's next row at every row
// of a 480-column tile (docs/performance.md, "Prefetching a tile's next
// rows"). So at the start of each iteration of a row loop (the loop around a
// nest's innermost loops), the rows that iteration `ahead` loads first are
// fetched, a cache line at a time, over the first `row_start_bytes` of the
// columns the innermost loops will read there.
#include "lower/passes.h"

#include "analysis/affine.h"
#include "ir/ir_operators.h"
#include "trapeze/ir_visitor.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace trapeze::lower {

using namespace ir;

namespace {

// The bytes one prefetch brings in: x86's and Arm's cache line.
constexpr std::int64_t line_bytes = 64;

// How much of each row is fetched ahead, from where the innermost loops
// start reading it: the hardware's stream prefetcher catches up within a
// run this long, and fetching the rest of a longer row as well is a burst
// that holds the core's line-fill buffers while the row's own loads wait.
// On an Intel Emerald Rapids guest, tiles' 2 KiB rows (unsharp, Harris)
// ran 1.27-1.36x slower without their prefetches (unsharp's 1.2x with only
// their first 1 KiB fetched), while pyramid_blend's strips of 15 KiB rows ran
// 0.955 of the time fetching 2 KiB of each row ahead rather than all of it
// (docs/performance.md, "Prefetching the start of a row").
constexpr std::int64_t row_start_bytes = 2048;

bool has_loop(const Stmt& s) {
  struct Find : StmtVisitor {
    bool found = false;
    void visit_node(const For*, const Stmt&) override { found = true; }
  } find;
  find.visit(s);
  return find.found;
}

// The innermost loops among a row loop's statements (its body, or the
// statements of its block); the others are left alone.
std::vector<const For*> innermost_loops(const Stmt& body) {
  std::vector<const For*> loops;
  const auto consider = [&](const Stmt& s) {
    if (const auto* f = s.as<For>(); f && !is_parallel(f->kind) && !has_loop(f->body))
      loops.push_back(f);
  };
  if (const auto* block = body.as<Block>()) {
    for (const Stmt& s : block->stmts)
      consider(s);
  } else {
    consider(body);
  }
  return loops;
}

// The reads of the prefetched live-ins that every iteration of a loop's body
// makes: not under a condition (an arm of a select or an if may read outside
// the buffer where it is not taken), each node once.
std::vector<const Access*> unconditional_reads(const Stmt& body,
                                               const std::map<std::string, int>& live_ins) {
  struct Collect : StmtVisitor {
    const std::map<std::string, int>& live_ins;
    std::vector<const Access*> reads;
    std::set<const ExprNode*> seen;
    explicit Collect(const std::map<std::string, int>& l) : live_ins(l) {}
    void walk(const Expr& e) {
      if (!e.defined() || !seen.insert(e.get()).second) return;
      if (const auto* s = e.as<Select>()) return walk(s->cond);
      if (const auto* a = e.as<Access>(); a && live_ins.count(a->producer_name()))
        reads.push_back(a);
      for (const Expr& operand : operands(e))
        walk(operand);
    }
    void visit_expr(const Expr& e) override { walk(e); }
    void visit_node(const IfThenElse* n, const Stmt&) override { walk(n->cond); }
  } collect(live_ins);
  collect.visit(body);
  return collect.reads;
}

// One read that a row loop's iteration can fetch ahead: its indices affine,
// the innermost loop's variable in the last one only, the row loop's in
// exactly one other (`row_dim`).
struct RowRead {
  const Access* access = nullptr;
  std::vector<analysis::AffineIndex> forms;
  std::size_t row_dim = 0;
};

std::optional<RowRead> row_read(const Access& a, const For& row_loop, const For& inner,
                                const std::set<std::string>& bound_inside) {
  std::set<std::string> foreign = bound_inside;
  foreign.erase(inner.var);
  RowRead r;
  r.access = &a;
  std::optional<std::size_t> row_dim;
  for (std::size_t d = 0; d < a.args.size(); ++d) {
    const Expr& index = a.args[d];
    if (refers_to(index, foreign)) return std::nullopt;
    std::optional<analysis::AffineIndex> form = analysis::affine_index(index);
    if (!form) return std::nullopt;
    const bool last = d + 1 == a.args.size();
    if (!last && form->var_coefficient(inner.var) != 0) return std::nullopt;
    if (!last && form->var_coefficient(row_loop.var) != 0) {
      if (row_dim) return std::nullopt;
      row_dim = d;
    }
    r.forms.push_back(std::move(*form));
  }
  // Rows that do not move with the row loop stay in the cache after its
  // first iteration; rows that move down it are not what it streams.
  if (!row_dim || r.forms[*row_dim].var_coefficient(row_loop.var) < 0) return std::nullopt;
  r.row_dim = *row_dim;
  return r;
}

// The reads among `reads` whose rows no earlier iteration loads: of reads
// that differ only in the constant of their row index, those within the
// rows one iteration moves on from the lowest-reaching (a 5-tap stencil down
// the rows: its last row; a 2x down-sampling one: its last two).
std::vector<const RowRead*> leading_reads(const std::vector<RowRead>& reads,
                                          const std::string& row_var) {
  std::map<std::string, std::vector<const RowRead*>> families;
  for (const RowRead& r : reads) {
    std::string key = r.access->producer_name();
    for (std::size_t d = 0; d + 1 < r.forms.size(); ++d) {
      analysis::AffineIndex form = r.forms[d];
      if (d == r.row_dim) form.constant = 0;
      key += "|" + form.str();
    }
    families[key].push_back(&r);
  }
  std::vector<const RowRead*> leading;
  for (const auto& [key, members] : families) {
    std::int64_t last = members.front()->forms[members.front()->row_dim].constant;
    for (const RowRead* r : members)
      last = std::max(last, r->forms[r->row_dim].constant);
    const analysis::AffineIndex& form = members.front()->forms[members.front()->row_dim];
    // Rows a step of the loop moves on: ceil(a / d) of floor((a*x + ...) / d).
    const std::int64_t step = std::max<std::int64_t>(
        1, (form.var_coefficient(row_var) + form.divisor - 1) / form.divisor);
    for (const RowRead* r : members)
      if (r->forms[r->row_dim].constant > last - step * form.divisor) leading.push_back(r);
  }
  return leading;
}

Expr as_i32(const Expr& e) {
  return e.type() == ScalarType::Int32 ? e : Cast::make(ScalarType::Int32, e);
}

// Every name a statement binds or refers to.
std::set<std::string> names_in(const Stmt& s) {
  struct Collect : StmtVisitor {
    std::set<std::string> names;
    void visit_expr(const Expr& e) override {
      for_each_node(e, [&](const Expr& node) {
        if (const auto* v = node.as<VarRef>()) names.insert(v->name);
        if (const auto* q = node.as<ParamRef>()) names.insert(q->name);
      });
    }
  } collect;
  collect.visit(s);
  std::set<std::string> names = bound_names(s);
  names.insert(collect.names.begin(), collect.names.end());
  return names;
}

class RowPrefetcher : public StmtMutator {
public:
  RowPrefetcher(const std::map<std::string, int>& rows_ahead, LoweringState& state)
      : rows_ahead_(rows_ahead), state_(state) {}

protected:
  Stmt mutate_node(const For* n, const Stmt& self) override {
    const Stmt body = mutate(n->body);
    const Stmt loop = body.same_as(n->body) ? self
                                            : For::make(n->var, n->min, n->max, n->kind, body,
                                                        n->collapse, n->schedule);
    if (is_parallel(n->kind)) return loop;
    const std::vector<const For*> inner = innermost_loops(body);
    if (inner.empty()) return loop;
    const std::set<std::string> bound_inside = bound_names(body);
    // Per distance ahead: the prefetches of the live-ins fetched that far.
    std::map<int, std::vector<Stmt>> prefetches;
    std::map<int, std::string> ahead_names;
    std::set<std::string> fetched;
    for (const For* y : inner) {
      // The innermost loop's bounds are read at the iteration ahead: they
      // may follow the row loop (a trapezoid's edge), nothing else inside it.
      if (refers_to(y->min, bound_inside) || refers_to(y->max, bound_inside)) continue;
      std::vector<RowRead> reads;
      for (const Access* a : unconditional_reads(y->body, rows_ahead_))
        if (auto r = row_read(*a, *n, *y, bound_inside)) reads.push_back(std::move(*r));
      if (reads.empty()) continue;
      for (const auto& [distance, group] : by_distance(leading_reads(reads, n->var))) {
        auto [it, fresh] = ahead_names.emplace(distance, "");
        if (fresh) it->second = unused_name(n->var + "_ahead", loop);
        std::vector<Stmt> fetches = fetch_rows(group, *n, *y, it->second, loop);
        prefetches[distance].insert(prefetches[distance].end(), fetches.begin(), fetches.end());
        for (const RowRead* r : group)
          fetched.insert(r->access->producer_name());
      }
    }
    if (prefetches.empty()) return loop;
    std::vector<Stmt> stmts = {
        Comment::make(fmt::format("the rows of {} that the next iterations load first, their "
                                  "first {} bytes fetched ahead (the hardware's prefetchers pick "
                                  "a row up late)",
                                  fmt::join(fetched, ", "), row_start_bytes))};
    for (auto& [distance, fetches] : prefetches) {
      // The iteration `distance` ahead, or the last: its reads lie in their buffers.
      const Expr ahead = as_i32(state_.prover.simplify(
          min_of(add(as_i64(VarRef::make(n->var)), i64(distance)), as_i64(n->max))));
      stmts.push_back(LetStmt::make(ahead_names.at(distance), ahead, Block::make(fetches)));
    }
    stmts.push_back(body);
    return For::make(n->var, n->min, n->max, n->kind, Block::make(std::move(stmts)), n->collapse,
                     n->schedule);
  }

private:
  // A name for a let or loop of lowering's that no name in `s` shadows or
  // is shadowed by (stage loops are named after the stages' variables).
  std::string unused_name(const std::string& base, const Stmt& s) const {
    const std::set<std::string> used = names_in(s);
    std::string name = state_.names.fresh(base);
    while (used.count(name))
      name = state_.names.fresh(base);
    return name;
  }

  std::map<int, std::vector<const RowRead*>>
  by_distance(const std::vector<const RowRead*>& reads) const {
    std::map<int, std::vector<const RowRead*>> out;
    for (const RowRead* r : reads)
      out[rows_ahead_.at(r->access->producer_name())].push_back(r);
    return out;
  }

  // The prefetches of `reads` (of one innermost loop `y`) at the row loop's
  // iteration `ahead`: per row, the cache lines over the columns the loop
  // reads there, if it runs there at all.
  std::vector<Stmt> fetch_rows(const std::vector<const RowRead*>& reads, const For& row_loop,
                               const For& y, const std::string& ahead, const Stmt& loop) const {
    const analysis::BoundsProver& prover = state_.prover;
    const std::vector<std::pair<std::string, Expr>> at_ahead = {
        {row_loop.var, VarRef::make(ahead)}};
    const Expr y_lo = substitute_vars(y.min, at_ahead), y_hi = substitute_vars(y.max, at_ahead);
    struct Row {
      const Access* access;
      std::vector<Expr> index; // the row's indices at the iteration ahead
      Expr lo, hi;             // the columns (int64)
      bool rising;             // read from lo up (else from hi down)
      bool mixed = false;      // read both ways: fetched whole
    };
    std::map<std::string, Row> rows;
    for (const RowRead* r : reads) {
      const Access& a = *r->access;
      std::vector<Expr> index;
      for (std::size_t d = 0; d + 1 < a.args.size(); ++d)
        index.push_back(substitute_vars(a.args[d], at_ahead));
      const Expr column = substitute_vars(a.args.back(), at_ahead);
      const auto column_at = [&](const Expr& yv) {
        return as_i64(substitute_vars(column, {{y.var, as_i32(yv)}}));
      };
      const bool rising = r->forms.back().var_coefficient(y.var) >= 0;
      Expr lo = column_at(rising ? y_lo : y_hi), hi = column_at(rising ? y_hi : y_lo);
      std::string key = a.producer_name();
      for (const Expr& e : index)
        key += "|" + ir::to_string(e);
      auto [it, fresh] = rows.emplace(key, Row{&a, index, lo, hi, rising});
      if (!fresh) {
        it->second.lo = min_of(it->second.lo, lo);
        it->second.hi = max_of(it->second.hi, hi);
        it->second.mixed = it->second.mixed || it->second.rising != rising;
      }
    }
    std::vector<Stmt> out;
    for (auto& [key, row] : rows) {
      const Expr lo = prover.simplify(row.lo), hi = prover.simplify(row.hi);
      const std::int64_t bytes = byte_size(row.access->type);
      const std::int64_t per_line = std::max<std::int64_t>(1, line_bytes / bytes);
      // Lines at lo, lo + per_line, ..., and the one holding hi (read from
      // hi down: at hi, hi - per_line, ..., and the one holding lo); at
      // most the row's first row_start_bytes, unless it is read both ways.
      const std::string line = unused_name(row_loop.var + "_line", loop);
      const Expr step = mul(as_i64(VarRef::make(line)), i64(per_line));
      std::vector<Expr> index = row.index;
      index.push_back(row.rising || row.mixed ? min_of(add(lo, step), hi)
                                              : max_of(sub(hi, step), lo));
      const Expr point = row.access->func ? Access::make(row.access->func, index)
                                          : Access::make(row.access->image, index);
      // (The loop's bound is inclusive: one line more than the span's
      // quotient, for a start inside a line.)
      Expr last = add(floor_div(sub(hi, lo), per_line), i64(1));
      if (!row.mixed) last = min_of(last, i64(row_start_bytes / (per_line * bytes)));
      const Stmt lines =
          For::make(line, i64(0), prover.simplify(last), ForKind::Serial, Prefetch::make(point));
      out.push_back(IfThenElse::make(le(as_i64(y_lo), as_i64(y_hi)), lines));
    }
    return out;
  }

  const std::map<std::string, int>& rows_ahead_;
  LoweringState& state_;
};

} // namespace

void prefetch_rows(GroupState& g, LoweringState& state) {
  const std::map<std::string, int>& rows_ahead = g.plan.schedule.prefetch;
  if (rows_ahead.empty()) return;
  RowPrefetcher prefetcher(rows_ahead, state);
  if (g.fused) {
    for (Stmt& s : *g.fused)
      s = prefetcher.mutate(s);
    return;
  }
  for (TileNest& n : g.nests)
    n.nest = prefetcher.mutate(n.nest);
}

} // namespace trapeze::lower
