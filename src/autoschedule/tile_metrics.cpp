// measure_tile: one tile of a candidate group, in points and bytes.
#include "autoschedule/tile_metrics.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace trapeze::autoschedule {

namespace {

double ceil_div(double a, double b) { return std::ceil(a / b); }

// What a tile reads of one producer outside the group.
struct LiveIn {
  const void* producer; // its Function or InputImage
  int bytes;            // per element
  std::vector<double> extents;
  std::vector<double> whole; // the producer's extents
};

// The contiguous bytes a region of `extents` (innermost last) takes in a
// buffer of `whole` extents: its rows, joined with the next dimension's
// while they span the buffer's.
double run_bytes(const std::vector<double>& extents, const std::vector<double>& whole, int bytes) {
  double run = bytes;
  for (std::size_t k = extents.size(); k-- > 0;) {
    run *= extents[k];
    if (extents[k] < whole[k]) break;
  }
  return run;
}

// Points of member m's region along common dimension c in a tile of `tile`
// points of the common space: whole points for a full tile, a fraction on
// average for the mean tile.
double region_extent(const GroupFacts& facts, std::size_t m, std::size_t c, double tile,
                     TileExtent at) {
  const plan::GroupGeometry& g = facts.geometry;
  if (g.stage_dim[m][c] < 0) return 1;
  const double extent = static_cast<double>(facts.extents[m][c]);
  const plan::DimReach& r = facts.reach[m][c];
  if (r.whole) return extent;
  double span = 0;
  if (r.follows_tile) span += r.following_span(tile);
  if (r.fixed) span += static_cast<double>(r.fixed_hi - r.fixed_lo + 1);
  if (span <= 0) return extent;
  const double points = span / static_cast<double>(g.scale[m][c]);
  return std::clamp(at == TileExtent::Full ? std::ceil(points) : points, 1.0, extent);
}

// The points variable `var` of stage `s` takes in a tile whose region has
// `along(c)` points along common dimension c: a stage variable's along its
// dimension; a reduction variable's, its range, limited to the tile where
// the updates it drives hit one dimension alone (a histogram's cell X).
// nullopt for a name that is neither.
template <typename Along>
std::optional<double> variable_extent(const StageFacts& s, const analysis::StageAlignment& a,
                                      const std::string& var, const Along& along) {
  const std::vector<std::string>& vars = s.function->vars();
  const auto dimension = [&](std::size_t j) {
    return along(static_cast<std::size_t>(a.common_dim[j]));
  };
  for (std::size_t j = 0; j < vars.size(); ++j)
    if (vars[j] == var) return dimension(j);
  for (std::size_t r = 0; r < s.rvars.size(); ++r) {
    if (s.rvars[r] != var) continue;
    if (s.rvar_follows[r] < 0) return s.rvar_extents[r];
    return std::min(s.rvar_extents[r], dimension(static_cast<std::size_t>(s.rvar_follows[r])));
  }
  return std::nullopt;
}

// Producer dimension k's points that the accesses of `edge` read, each
// access a window of sum |a_v| (extent_v - 1) / d + 1 at its offset: the
// widest window plus the spread of the offsets. nullopt where an access has
// no affine form there (or a variable without an extent).
template <typename ExtentOf> std::optional<double>
access_hull(const analysis::EdgeDependence& edge, std::size_t k, const ExtentOf& extent_of) {
  double widest = 0, lowest = 0, highest = 0;
  bool first = true;
  for (const analysis::AccessInfo& access : edge.accesses) {
    const std::optional<analysis::AffineIndex>& form =
        access.unclamped_forms[k] ? access.unclamped_forms[k] : access.forms[k];
    if (!form || !form->parameter_free()) return std::nullopt;
    double span = 0;
    for (const auto& [var, coefficient] : form->vars) {
      const std::optional<double> extent = extent_of(var);
      if (!extent) return std::nullopt;
      span += std::abs(static_cast<double>(coefficient)) * std::max(0.0, *extent - 1);
    }
    const double divisor = static_cast<double>(form->divisor);
    const double offset = static_cast<double>(form->constant) / divisor;
    widest = std::max(widest, span / divisor + 1);
    lowest = first ? offset : std::min(lowest, offset);
    highest = first ? offset : std::max(highest, offset);
    first = false;
  }
  if (first) return std::nullopt;
  return std::ceil(widest + highest - lowest);
}

// The bytes of the group's buffers, given each member's (inlined members'
// are not counted; with `cached_only`, only GroupFacts::cached members'): a
// buffer members share is as large as the largest.
double shared_buffer_bytes(const GroupFacts& facts, const std::vector<double>& bytes,
                           bool cached_only) {
  std::vector<double> largest;
  for (std::size_t m = 0; m < facts.members.size(); ++m) {
    const int b = facts.buffer_of[m];
    if (b < 0 || (cached_only && !facts.cached[m])) continue;
    if (static_cast<std::size_t>(b) >= largest.size())
      largest.resize(static_cast<std::size_t>(b) + 1, 0);
    largest[static_cast<std::size_t>(b)] = std::max(largest[static_cast<std::size_t>(b)], bytes[m]);
  }
  double total = 0;
  for (double x : largest)
    total += x;
  return total;
}

// Calls f(m, alignment of m, edge) for each read of member m of a
// producer outside the group (a live-in), members in order.
template <typename F>
void for_each_live_in_read(const PipelineModel& model, const GroupFacts& facts, const F& f) {
  for (std::size_t m = 0; m < facts.members.size(); ++m)
    for (std::size_t e : model.stage(facts.members[m]).in_edges)
      if (const analysis::EdgeDependence& edge = model.edges()[e];
          !produced_in_group(model, facts, edge))
        f(m, facts.geometry.alignment.stages[m], edge);
}

} // namespace

TileMetrics measure_tile(const PipelineModel& model, const GroupFacts& facts,
                         std::vector<std::int64_t> tiles, TileExtent extent) {
  const plan::GroupGeometry& g = facts.geometry;
  const std::size_t dims = g.common_dims(), n = facts.members.size();
  TileMetrics t;
  tiles.resize(dims, 1);
  t.tile_count = 1;
  for (std::size_t c = 0; c < dims; ++c) {
    tiles[c] = std::clamp<std::int64_t>(tiles[c], 1, facts.space[c]);
    t.tile_counts.push_back(
        ceil_div(static_cast<double>(facts.space[c]), static_cast<double>(tiles[c])));
    t.tile_count *= t.tile_counts.back();
  }
  t.tiles = tiles;
  // Work and traffic at the mean tile (the space over the tile count): the
  // edge tiles are clipped to the space, so counting them at full size would
  // price their empty part as recomputation (interpolate's rows of 512 over
  // 1,538 columns looked 33% redundant and computed no point twice). What
  // the clipped tiles cost is imbalance, the idle term's business. Buffers
  // are sized for the full tile, which is what the cache must hold.
  // TileExtent::Full measures the full tile instead, for Halide's model.
  std::vector<double> measured(dims);
  for (std::size_t c = 0; c < dims; ++c)
    measured[c] = extent == TileExtent::Full
                      ? static_cast<double>(tiles[c])
                      : static_cast<double>(facts.space[c]) / t.tile_counts[c];
  double work = 0;
  // Per member and dimension (member-major), its region's points, for the
  // live-in reads.
  std::vector<double> along(n * dims, 1.0);
  std::vector<double> buffer_bytes(n, 0.0); // per member, its full-tile buffer
  for (std::size_t m = 0; m < n; ++m) {
    const StageFacts& s = model.stage(facts.members[m]);
    double points = 1, full = 1, owned = 1;
    // Its own points per dimension of its own (the live-out's extents), and
    // the stage's.
    std::vector<double> owned_extents(s.function->vars().size(), 1.0), stage_extents;
    for (std::size_t c = 0; c < dims; ++c) {
      along[m * dims + c] = region_extent(facts, m, c, measured[c], extent);
      points *= along[m * dims + c];
      full *= region_extent(facts, m, c, static_cast<double>(tiles[c]), TileExtent::Full);
      if (g.stage_dim[m][c] < 0) {
        owned /= t.tile_counts[c]; // only the first tile along c computes it for itself
      } else {
        const double share = measured[c] / static_cast<double>(g.scale[m][c]);
        const double own = std::min(static_cast<double>(facts.extents[m][c]),
                                    extent == TileExtent::Full ? std::ceil(share) : share);
        owned *= own;
        owned_extents[static_cast<std::size_t>(g.stage_dim[m][c])] = own;
      }
    }
    const double per_point = s.points > 0 ? s.work / s.points : 1;
    t.region_points.push_back(points * per_point);
    t.computed += points * per_point;
    work += s.work;
    if (facts.stored(m)) buffer_bytes[m] = full * s.bytes;
    if (facts.live_out(m)) {
      t.live_out_bytes += owned * s.bytes;
      for (std::size_t j = 0; j < owned_extents.size(); ++j)
        stage_extents.push_back(static_cast<double>(
            facts.extents[m][static_cast<std::size_t>(g.alignment.stages[m].common_dim[j])]));
      t.streams.push_back(
          {owned * s.bytes, run_bytes(owned_extents, stage_extents, s.bytes), true});
    }
  }
  t.buffer_bytes = shared_buffer_bytes(facts, buffer_bytes, false);
  t.cached_bytes = shared_buffer_bytes(facts, buffer_bytes, true);
  t.useful = work / t.tile_count;
  t.redundant = std::max(0.0, t.computed - t.useful);

  // Live-in: per producer outside the group, the box its readers need (per
  // producer dimension the largest over the readers).
  // (A few producers: a vector searched by pointer, not a map by name, as
  // this runs for every candidate tile of every candidate group.)
  std::vector<LiveIn> live_in;
  for_each_live_in_read(
      model, facts,
      [&](std::size_t m, const analysis::StageAlignment& a, const analysis::EdgeDependence& edge) {
        const StageFacts& s = model.stage(facts.members[m]);
        const Box& box = model.producer_box(edge);
        const void* producer = producer_identity(edge);
        auto entry = std::find_if(live_in.begin(), live_in.end(),
                                  [&](const LiveIn& l) { return l.producer == producer; });
        if (entry == live_in.end()) {
          entry =
              live_in.insert(live_in.end(), LiveIn{producer, model.producer_bytes(edge), {}, {}});
        }
        std::vector<double>& extents = entry->extents;
        extents.resize(edge.dims.size(), 0);
        entry->whole.resize(edge.dims.size(), 1);
        for (std::size_t k = 0; k < edge.dims.size(); ++k) {
          // A boundary condition's clamped reads need no more than their
          // unclamped indices would (clamping merges points).
          const analysis::DimDependence& d =
              edge.dims[k].unclamped ? *edge.dims[k].unclamped : edge.dims[k];
          const double whole =
              static_cast<double>(std::max<std::int64_t>(1, box.extent(static_cast<int>(k))));
          const double width = static_cast<double>((d.max_offset - d.min_offset).ceil());
          double need = whole;
          if (d.kind == analysis::DimDependenceKind::Constant) {
            need = width + 1;
          } else if (d.kind == analysis::DimDependenceKind::Aligned && d.consumer_dim >= 0) {
            const std::size_t c =
                static_cast<std::size_t>(a.common_dim[static_cast<std::size_t>(d.consumer_dim)]);
            const double scale =
                static_cast<double>(d.scale.num) / static_cast<double>(d.scale.den);
            // `along` points at this scale span |scale| (along - 1) + 1
            // producer points, and the window adds its width.
            need = std::ceil((along[m * dims + c] - 1) * std::abs(scale)) + width + 1;
          } else if (d.kind == analysis::DimDependenceKind::MultiVariable ||
                     d.kind == analysis::DimDependenceKind::Aligned) {
            // Several variables (a histogram's 8 X + rx), or a reduction
            // variable: the hull of the accesses' windows over the tile.
            const auto extent_of = [&](const std::string& var) {
              return variable_extent(s, a, var, [&](std::size_t c) { return along[m * dims + c]; });
            };
            need = access_hull(edge, k, extent_of).value_or(whole);
          }
          extents[k] = std::max(extents[k], std::min(need, whole));
          entry->whole[k] = whole;
        }
      });
  for (const LiveIn& entry : live_in) {
    double points = 1;
    for (double e : entry.extents)
      points *= e;
    t.live_in_bytes += points * entry.bytes;
    t.streams.push_back(
        {points * entry.bytes, run_bytes(entry.extents, entry.whole, entry.bytes), false});
    if (facts.read_back(entry.producer)) t.live_in_read_back_bytes += points * entry.bytes;
  }
  t.cached_bytes += t.live_in_read_back_bytes;
  return t;
}

const TileMetrics& TileMeasures::operator()(const std::vector<std::int64_t>& tiles) {
  const auto found = measured_.find(tiles);
  if (found != measured_.end()) return found->second;
  return measured_.emplace(tiles, measure_tile(model_, facts_, tiles)).first->second;
}

double cached_bytes_per_point(const PipelineModel& model, const GroupFacts& facts) {
  const plan::GroupGeometry& g = facts.geometry;
  std::vector<double> density(facts.members.size(), 0.0);
  for (std::size_t m = 0; m < facts.members.size(); ++m) {
    if (!facts.cached[m]) continue;
    density[m] = model.stage(facts.members[m]).bytes;
    for (std::size_t c = 0; c < g.common_dims(); ++c)
      if (g.stage_dim[m][c] >= 0) density[m] /= static_cast<double>(g.scale[m][c]);
  }
  double bytes = shared_buffer_bytes(facts, density, true);
  // A live-in read back: its bytes per point of its first reader, times its
  // points per reader point (the scale along an aligned dimension, the
  // window along a constant one).
  for (const GroupFacts::LiveInReadBack& l : facts.live_ins_read_back) {
    const analysis::EdgeDependence& edge = model.edges()[l.edge];
    double per_point = model.producer_bytes(edge);
    for (std::size_t c = 0; c < g.common_dims(); ++c)
      if (g.stage_dim[l.reader][c] >= 0) per_point /= static_cast<double>(g.scale[l.reader][c]);
    for (const analysis::DimDependence& d : edge.dims) {
      if (d.kind == analysis::DimDependenceKind::Aligned)
        per_point *= std::abs(static_cast<double>(d.scale.num) / static_cast<double>(d.scale.den));
      else if (d.kind == analysis::DimDependenceKind::Constant)
        per_point *= static_cast<double>((d.max_offset - d.min_offset).ceil() + 1);
    }
    bytes += per_point;
  }
  return bytes;
}

double row_window_bytes_per_point(const PipelineModel& model, const GroupFacts& facts) {
  const plan::GroupGeometry& g = facts.geometry;
  const std::size_t dims = g.common_dims(), n = facts.members.size();
  if (dims == 0) return 0;
  const auto member_of = [&](const ir::Function* f) {
    for (std::size_t m = 0; m < n; ++m)
      if (g.stages[m].get() == f) return m;
    return n;
  };
  // Per member and dimension, the offsets from its nest's point at which it
  // is evaluated: [0, 0] where stored (its own nest), the union over its
  // readers' where inlined (readers first: the stages are topological).
  using Span = std::pair<std::int64_t, std::int64_t>;
  std::vector<std::vector<Span>> at(n, std::vector<Span>(dims, Span{0, 0}));
  // The union of the offsets, from their nests' points, at which the
  // members that read member p read it (empty: none reads it).
  const auto read_at = [&](std::size_t p) {
    std::vector<Span> reach;
    for (const analysis::UniformDependence& dep : g.alignment.dependences) {
      const std::size_t j = member_of(dep.consumer);
      if (member_of(dep.producer) != p || j >= n) continue;
      const bool first = reach.empty();
      reach.resize(dims);
      for (std::size_t c = 0; c < dims; ++c) {
        const Span r = dep.broadcast[c]
                           ? at[j][c]
                           : Span{at[j][c].first + dep.lo[c], at[j][c].second + dep.hi[c]};
        reach[c] =
            first ? r
                  : Span{std::min(reach[c].first, r.first), std::max(reach[c].second, r.second)};
      }
    }
    return reach;
  };
  for (std::size_t m = n; m-- > 0;)
    if (!facts.stored(m))
      if (std::vector<Span> reach = read_at(m); !reach.empty()) at[m] = std::move(reach);
  double bytes = 0;
  // Stored members read in the group: their reads' offsets from the
  // readers' nests, in the producer's own points.
  for (std::size_t p = 0; p < n; ++p) {
    if (!facts.stored(p)) continue;
    const std::vector<Span> reach = read_at(p);
    if (reach.empty()) continue;
    double rows = 1;
    for (std::size_t c = 0; c < dims; ++c)
      if (c != facts.inner && g.stage_dim[p][c] >= 0)
        rows *= static_cast<double>((reach[c].second - reach[c].first) / g.scale[p][c] + 1);
    const double along_row =
        g.stage_dim[p][facts.inner] >= 0 ? 1.0 / static_cast<double>(g.scale[p][facts.inner]) : 0;
    bytes += rows * along_row * model.stage(facts.members[p]).bytes;
  }
  // Live-ins: per producer, its rows over every member that reads it (each
  // read spanning its reader's offsets, at the dependence's scale, plus its
  // window); a dimension read at constant indices spans those.
  struct Window {
    const void* producer;
    int bytes;
    std::vector<double> lo, hi; // per producer dimension, in its points
    double along_row;           // producer points per common point of a row
  };
  std::vector<Window> windows;
  for_each_live_in_read(
      model, facts,
      [&](std::size_t m, const analysis::StageAlignment& a, const analysis::EdgeDependence& edge) {
        const void* producer = producer_identity(edge);
        auto w = std::find_if(windows.begin(), windows.end(),
                              [&](const Window& x) { return x.producer == producer; });
        const bool first = w == windows.end();
        if (first) {
          w = windows.insert(windows.end(), Window{producer, model.producer_bytes(edge),
                                                   std::vector<double>(edge.dims.size(), 0),
                                                   std::vector<double>(edge.dims.size(), 0), 0});
        }
        for (std::size_t k = 0; k < edge.dims.size(); ++k) {
          const analysis::DimDependence& d =
              edge.dims[k].unclamped ? *edge.dims[k].unclamped : edge.dims[k];
          double lo = 0, hi = 0;
          if (d.kind == analysis::DimDependenceKind::Aligned && d.consumer_dim >= 0) {
            const std::size_t c =
                static_cast<std::size_t>(a.common_dim[static_cast<std::size_t>(d.consumer_dim)]);
            const double scale =
                static_cast<double>(d.scale.num) / static_cast<double>(d.scale.den);
            if (c == facts.inner) {
              w->along_row = std::max(w->along_row, std::abs(scale));
            } else {
              const double x0 = scale * static_cast<double>(at[m][c].first),
                           x1 = scale * static_cast<double>(at[m][c].second);
              lo = std::floor(std::min(x0, x1) + static_cast<double>(d.min_offset.floor()));
              hi = std::ceil(std::max(x0, x1) + static_cast<double>(d.max_offset.ceil()));
            }
          } else if (d.kind == analysis::DimDependenceKind::Constant) {
            lo = static_cast<double>(d.min_offset.floor());
            hi = static_cast<double>(d.max_offset.ceil());
          }
          w->lo[k] = first ? lo : std::min(w->lo[k], lo);
          w->hi[k] = first ? hi : std::max(w->hi[k], hi);
        }
      });
  for (const Window& w : windows) {
    double rows = 1;
    for (std::size_t k = 0; k < w.lo.size(); ++k)
      rows *= w.hi[k] - w.lo[k] + 1;
    bytes += rows * w.along_row * w.bytes;
  }
  return bytes;
}

double cached_bytes_total(const PipelineModel& model, const GroupFacts& facts) {
  double bytes = 0;
  for (std::size_t m = 0; m < facts.members.size(); ++m)
    if (facts.cached[m])
      bytes += model.stage(facts.members[m]).points * model.stage(facts.members[m]).bytes;
  return bytes;
}

std::vector<double> dimension_reuse(const PipelineModel& model, const GroupFacts& facts) {
  const plan::GroupGeometry& g = facts.geometry;
  std::vector<double> reuse(g.common_dims(), 1);
  for (const analysis::UniformDependence& dep : g.alignment.dependences)
    for (std::size_t c = 0; c < g.common_dims(); ++c)
      if (!dep.broadcast[c]) reuse[c] += static_cast<double>(dep.hi[c] - dep.lo[c]);
  for (std::size_t m = 0; m < facts.members.size(); ++m) {
    const analysis::StageAlignment& a = g.alignment.stages[m];
    for (std::size_t e : model.stage(facts.members[m]).in_edges) {
      const analysis::EdgeDependence& edge = model.edges()[e];
      if (produced_in_group(model, facts, edge)) continue;
      for (const analysis::DimDependence& d : edge.dims)
        if (d.kind == analysis::DimDependenceKind::Aligned && d.consumer_dim >= 0)
          reuse[static_cast<std::size_t>(a.common_dim[static_cast<std::size_t>(d.consumer_dim)])] +=
              static_cast<double>((d.max_offset - d.min_offset).ceil());
    }
  }
  return reuse;
}

} // namespace trapeze::autoschedule
