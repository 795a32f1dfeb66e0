// Lowering a schedule: naive nests, fused overlapped-tiled groups, inlining.
#include "lower/lower_tiled.h"

#include "lower/bounds_simplify.h"
#include "lower/inline_stages.h"
#include "lower/intra_tile_fusion.h"
#include "lower/stage_nest.h"
#include "lower/tile_regions.h"
#include "trapeze/error.h"
#include "trapeze/ir_visitor.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>

namespace trapeze::lower {

using namespace ir;

namespace {

Expr add(const Expr& a, const Expr& b) { return Binary::make(BinaryOp::Add, a, b); }
Expr sub(const Expr& a, const Expr& b) { return Binary::make(BinaryOp::Sub, a, b); }
Expr mul(const Expr& a, const Expr& b) { return Binary::make(BinaryOp::Mul, a, b); }
Expr div_of(const Expr& a, const Expr& b) { return Binary::make(BinaryOp::Div, a, b); }
Expr min_of(const Expr& a, const Expr& b) { return Binary::make(BinaryOp::Min, a, b); }
Expr i64(std::int64_t v) { return Expr(v); }

std::string join(const std::vector<std::string>& items) {
  std::string s;
  for (const std::string& i : items)
    s += (s.empty() ? "" : ", ") + i;
  return s;
}

// The groups in an order where every group comes after the groups it reads;
// among ready groups, the schedule's order.
std::vector<std::size_t> group_order(const Pipeline& p, const Schedule& schedule) {
  std::map<std::string, std::size_t> group_of;
  for (std::size_t g = 0; g < schedule.groups.size(); ++g)
    for (const std::string& name : schedule.groups[g].stages) {
      p.stage(name); // throws for an unknown stage
      if (!group_of.emplace(name, g).second)
        throw Error("stage " + name + " is in two groups of the schedule (" +
                    std::to_string(group_of[name]) + " and " + std::to_string(g) +
                    "); put every stage in exactly one group");
    }
  std::vector<std::set<std::size_t>> needs(schedule.groups.size());
  for (const FunctionPtr& f : p.stages()) {
    const auto it = group_of.find(f->name());
    if (it == group_of.end())
      throw Error(f->describe() + " is in no group of the schedule; add it to one");
    for (const FunctionPtr& consumer : p.consumers(*f)) {
      const std::size_t c = group_of.at(consumer->name());
      if (c != it->second) needs[c].insert(it->second);
    }
  }
  std::vector<std::size_t> order;
  std::vector<bool> done(schedule.groups.size(), false);
  while (order.size() < schedule.groups.size()) {
    bool progress = false;
    for (std::size_t g = 0; g < schedule.groups.size() && !progress; ++g) {
      if (done[g]) continue;
      if (std::all_of(needs[g].begin(), needs[g].end(), [&](std::size_t n) { return done[n]; })) {
        done[g] = progress = true;
        order.push_back(g);
      }
    }
    if (!progress)
      throw Error("the groups of the schedule depend on each other in a cycle; merge or split "
                  "them so that data flows one way between groups");
  }
  return order;
}

class ScheduleLowering {
public:
  ScheduleLowering(const Pipeline& p, const Schedule& schedule)
      : p_(p), schedule_(schedule), prover_(BoundsProver::for_pipeline(p)) {
    for (const ParamInfo& q : p.params())
      param_names_.insert(q.name);
    std::vector<FunctionPtr> inlined;
    for (const FunctionPtr& f : p.stages()) {
      storage_[f->name()] = schedule.storage_of(p, f->name());
      if (storage_[f->name()] != Storage::Inlined) continue;
      if (f->definition().is_reduction())
        throw Error(f->describe() + " cannot be inlined: a reduction has no value at a point " +
                    "until all its updates ran; store it in a scratchpad or a full buffer instead");
      if (p.is_output(*f))
        throw Error(f->describe() + " is an output and cannot be inlined; store it in full");
      inlined.push_back(f);
    }
    inliner_.emplace(inlined, prover_);
  }

  /// Per group of the schedule, the stages intra-tile fusion fused (after lower()).
  const std::vector<std::vector<std::vector<std::string>>>& fused_sets() const { return fused_; }

  Stmt lower() {
    fused_.assign(schedule_.groups.size(), {});
    std::vector<Stmt> groups;
    for (std::size_t g : group_order(p_, schedule_)) {
      const GroupSchedule& group = schedule_.groups[g];
      if (group.stages.size() == 1 && group.tile_sizes.empty() && group.inner_tile_sizes.empty())
        groups.push_back(naive_stage(p_.stage(group.stages[0]), group));
      else
        groups.push_back(tiled_group(group, g));
    }
    return with_buffers(Block::make(std::move(groups)));
  }

private:
  bool inlined(const std::string& name) const { return inliner_->inlines(name); }

  // A full buffer over the domain: outputs, Full stages, and the stages of
  // untiled single-stage groups.
  bool in_full_buffer(const Function& f) const {
    if (inlined(f.name())) return false;
    if (storage_.at(f.name()) == Storage::Full) return true;
    for (const GroupSchedule& g : schedule_.groups)
      if (g.stages.size() == 1 && g.stages[0] == f.name() && g.tile_sizes.empty()) return true;
    return false;
  }

  Stmt naive_stage(const FunctionPtr& f, const GroupSchedule& group) const {
    if (inlined(f->name())) return Comment::make(f->name() + ": inlined into its readers");
    StageNestOptions options;
    options.vectorize = group.vectorize;
    options.inliner = &*inliner_;
    const std::string role = p_.is_output(*f) ? ", output" : "";
    return Block::make({Comment::make(f->name() + ": " + stage_kind_text(*f) + role + ", " +
                                      std::string(type_name(f->type())) + " on " +
                                      box_text(simplified_domain(*f, prover_))),
                        lower_stage(f, options, prover_, param_names_)});
  }

  // An int64 let of `value` in `lets`, named after `base`. A let of the same
  // value already there is reused, so stages with equal regions get the same
  // loop bounds, which intra-tile fusion compares.
  Expr bind(std::vector<std::pair<std::string, Expr>>& lets, const std::string& base,
            const Expr& value) {
    const std::string text = ir::to_string(value);
    for (const auto& [name, bound] : lets)
      if (ir::to_string(bound) == text) return let_ref(name, ScalarType::Int64);
    lets.emplace_back(fresh(base), value);
    return let_ref(lets.back().first, ScalarType::Int64);
  }

  std::string fresh(const std::string& base) {
    std::string name = base;
    for (int n = 2; param_names_.count(name) || used_names_.count(name); ++n)
      name = base + "_" + std::to_string(n);
    used_names_.insert(name);
    return name;
  }

  Stmt tiled_group(const GroupSchedule& group, std::size_t index) {
    const GroupGeometry g = group_geometry(p_, schedule_, index);
    const std::size_t dims = g.common_dims();
    if (!group.inner_tile_sizes.empty() &&
        (group.tile_sizes.empty() || group.inner_tile_sizes.size() != dims))
      throw Error(g.name + " has " + std::to_string(group.inner_tile_sizes.size()) +
                  " inner tile sizes; inner tiles need outer tile sizes and one size per "
                  "dimension of the common space (" +
                  join(g.alignment.common_dims) + ")");
    for (std::int64_t size : group.inner_tile_sizes)
      if (size < 1)
        throw Error(g.name + " has an inner tile size of " + std::to_string(size) +
                    "; tile sizes must be at least 1");
    if (!group.tile_sizes.empty() && group.tile_sizes.size() != dims)
      throw Error(g.name + " has " + std::to_string(group.tile_sizes.size()) +
                  " tile sizes, but its common space (" + join(g.alignment.common_dims) + ") has " +
                  std::to_string(dims) + " dimensions");
    for (std::int64_t size : group.tile_sizes)
      if (size < 1)
        throw Error(g.name + " has a tile size of " + std::to_string(size) +
                    "; tile sizes must be at least 1");
    for (std::size_t s = 0; s < g.stages.size(); ++s) {
      const Function& f = *g.stages[s];
      if (f.definition().is_reduction())
        throw Error(g.name + ": " + f.describe() +
                    " is a reduction; reductions cannot be tiled yet: put it in its own untiled "
                    "group");
      if (g.live_out[s] && storage_.at(f.name()) == Storage::Scratchpad)
        throw Error(g.name + ": " + f.describe() +
                    " is read outside its group (or is an output) and needs a full buffer, not "
                    "a scratchpad");
    }
    const bool tiled = !group.tile_sizes.empty();

    // Tile loops over the live-outs' hull; the tile's bounds as lets.
    std::vector<Interval> space = tile_space(g);
    for (Interval& range : space)
      range = Interval(prover_.simplify(range.lo), prover_.simplify(range.hi));
    std::vector<std::string> loop_vars;
    FirstTile first(dims);
    std::vector<Expr> counts;
    std::vector<std::pair<std::string, Expr>> lets;
    std::vector<Interval> tile;
    for (std::size_t c = 0; c < dims; ++c) {
      const std::string& dim = g.alignment.common_dims[c];
      if (!tiled) {
        tile.push_back(space[c]);
        continue;
      }
      const Expr size = i64(group.tile_sizes[c]);
      loop_vars.push_back(fresh(dim + "_tile"));
      first[c] = Binary::make(BinaryOp::EQ, VarRef::make(loop_vars.back()), Expr(0));
      const Expr rounded_up =
          prover_.simplify(add(sub(space[c].hi, space[c].lo), i64(group.tile_sizes[c])));
      counts.push_back(group.tile_sizes[c] == 1 ? rounded_up
                                                : prover_.simplify(div_of(rounded_up, size)));
      const std::string lo = fresh(dim + "_tile_lo"), hi = fresh(dim + "_tile_hi");
      lets.emplace_back(
          lo, prover_.simplify(
                  add(space[c].lo,
                      mul(Cast::make(ScalarType::Int64, VarRef::make(loop_vars.back())), size))));
      const Expr lo_ref = let_ref(lo, ScalarType::Int64);
      lets.emplace_back(
          hi, prover_.simplify(min_of(add(lo_ref, i64(group.tile_sizes[c] - 1)), space[c].hi)));
      tile.emplace_back(lo_ref, let_ref(hi, ScalarType::Int64));
    }

    // Every stage's region, as lets, from the live-outs back.
    const GroupRegions regions = tile_regions(
        g, group.shape, tile, first, [&](std::size_t s, const std::vector<Interval>& r) {
          std::vector<Interval> refs(dims);
          const Function& f = *g.stages[s];
          if (inlined(f.name())) return r; // no nest: its region only feeds its producers'
          for (std::size_t c = 0; c < dims; ++c) {
            const int k = g.stage_dim[s][c];
            if (k < 0) {
              refs[c] = r[c];
              continue;
            }
            const std::string var = f.vars()[static_cast<std::size_t>(k)];
            refs[c] = Interval(bind(lets, f.name() + "_" + var + "_lo", prover_.simplify(r[c].lo)),
                               bind(lets, f.name() + "_" + var + "_hi", prover_.simplify(r[c].hi)));
          }
          return refs;
        });
    const GroupReach reach = region_reach(g, group.shape);

    // The stages in order, each over its box (lets for the points of sampled stages).
    const auto boxes_of = [&](const GroupRegions& regs,
                              std::vector<std::pair<std::string, Expr>>& into) {
      std::vector<std::vector<Interval>> boxes;
      for (std::size_t s = 0; s < g.stages.size(); ++s) {
        std::vector<Interval> box = stage_box(g, s, regs[s]);
        for (std::size_t c = 0; c < dims; ++c) {
          const int k = g.stage_dim[s][c];
          if (k < 0 || g.scale[s][c] == 1 || inlined(g.stages[s]->name())) continue;
          Interval& range = box[static_cast<std::size_t>(k)];
          const std::string var = g.stages[s]->vars()[static_cast<std::size_t>(k)];
          const std::string base = g.stages[s]->name() + "_" + var;
          range = Interval(bind(into, base + "_first", prover_.simplify(range.lo)),
                           bind(into, base + "_last", prover_.simplify(range.hi)));
        }
        boxes.push_back(std::move(box));
      }
      return boxes;
    };
    std::vector<std::size_t> scratchpads;
    std::vector<std::string> inlined_names;
    // A stage in a full buffer (a live-out, or stored Full) also read inside
    // the group: overlapping tiles would write the same points of the full
    // buffer at once, so each tile computes it in a scratchpad of its own and
    // copies just the tile's part (the tile within its domain) out.
    std::map<std::size_t, std::string> private_copy;
    for (std::size_t s = 0; s < g.stages.size(); ++s) {
      const FunctionPtr& f = g.stages[s];
      if (inlined(f->name()))
        inlined_names.push_back(f->name());
      else if (!g.live_out[s] && storage_.at(f->name()) == Storage::Scratchpad)
        scratchpads.push_back(s);
      else if (tiled && read_in_group(g, s)) // a live-out or a Full stage
        private_copy[s] = fresh(f->name() + "_tile");
    }
    std::vector<std::vector<std::string>> fused_sets;
    const auto nests_of = [&](const std::vector<std::vector<Interval>>& boxes) {
      std::vector<TileNest> nests;
      for (std::size_t s = 0; s < g.stages.size(); ++s) {
        const FunctionPtr& f = g.stages[s];
        if (inlined(f->name())) continue;
        const bool scratch =
            std::find(scratchpads.begin(), scratchpads.end(), s) != scratchpads.end();
        StageNestOptions options;
        options.box = boxes[s];
        if (private_copy.count(s)) options.buffer = private_copy.at(s);
        options.allow_parallel = false;
        options.vectorize = group.vectorize;
        options.inliner = &*inliner_;
        const std::string where = scratch || private_copy.count(s) ? "scratchpad"
                                  : p_.is_output(*f)               ? "output"
                                                                   : "full buffer";
        nests.push_back({f,
                         Comment::make(f->name() + ": " + stage_kind_text(*f) + ", " +
                                       std::string(type_name(f->type())) + " into its " + where +
                                       " over its region of the tile"),
                         lower_stage(f, options, prover_, param_names_)});
      }
      if (group.intra_tile_fusion) return Block::make(fuse_intra_tile(nests, prover_, &fused_sets));
      std::vector<Stmt> stmts;
      for (const TileNest& n : nests) {
        stmts.push_back(n.comment);
        stmts.push_back(n.nest);
      }
      return Block::make(std::move(stmts));
    };
    const std::vector<std::vector<Interval>> boxes = boxes_of(regions, lets);
    const std::vector<std::int64_t> bands = band_sizes(g, group);
    std::vector<Stmt> nests = {
        bands.empty() ? nests_of(boxes)
                      : inner_tiles(g, group, bands, tile, regions, reach, boxes_of, nests_of)};
    for (const auto& [s, buffer] : private_copy) {
      // A live-out lacking a tiled dimension belongs to the first tile along it.
      const Expr owner = owns_tile(g, s, first);
      const Stmt copy = copy_out(g, s, tile, group.vectorize);
      nests.push_back(owner.defined() ? IfThenElse::make(owner, copy) : copy);
    }
    Stmt body = Block::make(std::move(nests));
    std::vector<std::pair<std::size_t, std::string>> buffers;
    for (std::size_t s : scratchpads)
      buffers.emplace_back(s, g.stages[s]->name());
    for (const auto& [s, buffer] : private_copy)
      buffers.emplace_back(s, buffer);
    for (auto it = buffers.rbegin(); it != buffers.rend(); ++it) {
      const std::size_t s = it->first;
      const FunctionPtr& f = g.stages[s];
      std::vector<Expr> origin, extents;
      for (const Interval& range : boxes[s])
        origin.push_back(range.lo);
      for (std::size_t k = 0; k < static_cast<std::size_t>(f->dimensions()); ++k)
        extents.push_back(scratchpad_extent(g, group, s, k, reach));
      body = Allocate::make(it->second, f->name(), f->type(), origin, extents, MemoryScope::Stack,
                            -1, body);
    }
    for (auto it = lets.rbegin(); it != lets.rend(); ++it)
      body = LetStmt::make(it->first, it->second, body);
    const int parallel =
        std::clamp(group.parallel_tile_dims, 0, static_cast<int>(loop_vars.size()));
    for (std::size_t c = loop_vars.size(); c-- > 0;) {
      const bool outer_parallel = c == 0 && parallel > 0;
      body = For::make(loop_vars[c], i64(0), prover_.simplify(sub(counts[c], i64(1))),
                       outer_parallel ? ForKind::Parallel : ForKind::Serial, body,
                       outer_parallel ? parallel : 1);
    }

    std::string sizes;
    for (std::int64_t size : group.tile_sizes)
      sizes += (sizes.empty() ? "" : ", ") + std::to_string(size);
    std::string text = g.name + ": fused, " +
                       (tiled ? "tiles [" + sizes + "] over (" + join(g.alignment.common_dims) +
                                    "), " + tile_shape_name(group.shape) + " shape"
                              : std::string("untiled (one tile)"));
    if (parallel > 0)
      text += ", " + std::to_string(parallel) + " tile loop" + (parallel > 1 ? "s" : "") +
              " collapsed and parallel";
    if (!inlined_names.empty()) text += "; inlined: " + join(inlined_names);
    for (const std::vector<std::string>& set : fused_sets)
      text += "; loops fused: " + join(set);
    fused_[index] = fused_sets;
    return Block::make({Comment::make(text), body});
  }

  static bool read_in_group(const GroupGeometry& g, std::size_t s) {
    return std::any_of(g.edges.begin(), g.edges.end(),
                       [&](const auto& edge) { return edge.first == s; });
  }

  // Copies the tile's own part of a live-out (the tile within its domain) from
  // the tile's scratchpad (the innermost buffer holding it) to its full buffer.
  Stmt copy_out(const GroupGeometry& g, std::size_t s, const std::vector<Interval>& tile,
                bool vectorize) const {
    const FunctionPtr& f = g.stages[s];
    const std::vector<Interval> own = stage_box(g, s, tile);
    std::vector<Expr> point;
    for (const std::string& v : f->vars())
      point.push_back(VarRef::make(v));
    Stmt body = Store::make(f->name(), point, Access::make(f, point));
    for (std::size_t k = own.size(); k-- > 0;) {
      const Interval& range = f->domain()[k];
      const bool inner = k + 1 == own.size();
      body = For::make(f->vars()[k],
                       prover_.simplify(Binary::make(BinaryOp::Max, own[k].lo, range.lo)),
                       prover_.simplify(min_of(own[k].hi, range.hi)),
                       inner && vectorize ? ForKind::Vectorized : ForKind::Serial, body);
    }
    return Block::make({Comment::make(f->name() + ": the tile's part, from its scratchpad to its "
                                                  "full buffer"),
                        body});
  }

  // The sizes of the serial bands a tile runs in: the inner tiles if the
  // schedule gives them; for the rectangle shape, otherwise, bands one point
  // thick along every dimension but the innermost (whole tile there). The
  // rectangle trapezoid of paper 000 §3.2 shifts each stage by its upper
  // margin so that every dependence points backwards, then fuses the stages'
  // point loops (its figure 14): a band of one row of the shifted space runs
  // each stage on the row that the next stages need first, so consumers read
  // rows their producers wrote just before (intra-tile locality). A tile
  // computes the same points as the scalene shape; only the order differs.
  // Keeping the innermost dimension whole keeps the innermost loops long and
  // vectorizable. A dimension that a stage of the group lacks is never split:
  // that stage lies at one position of it, which its consumers read from every
  // band, and its producers' fixed positions need not lie in the first band.
  // A size of 0: the dimension is not split (one band spans the tile).
  // Empty: no bands (the stages run one after another).
  static std::vector<std::int64_t> band_sizes(const GroupGeometry& g, const GroupSchedule& group) {
    const std::size_t dims = g.common_dims();
    std::vector<std::int64_t> sizes = group.inner_tile_sizes;
    if (sizes.empty()) {
      if (group.shape != TileShape::Rectangle || g.stages.size() < 2) return {};
      sizes.assign(dims, 1);
      // The innermost band spans the whole tile.
      if (dims >= 2) sizes[dims - 1] = 0;
    }
    bool split = false;
    for (std::size_t c = 0; c < dims; ++c) {
      const bool lacked = std::any_of(g.stage_dim.begin(), g.stage_dim.end(),
                                      [&](const std::vector<int>& d) { return d[c] < 0; });
      if (lacked || (!group.tile_sizes.empty() && sizes[c] >= group.tile_sizes[c])) sizes[c] = 0;
      split = split || sizes[c] > 0;
    }
    return split ? sizes : std::vector<std::int64_t>{};
  }

  // Multi-level tiling (paper 001 §5.2): inside the overlapped tile, serial
  // parallelogram tiles whose faces lean like the tile's upper faces. In each
  // dimension, inner tile j of stage s covers its region from B_j + above_s to
  // B_j+1 - 1 + above_s (B_j = tile start + j * inner size, above_s the
  // stage's upper margin), the first tile from the region's start and the last
  // to its end. A consumer's band then needs only producer points of this or
  // earlier inner tiles (above_s >= above_consumer + distance), so the
  // tiles run in lexicographic order and reuse the outer tile's scratchpads.
  template <typename BoxesOf, typename NestsOf>
  Stmt inner_tiles(const GroupGeometry& g, const GroupSchedule& group,
                   const std::vector<std::int64_t>& band_sizes, const std::vector<Interval>& tile,
                   const GroupRegions& regions, const GroupReach& reach, const BoxesOf& boxes_of,
                   const NestsOf& nests_of) {
    const std::size_t dims = g.common_dims();
    std::vector<std::pair<std::string, Expr>> lets;
    std::vector<std::string> vars;
    std::vector<Expr> last;
    GroupRegions bands(g.stages.size(), std::vector<Interval>(dims));
    for (std::size_t c = 0; c < dims; ++c) {
      const std::string& dim = g.alignment.common_dims[c];
      const std::int64_t size = band_sizes[c];
      if (size == 0) { // not split
        for (std::size_t s = 0; s < g.stages.size(); ++s)
          bands[s][c] = regions[s][c];
        continue;
      }
      vars.push_back(fresh(dim + "_inner"));
      last.push_back(prover_.simplify(
          size == 1 ? sub(tile[c].hi, tile[c].lo)
                    : sub(div_of(add(sub(tile[c].hi, tile[c].lo), i64(size)), i64(size)), i64(1))));
      const std::string start = fresh(dim + "_inner_lo");
      lets.emplace_back(
          start, prover_.simplify(
                     add(tile[c].lo, mul(Cast::make(ScalarType::Int64, VarRef::make(vars.back())),
                                         i64(size)))));
      const Expr first_tile = Binary::make(BinaryOp::EQ, VarRef::make(vars.back()), Expr(0));
      const Expr last_tile = Binary::make(
          BinaryOp::EQ, Cast::make(ScalarType::Int64, VarRef::make(vars.back())), last.back());
      const Expr b = let_ref(start, ScalarType::Int64);
      for (std::size_t s = 0; s < g.stages.size(); ++s) {
        if (g.stage_dim[s][c] < 0 || inlined(g.stages[s]->name())) {
          bands[s][c] = regions[s][c];
          continue;
        }
        TRAPEZE_ASSERT(!reach[s][c].fixed,
                       "a band along a dimension " + g.stages[s]->name() + " is fixed in");
        const std::int64_t above = reach[s][c].above;
        const Interval& r = regions[s][c];
        const std::string var = g.stages[s]->vars()[static_cast<std::size_t>(g.stage_dim[s][c])];
        const std::string base = g.stages[s]->name() + "_" + var + "_band";
        bands[s][c] = Interval(
            bind(lets, base + "_lo",
                 Select::make(
                     first_tile, r.lo,
                     prover_.simplify(Binary::make(BinaryOp::Max, r.lo, add(b, i64(above)))))),
            bind(lets, base + "_hi",
                 Select::make(last_tile, r.hi,
                              prover_.simplify(min_of(r.hi, add(b, i64(size - 1 + above)))))));
      }
    }
    Stmt body = nests_of(boxes_of(bands, lets));
    for (auto it = lets.rbegin(); it != lets.rend(); ++it)
      body = LetStmt::make(it->first, it->second, body);
    for (std::size_t c = vars.size(); c-- > 0;)
      body = For::make(vars[c], i64(0), last[c], ForKind::Serial, body);
    std::string sizes;
    for (std::int64_t size : band_sizes)
      sizes += (sizes.empty() ? "" : ", ") + (size ? std::to_string(size) : std::string("whole"));
    const std::string what = group.inner_tile_sizes.empty()
                                 ? "rectangle shape: the stages' point loops fused in bands [" +
                                       sizes + "], each stage shifted by its upper margin, in order"
                                 : "inner parallelogram tiles [" + sizes + "], in order";
    return Block::make({Comment::make(what), body});
  }

  // The largest region of the stage in its dimension k over all tiles (never
  // more than its domain); the innermost one padded to whole 64-byte lines.
  Expr scratchpad_extent(const GroupGeometry& g, const GroupSchedule& group, std::size_t s,
                         std::size_t k, const GroupReach& reach) const {
    const Function& f = *g.stages[s];
    const Interval& range = f.domain()[k];
    Expr extent = add(sub(range.hi, range.lo), i64(1));
    if (!group.tile_sizes.empty()) {
      std::size_t c = 0;
      while (g.stage_dim[s][c] != static_cast<int>(k))
        ++c;
      // At most `span` common positions, of which every scale-th is a point.
      if (const auto span = reach[s][c].span(group.tile_sizes[c]))
        extent = min_of(i64(std::max<std::int64_t>(*span - 1, 0) / g.scale[s][c] + 1), extent);
    }
    extent = prover_.simplify(extent);
    if (k + 1 == static_cast<std::size_t>(f.dimensions()) && group.vectorize) {
      const std::int64_t lanes = std::max<std::int64_t>(1, 64 / byte_size(f.type()));
      extent = prover_.simplify(mul(div_of(add(extent, i64(lanes - 1)), i64(lanes)), i64(lanes)));
    }
    return extent;
  }

  // Buffers, innermost first: heap buffers of the intermediate stages kept in
  // full, then the outputs, then the inputs (outermost, in ABI order).
  Stmt with_buffers(Stmt body) const {
    const auto& all = p_.stages();
    for (auto it = all.rbegin(); it != all.rend(); ++it) {
      const FunctionPtr& f = *it;
      if (p_.is_output(*f) || !in_full_buffer(*f)) continue;
      body = Allocate::make(f->name(), f->name(), f->type(), origin_of(f->domain()),
                            extents_of(f->domain()), MemoryScope::Heap, -1, body);
    }
    for (std::size_t k = p_.outputs().size(); k-- > 0;) {
      const FunctionPtr& f = p_.outputs()[k];
      body =
          Allocate::make(f->name(), f->name(), f->type(), origin_of(f->domain()),
                         extents_of(f->domain()), MemoryScope::Output, static_cast<int>(k), body);
    }
    for (std::size_t k = p_.inputs().size(); k-- > 0;) {
      const InputImagePtr& in = p_.inputs()[k];
      std::vector<Expr> origin(in->extents().size(), Expr(std::int64_t{0}));
      std::vector<Expr> extents;
      for (const Expr& e : in->extents())
        extents.push_back(prover_.simplify(e));
      body = Allocate::make(in->name(), in->name(), in->type(), origin, extents, MemoryScope::Input,
                            static_cast<int>(k), body);
    }
    return body;
  }

  std::vector<Expr> extents_of(const std::vector<Interval>& box) const {
    std::vector<Expr> out;
    for (const Interval& range : box)
      out.push_back(prover_.simplify(add(sub(range.hi, range.lo), i64(1))));
    return out;
  }

  std::vector<Expr> origin_of(const std::vector<Interval>& box) const {
    std::vector<Expr> out;
    for (const Interval& range : box)
      out.push_back(prover_.simplify(range.lo));
    return out;
  }

  const Pipeline& p_;
  const Schedule& schedule_;
  const BoundsProver prover_;
  std::set<std::string> param_names_;
  std::set<std::string> used_names_;
  std::map<std::string, Storage> storage_;
  std::optional<StageInliner> inliner_;
  std::vector<std::vector<std::vector<std::string>>> fused_;
};

} // namespace

Stmt lower_schedule(const Pipeline& p, const Schedule& schedule,
                    std::vector<std::vector<std::vector<std::string>>>* fused) {
  ScheduleLowering lowering(p, schedule);
  Stmt body = lowering.lower();
  if (fused) *fused = lowering.fused_sets();
  return body;
}

} // namespace trapeze::lower
