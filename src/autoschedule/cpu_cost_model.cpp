// CpuCostModel: Alg. 2 and 4 of paper 001.
#include "autoschedule/cpu_cost_model.h"

#include "autoschedule/group_decision.h"
#include "autoschedule/tile_sizes.h"

#include <fmt/core.h>

#include <algorithm>
#include <optional>

namespace trapeze::autoschedule {

namespace {

// The narrowest innermost tile tried, in points of the coarsest stage stored
// (rows shorter than a few vectors spend their time in loop overhead).
constexpr std::int64_t narrowest_innermost = 128;

// The most a strip of whole rows may recompute (redundant over useful
// points, eq. 2's overlap) for a group to run in strips rather than tiles:
// unsharp's strips recompute 9% and ran 5-15% faster than its tiles,
// Harris's 11% and 2-3%; the 2-D cycles' deep groups recompute 20-50% in
// strips and lose (docs/performance.md, "Strips where they recompute little").
constexpr double strip_overlap_limit = 0.15;

// Below this share (MachineModel::l2_window_share: whole rows' speed over
// the same strips' in rows cut short, measured), a strip of whole rows whose
// row window spills the L1 has its rows cut: an Intel Emerald Rapids guest
// ran unsharp, blur and Harris 5-33% faster so; a Zen 3 guest ran blur and
// unsharp 12-14% slower so (docs/autoschedule.md, "Row windows"). The margin
// below 1 is the probe's noise (two rounding steps).
constexpr double slow_window_share = 0.9;

// How far a tile's buffers, with their halos, may exceed the budget the
// volume was sized for (the volume leaves the halos out).
constexpr double budget_slack = 1.25;

double volume_of(const std::vector<std::int64_t>& tiles) {
  double v = 1;
  for (std::int64_t t : tiles)
    v *= static_cast<double>(t);
  return v;
}

std::string kib(double bytes) { return fmt::format("{:.0f} KiB", bytes / 1024); }

// A short dimension where a stage of the group has a fixed region (it lacks
// the dimension: a grey stage next to colour channels; or it is read at a
// constant index there: interpolate's alpha channel, read by every colour
// channel): every tile along it would compute that part again, so the tiles
// span it whole.
constexpr std::int64_t short_dimension = 16;

std::vector<bool> whole_dimensions(const GroupFacts& facts) {
  const plan::GroupGeometry& g = facts.geometry;
  std::vector<bool> whole(g.common_dims(), false);
  for (std::size_t c = 0; c < g.common_dims(); ++c) {
    if (c == facts.inner || facts.space[c] > short_dimension) continue;
    for (std::size_t m = 0; m < facts.members.size(); ++m)
      whole[c] = whole[c] || g.stage_dim[m][c] < 0 || facts.reach[m][c].fixed;
  }
  return whole;
}

// Whether a member reads a short dimension of a producer outside the group
// both at its own index and at a constant one (interpolate's colour channels
// each read the alpha channel too): tiles one channel wide then read the
// producer's every channel, so the group is priced with its short
// dimensions whole as well.
bool reads_short_dimension_mixed(const PipelineModel& model, const GroupFacts& facts) {
  for (int m : facts.members)
    for (std::size_t e : model.stage(m).in_edges) {
      const analysis::EdgeDependence& edge = model.edges()[e];
      const Box& box = model.producer_box(edge);
      for (std::size_t k = 0; k < edge.dims.size(); ++k)
        if (edge.dims[k].kind == analysis::DimDependenceKind::Mixed &&
            box.extent(static_cast<int>(k)) <= short_dimension)
          return true;
    }
  return false;
}

// Whether a buffer the group's tiles read back is computed from another one
// (through inlined members too): a chain of stencil steps, as a multigrid
// smoothing group's, rather than scratchpads computed from the live-ins
// alone and read by the live-outs (unsharp's blurx, Harris' gradients).
bool chains_read_back_buffers(const PipelineModel& model, const GroupFacts& facts) {
  const std::size_t n = facts.members.size();
  // Per member, the members whose buffers its nest loads (an inlined
  // member's own loads are its readers').
  std::vector<std::vector<std::size_t>> loads(n);
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t m = 0; m < j; ++m) {
      if (!member_reads(model, facts, j, m)) continue;
      if (facts.stored(m))
        loads[j].push_back(m);
      else
        loads[j].insert(loads[j].end(), loads[m].begin(), loads[m].end());
    }
  for (std::size_t j = 0; j < n; ++j)
    if (facts.stored(j) && facts.cached[j])
      for (std::size_t m : loads[j])
        if (facts.cached[m]) return true;
  return false;
}

// The common dimension next out from the innermost in memory: where most
// stored members have their second-to-last dimension (none: common_dims()).
std::size_t next_out_dimension(const GroupFacts& facts) {
  std::vector<bool> stored(facts.members.size());
  for (std::size_t m = 0; m < stored.size(); ++m)
    stored[m] = facts.stored(m);
  const std::vector<int> count = dimension_votes(facts.geometry, 1, stored);
  const std::size_t dims = count.size();
  std::size_t best = dims;
  for (std::size_t c = 0; c < dims; ++c)
    if (c != facts.inner && count[c] > 0 && (best == dims || count[c] > count[best])) best = c;
  return best;
}

} // namespace

bool spans_scales_along_rows(const GroupFacts& facts) {
  const plan::GroupGeometry& g = facts.geometry;
  std::int64_t finest = 0, coarsest = 0;
  for (std::size_t m = 0; m < facts.members.size(); ++m) {
    if (!facts.stored(m) || g.stage_dim[m][facts.inner] < 0) continue;
    const std::int64_t scale = g.scale[m][facts.inner];
    finest = finest ? std::min(finest, scale) : scale;
    coarsest = std::max(coarsest, scale);
  }
  return coarsest > finest;
}

bool streams_whole_rows(const GroupFacts& facts) {
  bool recomputes = false;
  for (std::size_t m = 0; m < facts.members.size(); ++m) {
    if (facts.stored(m) && !facts.live_out(m)) return false;
    recomputes = recomputes || facts.inlining[m].recomputes_stencil;
  }
  return recomputes;
}

CpuCostModel::CpuCostModel(const PipelineModel& model, const AutoScheduleOptions& options,
                           const MachineModel& machine)
    : model_(model), options_(options), machine_(machine) {}

double CpuCostModel::price(const GroupFacts& facts, const TileMetrics& tile) const {
  return weighted(options_.weights, cost_components(facts, tile, machine_));
}

bool CpuCostModel::window_spills(const GroupFacts& facts) const {
  return machine_.l2_window_share < slow_window_share &&
         row_window_bytes_per_point(model_, facts) * static_cast<double>(facts.space[facts.inner]) >
             static_cast<double>(machine_.l1_bytes) * options_.cache_fill;
}

CpuCostModel::LevelChoice CpuCostModel::tiles_for_cache(const GroupFacts& facts,
                                                        std::int64_t cache_bytes,
                                                        const std::vector<bool>& whole) const {
  TileMeasures measure(model_, facts);
  return tiles_for_cache(facts, cache_bytes, whole, measure);
}

CpuCostModel::LevelChoice CpuCostModel::tiles_for_cache(const GroupFacts& facts,
                                                        std::int64_t cache_bytes,
                                                        const std::vector<bool>& whole,
                                                        TileMeasures& measure) const {
  LevelChoice choice;
  const std::size_t dims = facts.geometry.common_dims();
  if (dims == 0) {
    choice.tile = measure({});
    choice.accepted = true;
    return choice;
  }
  const double per_point = std::max(cached_bytes_per_point(model_, facts), 1.0);
  choice.budget = std::min(cached_bytes_total(model_, facts) / machine_.cores,
                           static_cast<double>(cache_bytes) * options_.cache_fill);
  int smallest = 8;
  for (std::size_t m = 0; m < facts.members.size(); ++m)
    if (facts.stored(m)) smallest = std::min(smallest, model_.stage(facts.members[m]).bytes);
  TileSizeRequest request;
  request.sizes = facts.space;
  request.reuse = dimension_reuse(model_, facts);
  request.volume = choice.budget / per_point;
  request.vector_points = std::max(1, machine_.vector_bytes / std::max(1, smallest));
  request.inner = static_cast<int>(facts.inner);
  // Every stored stage's rows at least `narrowest_innermost` of its own
  // points: a stage 8x down-sampled along the rows needs 8x the tile.
  std::int64_t coarsest = 1;
  for (std::size_t m = 0; m < facts.members.size(); ++m)
    if (facts.stored(m)) coarsest = std::max(coarsest, facts.geometry.scale[m][facts.inner]);
  const std::int64_t narrowest = std::min(facts.space[facts.inner], narrowest_innermost * coarsest);
  request.innermost =
      std::min(facts.space[facts.inner], std::max(options_.innermost_tile, narrowest));
  request.whole = whole;
  // Longest rows first; narrower while the overlap exceeds the volume (Alg. 2),
  // and then while eq. 2 prices the narrower tile lower (a deep stencil group
  // wants squarer tiles: 2-D multigrid's ten smoothing steps ran in 103 ms in
  // 128 x 128 tiles against 116 in 43 x 256).
  const auto accepted = [&](const TileMetrics& t) {
    // Its overlap at most its volume, its buffers in the cache (a single row
    // of a long innermost dimension may not fit).
    return t.redundant <= volume_of(t.tiles) && t.cached_bytes <= static_cast<double>(cache_bytes);
  };
  // Evening the tiles out can take a row below the narrowest (257 points in
  // tiles of 128 are three of 88): eq. 2 has no term for short rows, and
  // 3-D multigrid's finest smoothing ran 20% slower in them than whole.
  const auto too_narrow = [&](const std::vector<std::int64_t>& tiles) {
    return tiles[facts.inner] < narrowest;
  };
  // The volume the budget buys at `per_point` leaves the halos out, which
  // the buffers hold too: a deep 3-D group's tiles carry one on every side
  // (3-D multigrid's four smoothing steps in tiles of 22 x 22 x 65 take
  // twice the budget). Where they exceed it by more than a quarter, the
  // volume shrinks by the excess and the tile is sized again (four times at most: where the halos
  // dominate, the footprint shrinks more slowly than the volume).
  const auto fitted = [&](TileSizeRequest r) {
    const TileMetrics* t = &measure(compute_tile_sizes(r));
    for (int tries = 0; tries < 4 && t->cached_bytes > choice.budget * budget_slack; ++tries) {
      r.volume *= choice.budget / t->cached_bytes;
      t = &measure(compute_tile_sizes(r));
    }
    return *t;
  };
  // A group that streams a recomputed stencil runs in strips of whole rows,
  // and so does one across scales along the rows where a strip recomputes
  // little (docs/autoschedule.md, "Strips across scales"): they are not
  // narrowed below. A strip across scales that the budget buys only a few
  // rows of recomputes its halo over and over (camera_pipe's demosaic fused
  // with its colour stages: 3 rows, 41%); such a group is tiled as any other.
  // Both rules below weigh the same strip (the request changes in between
  // only where it becomes whole rows itself): it is sized once.
  std::optional<TileMetrics> whole_row_strip;
  const auto strip_of_whole_rows = [&]() -> const TileMetrics& {
    if (!whole_row_strip) {
      TileSizeRequest whole_rows = request;
      whole_rows.innermost = facts.space[facts.inner];
      whole_row_strip = fitted(whole_rows);
    }
    return *whole_row_strip;
  };
  bool strips = streams_whole_rows(facts);
  if (!strips && spans_scales_along_rows(facts))
    strips = choice.strips_across_scales = strip_of_whole_rows().overlap() <= strip_overlap_limit;
  if (strips) request.innermost = facts.space[facts.inner];
  choice.tile = fitted(request);
  if (too_narrow(choice.tile.tiles)) {
    request.innermost = facts.space[facts.inner];
    choice.tile = fitted(request);
  }
  choice.accepted = accepted(choice.tile);
  // Whole rows where a strip of them, sized by the same budget, recomputes
  // little (docs/autoschedule.md): one contiguous stream per row and no
  // column halo, which eq. 2 does not price.
  if (!strips && request.innermost < facts.space[facts.inner]) {
    const TileMetrics& strip = strip_of_whole_rows();
    if (strip.cached_bytes <= static_cast<double>(cache_bytes) &&
        strip.overlap() <= strip_overlap_limit) {
      // Where whole rows' window spills (window_spills), the strip's rows
      // are cut to InnerMostTileSize (evened out, in whole vectors) if that
      // brings the window into the L1's share; its height stays: taller
      // tiles of short rows fill the L2 that such a machine reads back
      // slowly (blur's 686 x 496 ran 1.37x the time of 69 x 512 on the
      // Intel guest; docs/autoschedule.md, "Row windows").
      if (window_spills(facts)) {
        std::vector<std::int64_t> cut = strip.tiles;
        const std::int64_t row = facts.space[facts.inner];
        const std::int64_t across = (row + request.innermost - 1) / request.innermost;
        const std::int64_t vector = std::max<std::int64_t>(1, request.vector_points);
        cut[facts.inner] =
            std::min(row, ((row + across - 1) / across + vector - 1) / vector * vector);
        if (row_window_bytes_per_point(model_, facts) * static_cast<double>(cut[facts.inner]) <=
            static_cast<double>(machine_.l1_bytes) * options_.cache_fill) {
          choice.tile = measure(cut);
          choice.accepted = accepted(choice.tile);
          choice.strip_rows_cut = true;
          return choice;
        }
      }
      choice.tile = strip;
      choice.accepted = true;
      choice.few_halo_rows = true;
      // Where its read-back buffers are computed from its live-ins alone
      // (no chain of steps), taller while eq. 2 prices the taller strip
      // lower, the buffers it writes and reads back stay within the budget
      // (as a grown tile's, below) and, with the live-ins it reads back,
      // within the cache: the budget sized the strip by all three, and the
      // live-ins, re-read from the next level if they leave the cache, cost
      // less than the halo rows a shorter strip reads again. unsharp's 15
      // rows (the budget's: 565 KiB, 324 of it its input read back) ran 6%
      // slower than 27 on a Zen 4 guest; 2-D multigrid's chains of smoothing
      // steps ran up to 5% slower in taller strips (docs/performance.md).
      if (chains_read_back_buffers(model_, facts)) return choice;
      TileSizeRequest taller = request;
      taller.innermost = facts.space[facts.inner];
      for (int step = 0; step < 16; ++step) {
        taller.volume *= 1.2;
        const TileMetrics& t = measure(compute_tile_sizes(taller));
        if (t.tiles == choice.tile.tiles) continue; // rounding: the same strip again
        if (t.cached_bytes - t.live_in_read_back_bytes > choice.budget * budget_slack ||
            t.cached_bytes > static_cast<double>(cache_bytes) ||
            price(facts, t) >= price(facts, choice.tile))
          break;
        choice.tile = t;
        choice.strip_grown_from = strip.tiles;
      }
      return choice;
    }
  }
  while (!strips && request.innermost / 2 >= narrowest) {
    request.innermost /= 2;
    const TileMetrics narrower = fitted(request);
    if (too_narrow(narrower.tiles)) break;
    const bool ok = accepted(narrower);
    if (choice.accepted && (!ok || price(facts, narrower) >= price(facts, choice.tile))) break;
    choice.tile = narrower;
    choice.accepted = ok;
  }
  // Runs across rows (docs/autoschedule.md, "Runs across rows"): where the
  // tile spans a short innermost dimension whole (bilateral_grid's 11
  // intensity bins), the runs its buffers and live-ins stream in end where it
  // cuts the next dimension out. Spanning that whole as well, they stream in
  // whole runs, which eq. 2 prices (the machine's row runs) and no search
  // above proposes: bilateral_grid's histogram in 2 x 55 x 197 x 11 tiles
  // rather than 2 x 109 x 99 x 11 ran 0.96 of the time on an Intel guest.
  // Not for a long innermost dimension: the 3-D cycles' coarse groups taken
  // in whole planes ran no faster (docs/performance.md).
  const std::size_t next = next_out_dimension(facts);
  if (next < dims && facts.space[facts.inner] <= short_dimension &&
      !(next < whole.size() && whole[next]) &&
      choice.tile.tiles[facts.inner] == facts.space[facts.inner] &&
      choice.tile.tiles[next] < facts.space[next]) {
    TileSizeRequest across = request;
    across.whole.resize(dims, false);
    across.whole[next] = true;
    const TileMetrics runs = fitted(across);
    if (accepted(runs) && price(facts, runs) < price(facts, choice.tile)) {
      choice.tile = runs;
      choice.accepted = true;
      choice.runs_across_rows = static_cast<int>(next);
      request = across;
    }
  }
  // A deep halo (docs/autoschedule.md, "Tiles that recompute less"): where
  // the tile recomputes more than a strip may, it grows until it recomputes
  // no more than that, and on while eq. 2 prices each larger tile lower
  // (pyramid_blend's groups stopped at 10-15% ran 2-3% slower), while the
  // buffers it writes and reads back stay within the budget (as any tile's,
  // with their halos). Until it recomputes little, the live-ins it re-reads
  // may leave the cache between its nests; re-read from the next level, they
  // cost less than the halo recomputed: 3-D multigrid's finest smoothing
  // pairs recompute 25% in the 9 x 9 x 257 tiles the budget buys; in 15 x 15
  // x 257 the cycles ran 3-10% faster. Past that, eq. 2 does not price the
  // re-reads, so it grows on only while they stay in the cache: the 2-D
  // cycles' last groups, grown to 129% of it, ran 1.09-1.16x the time.
  if (choice.tile.overlap() > strip_overlap_limit) {
    TileSizeRequest larger = request;
    larger.innermost = choice.tile.tiles[facts.inner];
    const double recomputed = choice.tile.overlap();
    for (int step = 0; step < 16; ++step) {
      larger.volume *= 1.2;
      const TileMetrics& t = measure(compute_tile_sizes(larger));
      if (t.tiles == choice.tile.tiles) continue; // rounding: the same tile again
      if (too_narrow(t.tiles) || t.redundant > volume_of(t.tiles) ||
          t.cached_bytes - t.live_in_read_back_bytes > choice.budget * budget_slack)
        break;
      if (choice.tile.overlap() <= strip_overlap_limit &&
          (price(facts, t) >= price(facts, choice.tile) ||
           t.cached_bytes > static_cast<double>(cache_bytes)))
        break;
      choice.tile = t;
      choice.accepted = true;
      choice.grown_from_overlap = recomputed;
    }
  }
  return choice;
}

CpuCostModel::Choice CpuCostModel::choose(const GroupFacts& facts) const {
  const std::vector<bool> whole = whole_dimensions(facts);
  TileMeasures measure(model_, facts);
  Choice choice = choose(facts, whole, measure);
  if (!reads_short_dimension_mixed(model_, facts)) return choice;
  std::vector<bool> all_short = whole;
  for (std::size_t c = 0; c < all_short.size(); ++c)
    all_short[c] = all_short[c] || (c != facts.inner && facts.space[c] <= short_dimension);
  if (all_short == whole) return choice;
  Choice alternative = choose(facts, all_short, measure);
  return price(facts, alternative.level.tile) < price(facts, choice.level.tile) ? alternative
                                                                                : choice;
}

CpuCostModel::Choice CpuCostModel::choose(const GroupFacts& facts, const std::vector<bool>& whole,
                                          TileMeasures& measure) const {
  // L1 only with rows as long as InnerMostTileSize allows (docs/autoschedule.md).
  LevelChoice l1 = tiles_for_cache(facts, machine_.l1_bytes, whole, measure);
  const bool l1_whole_rows =
      facts.geometry.common_dims() == 0 ||
      l1.tile.tiles[facts.inner] >= std::min(facts.space[facts.inner], options_.innermost_tile);
  Choice choice{l1, {}, "L1"};
  // Alg. 2 keeps an accepted L1 tile; trapeze keeps it only if eq. 2 does
  // not price the L2 tile lower (a one-row L1 tile re-reads its live-in
  // halo every row: unsharp's [1, 1, 4256] ran at 20 ms, [1, 8, 4256] at 14).
  const LevelChoice l2 = tiles_for_cache(facts, machine_.l2_bytes, whole, measure);
  if (l1.accepted && l1_whole_rows &&
      !(l2.accepted && price(facts, l2.tile) < price(facts, l1.tile)))
    return choice;
  choice.level = l2;
  choice.tiling = "L2";
  if (options_.multi_level && facts.fused()) {
    // Alg. 4: L1 tiles inside the L2 tile, rows as long as the L2 tile's.
    TileSizeRequest request;
    request.sizes = l2.tile.tiles;
    request.reuse = dimension_reuse(model_, facts);
    request.volume =
        std::min(l2.budget, static_cast<double>(machine_.l1_bytes) * options_.cache_fill) /
        std::max(cached_bytes_per_point(model_, facts), 1.0);
    request.inner = static_cast<int>(facts.inner);
    request.innermost = l2.tile.tiles[facts.inner];
    request.whole = whole;
    choice.inner = compute_tile_sizes(request);
    if (choice.inner != l2.tile.tiles) choice.tiling = "L1 in L2";
  }
  return choice;
}

double CpuCostModel::cost(const std::vector<int>& members) const {
  const GroupFacts facts =
      group_facts(model_, members, options_.inline_stages, machine_.ops_per_byte);
  if (!facts.ok) return infinite_cost;
  const Choice choice = choose(facts);
  return work_share(model_, facts) * price(facts, choice.level.tile);
}

GroupDecision CpuCostModel::evaluate(const std::vector<int>& members) const {
  const GroupFacts facts =
      group_facts(model_, members, options_.inline_stages, machine_.ops_per_byte);
  if (!facts.ok) return invalid_decision(facts, members);
  const Choice choice = choose(facts);
  const TileMetrics& tile = choice.level.tile;
  const bool l1 = choice.tiling == "L1";
  std::vector<std::string> reasons;
  if (facts.fused())
    reasons.push_back(fmt::format(
        "tiles {} for {} ({} of buffers a tile reads back, {:.0f}% of it; {:.3g} tiles){}",
        format_sizes(tile.tiles), l1 ? "L1" : "L2", kib(tile.cached_bytes),
        100 * tile.cached_bytes / static_cast<double>(l1 ? machine_.l1_bytes : machine_.l2_bytes),
        tile.tile_count,
        choice.tiling == "L1 in L2" ? ", inner tiles " + format_sizes(choice.inner) + " for L1"
                                    : ""));
  if (facts.fused() && choice.level.strips_across_scales)
    reasons.push_back("rows whole: its stages lie at several scales along them (up- or "
                      "down-sampling), where whole rows ran faster than rows cut into tiles");
  else if (facts.fused() && streams_whole_rows(facts))
    reasons.push_back("rows whole: it recomputes a stencil rather than store it, and keeps no "
                      "scratchpad for tiles to fit: it streams its rows as a single stage does");
  else if (facts.fused() && choice.level.few_halo_rows)
    reasons.push_back(fmt::format(
        "rows whole: a strip of them recomputes {:.1f}% (at most {:.0f}%), one stream a row "
        "and no column halo{}",
        100 * tile.overlap(), 100 * strip_overlap_limit,
        choice.level.strip_grown_from.empty()
            ? ""
            : fmt::format("; grown from the budget's {} while eq. 2 priced the taller strip "
                          "lower, its buffers within the budget and, with the live-ins it reads "
                          "back, within the cache",
                          format_sizes(choice.level.strip_grown_from))));
  if (facts.fused() && choice.level.strip_rows_cut)
    reasons.push_back(fmt::format(
        "a strip of few halo rows (it recomputes {:.1f}%), its rows cut: whole rows would leave "
        "{} of rows that its stencils read again from one row to the next ({:.0f} bytes a "
        "point), more than {:.0f}% of the L1, and this machine reads them from the L2 at {:.2f} "
        "of its speed from the L1",
        100 * tile.overlap(),
        kib(row_window_bytes_per_point(model_, facts) *
            static_cast<double>(facts.space[facts.inner])),
        row_window_bytes_per_point(model_, facts), 100 * options_.cache_fill,
        machine_.l2_window_share));
  if (facts.fused() && choice.level.runs_across_rows >= 0)
    reasons.push_back(fmt::format(
        "dimension {} whole as well ({} points): the innermost dimension is whole in the tile "
        "({} points), so the runs a tile streams end where it cuts the next dimension out, and "
        "eq. 2 prices whole runs lower",
        choice.level.runs_across_rows,
        facts.space[static_cast<std::size_t>(choice.level.runs_across_rows)],
        facts.space[facts.inner]));
  if (facts.fused() && choice.level.grown_from_overlap > 0)
    reasons.push_back(fmt::format(
        "tiles grown: the budget's recomputed {:.1f}%, these {:.1f}% (grown while they "
        "recomputed more than {:.0f}%, their buffers within the budget and the live-ins a "
        "tile re-reads perhaps from the next level; then while eq. 2 priced the larger tile "
        "lower and, with those live-ins, they fit the cache)",
        100 * choice.level.grown_from_overlap, 100 * tile.overlap(), 100 * strip_overlap_limit));
  return priced_decision(model_, facts, tile, choice.inner, machine_, options_.weights,
                         choice.tiling, std::move(reasons));
}

} // namespace trapeze::autoschedule
