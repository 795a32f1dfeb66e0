// Per-tile regions of fused groups (scalene and PolyMage shapes), their
// footprints, and what tiled lowering and code generation produce or reject.
#include "app.h"
#include "codegen/cpp_codegen.h"
#include "lower/loop_ir.h"
#include "plan/demand.h"
#include "plan/footprint.h"
#include "support/lowering.h"
#include "support/sample_pipelines.h"
#include "trapeze/dsl.h"
#include "trapeze/error.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <sstream>

namespace trapeze {
namespace {

using testing::HasSubstr;

// A(x) = img(x); B(x) = A(x-1) + A(x+1) (width 1); C(x) = B(x-2) + B(x+2) (width 2).
// A on [0, N+5], B on [1, N+4], C (output) on [3, N+2].
Pipeline three_stage_chain() {
  Param N("N");
  Var x("x");
  Image img("img", ScalarType::Float32, {N + 6});
  Func A("A", ScalarType::Float32, {x}, {{0, N + 5}});
  A.define(img(x) * 2.0f);
  Func B("B", ScalarType::Float32, {x}, {{1, N + 4}});
  B.define(A(x - 1) + A(x + 1));
  Func C("C", ScalarType::Float32, {x}, {{3, N + 2}});
  C.define(B(x - 2) + B(x + 2));
  return Pipeline({C}, "chain");
}

GroupSchedule chain_group(TileShape shape, std::vector<std::int64_t> sizes) {
  GroupSchedule g;
  g.stages = {"A", "B", "C"};
  g.tile_sizes = std::move(sizes);
  g.shape = shape;
  return g;
}

// The footprint of the index-th group of `s`.
plan::GroupFootprint footprint(const Pipeline& p, const Schedule& s, std::size_t index,
                               const ParamValues& params) {
  const plan::Plan planned = plan::make_plan(p, s);
  for (const plan::GroupPlan& g : planned.groups)
    if (g.index == index) return plan::group_footprint(planned, g, params);
  throw std::out_of_range("no such group");
}

// A schedule of the one group `g`.
Schedule one_group(GroupSchedule g) {
  Schedule s;
  s.groups = {std::move(g)};
  return s;
}

// The regions of every stage for the tile [lo, hi] of the chain.
std::vector<std::pair<std::int64_t, std::int64_t>> chain_regions(TileShape shape, std::int64_t lo,
                                                                 std::int64_t hi) {
  const Pipeline p = three_stage_chain();
  const analysis::BoundsProver prover = analysis::BoundsProver::for_pipeline(p);
  const plan::GroupGeometry g = plan::group_geometry(p, one_group(chain_group(shape, {10})), 0,
                                                     prover, plan::demanded_boxes(p, prover));
  const ParamValues params = {{"N", std::int64_t{100}}};
  std::vector<std::pair<std::int64_t, std::int64_t>> out(3);
  plan::tile_regions(g, shape, {Interval(Expr(lo), Expr(hi))}, plan::FirstTile(1),
                     [&](std::size_t s, const std::vector<Interval>& r) {
                       out[s] = {evaluate_int(r[0].lo, params), evaluate_int(r[0].hi, params)};
                       return std::vector<Interval>{
                           Interval(Expr(out[s].first), Expr(out[s].second))};
                     });
  return out;
}

// blur fused in 32 x 256 tiles with blurx in a scratchpad (its hand-written
// schedule inlines blurx in whole-row tiles instead).
Schedule blur_in_scratchpad(const Pipeline& p) {
  return apps::fuse_all_stages(p, {32, 256}, 2, "test: blurx in a scratchpad");
}

TEST(TileRegions, ScalenePropagatesEachEdgeOwnWidth) {
  const auto r = chain_regions(TileShape::Scalene, 40, 49);
  EXPECT_EQ(r[2], std::make_pair(std::int64_t{40}, std::int64_t{49})); // C: the tile
  EXPECT_EQ(r[1], std::make_pair(std::int64_t{38}, std::int64_t{51})); // B: +-2
  EXPECT_EQ(r[0], std::make_pair(std::int64_t{37}, std::int64_t{52})); // A: +-2 then +-1
}

TEST(TileRegions, PolyMageExtendsEveryLevelByTheWidestSlope) {
  const auto r = chain_regions(TileShape::PolyMage, 40, 49);
  EXPECT_EQ(r[2], std::make_pair(std::int64_t{40}, std::int64_t{49}));
  EXPECT_EQ(r[1], std::make_pair(std::int64_t{38}, std::int64_t{51}));
  EXPECT_EQ(r[0], std::make_pair(std::int64_t{36}, std::int64_t{53})); // 2 levels x 2
}

TEST(TileRegions, RegionsAreClampedToDomains) {
  const auto r = chain_regions(TileShape::PolyMage, 3, 12);
  EXPECT_EQ(r[1], std::make_pair(std::int64_t{1}, std::int64_t{14}));
  EXPECT_EQ(r[0], std::make_pair(std::int64_t{0}, std::int64_t{16}));
}

TEST(TileRegions, ScaleneIsNeverWiderThanPolyMage) {
  for (std::int64_t lo : {3, 20, 93}) {
    const auto s = chain_regions(TileShape::Scalene, lo, lo + 9);
    const auto m = chain_regions(TileShape::PolyMage, lo, lo + 9);
    for (std::size_t k = 0; k < 3; ++k) {
      EXPECT_LE(m[k].first, s[k].first) << "stage " << k << " tile " << lo;
      EXPECT_GE(m[k].second, s[k].second) << "stage " << k << " tile " << lo;
    }
  }
}

TEST(TileRegions, MarginsBoundTheRegions) {
  const Pipeline p = three_stage_chain();
  const analysis::BoundsProver prover = analysis::BoundsProver::for_pipeline(p);
  const plan::GroupGeometry g =
      plan::group_geometry(p, one_group(chain_group(TileShape::Scalene, {10})), 0, prover,
                           plan::demanded_boxes(p, prover));
  const auto scalene = plan::region_reach(g, TileShape::Scalene);
  const auto polymage = plan::region_reach(g, TileShape::PolyMage);
  const auto margins = [](const plan::DimReach& r) {
    EXPECT_TRUE(r.follows_tile);
    EXPECT_FALSE(r.fixed);
    return std::make_pair(r.below, r.above);
  };
  EXPECT_EQ(margins(scalene[0][0]), std::make_pair(std::int64_t{3}, std::int64_t{3}));
  EXPECT_EQ(margins(scalene[1][0]), std::make_pair(std::int64_t{2}, std::int64_t{2}));
  EXPECT_EQ(margins(polymage[0][0]), std::make_pair(std::int64_t{4}, std::int64_t{4}));
  EXPECT_EQ(margins(polymage[2][0]), std::make_pair(std::int64_t{0}, std::int64_t{0}));
  EXPECT_EQ(scalene[0][0].span(10), 16);
  // Both edges are symmetric, so the exact reach is the margins.
  EXPECT_EQ(scalene[0][0].from, -3);
  EXPECT_EQ(scalene[0][0].to, 3);
  EXPECT_EQ(scalene[0][0].following_span(10), 16);
}

TEST(TileRegions, AShiftedReadReachesItsWindowNotItsShift) {
  // pyramid_blend reads its padded levels at 2x - 33 .. 2x - 29: the
  // producer's region is the window shifted, as wide as the window.
  Param N("N");
  Var x("x");
  Image img("img", ScalarType::Float32, {N + 40});
  Func A("A", ScalarType::Float32, {x}, {{0, N + 39}});
  A.define(img(x) * 2.0f);
  Func B("B", ScalarType::Float32, {x}, {{33, N + 39}});
  B.define(A(x - 33) + A(x - 29));
  const Pipeline p({B}, "shifted");
  GroupSchedule group;
  group.stages = {"A", "B"};
  group.tile_sizes = {16};
  const analysis::BoundsProver prover = analysis::BoundsProver::for_pipeline(p);
  const plan::GroupGeometry g =
      plan::group_geometry(p, one_group(group), 0, prover, plan::demanded_boxes(p, prover));
  const plan::DimReach a = plan::region_reach(g, TileShape::Scalene)[0][0];
  EXPECT_TRUE(a.follows_tile);
  EXPECT_EQ(a.from, -33);
  EXPECT_EQ(a.to, -29);
  EXPECT_EQ(a.following_span(16), 20);
  // below and above hold the tile as well: what a scratchpad may allocate.
  EXPECT_EQ(a.below, 33);
  EXPECT_EQ(a.above, 0);
  EXPECT_EQ(a.span(16), 49);
}

// Bounds inference (plan/demand.h): a stage computes what its readers read.
// A restriction defined over the fine extent but read on the coarse interior
// is demanded there only; a read through a case covers the case's box; a
// data-dependent read, a reduction and an output take the whole domain.
TEST(DemandedBoxes, ReadersBoundWhatEachStageComputes) {
  Param N("N");
  Var x("x");
  Image img("img", ScalarType::Float32, {2 * N + 2});
  Func fine("fine", ScalarType::Float32, {x}, {{0, 2 * N + 1}});
  fine.define(img(x) * 2.0f);
  Func restrict("restrict", ScalarType::Float32, {x}, {{0, 2 * N + 1}});
  restrict.define({Case(x >= 1 && x <= N, fine(2 * x - 1) + fine(2 * x + 1))}, 0.0f);
  Func coarse("coarse", ScalarType::Float32, {x}, {{0, N + 1}});
  coarse.define({Case(x >= 1 && x <= N, restrict(x) * 0.5f)}, 0.0f);
  Func table("table", ScalarType::Int32, {x}, {{0, 9}});
  table.define(x * 3);
  Func look("look", ScalarType::Int32, {x}, {{0, N + 1}});
  look.define(table(cast<int>(coarse(x)) % 10));
  const Pipeline p({look}, "demand");
  const analysis::BoundsProver prover = analysis::BoundsProver::for_pipeline(p);
  const auto demanded = plan::demanded_boxes(p, prover);
  const ParamValues n = {{"N", std::int64_t{10}}};
  const auto bounds = [&](const std::string& stage) {
    const Interval& box = demanded.at(stage).at(0);
    return std::make_pair(evaluate_int(box.lo, n), evaluate_int(box.hi, n));
  };
  EXPECT_EQ(bounds("look"), std::make_pair(std::int64_t{0}, std::int64_t{11}));     // the output
  EXPECT_EQ(bounds("coarse"), std::make_pair(std::int64_t{0}, std::int64_t{11}));   // read at x
  EXPECT_EQ(bounds("restrict"), std::make_pair(std::int64_t{1}, std::int64_t{10})); // its case
  EXPECT_EQ(bounds("fine"), std::make_pair(std::int64_t{1}, std::int64_t{21}));     // 2x +- 1
  EXPECT_EQ(bounds("table"), std::make_pair(std::int64_t{0}, std::int64_t{9}));     // a look-up

  // A reduction's updates may read any point: its producers are demanded whole.
  const RVar r("r", {0, 2 * N + 1});
  Func hist("hist", ScalarType::Int32, {x}, {{0, 3}});
  hist.define_reduction(Expr(0), {r}, {sum_into({cast<int>(fine(r)) % 4}, Expr(1))});
  const Pipeline q({hist}, "demand_reduction");
  const auto whole = plan::demanded_boxes(q, analysis::BoundsProver::for_pipeline(q));
  EXPECT_EQ(evaluate_int(whole.at("fine")[0].hi, n), 21);
  EXPECT_EQ(evaluate_int(whole.at("fine")[0].lo, n), 0);
}

TEST(GroupFootprint, ScratchpadsAndRedundancyOfBothShapes) {
  const Pipeline p = three_stage_chain();
  const ParamValues params = {{"N", std::int64_t{100}}};
  const plan::GroupFootprint s =
      footprint(p, one_group(chain_group(TileShape::Scalene, {10})), 0, params);
  const plan::GroupFootprint m =
      footprint(p, one_group(chain_group(TileShape::PolyMage, {10})), 0, params);
  EXPECT_EQ(s.tiles, 10);
  EXPECT_EQ(s.tile_counts, std::vector<std::int64_t>{10});
  ASSERT_EQ(s.stages.size(), 3u);
  EXPECT_EQ(s.stages[0].stage, "A");
  EXPECT_EQ(s.stages[0].scratchpad_extents, std::vector<std::int64_t>{16});
  EXPECT_EQ(m.stages[0].scratchpad_extents, std::vector<std::int64_t>{18});
  EXPECT_EQ(s.stages[1].scratchpad_extents, std::vector<std::int64_t>{14});
  EXPECT_EQ(s.stages[0].computed_points, 160);
  EXPECT_EQ(m.stages[0].computed_points, 178);
  EXPECT_EQ(s.stages[1].computed_points, 140);
  EXPECT_EQ(s.stages[2].computed_points, 100);
  EXPECT_EQ(s.domain_points, 106 + 104 + 100);
  EXPECT_EQ(s.computed_points, 400);
  EXPECT_DOUBLE_EQ(s.redundant_fraction, 400.0 / 310.0 - 1);
  EXPECT_LT(s.redundant_fraction, m.redundant_fraction);
}

TEST(GroupFootprint, UntiledGroupIsOneTileWithoutRedundancy) {
  const Pipeline p = three_stage_chain();
  const plan::GroupFootprint f =
      footprint(p, one_group(chain_group(TileShape::Scalene, {})), 0, {{"N", std::int64_t{100}}});
  EXPECT_EQ(f.tiles, 1);
  EXPECT_LE(f.computed_points, f.domain_points);
}

// A lone stage's nest computes its demanded box, not the domain it defines
// (a multigrid restriction is defined over the fine grid): explain says so.
TEST(GroupFootprint, ALoneStageComputesWhatItsReadersRead) {
  Param N("N");
  Var x("x");
  Image img("img", ScalarType::Float32, {2 * N + 1});
  Func wide("wide", ScalarType::Float32, {x}, {{0, 2 * N}});
  wide.define(img(x) * 2.0f);
  Func out("out", ScalarType::Float32, {x}, {{0, N - 1}});
  out.define(wide(x) + wide(x + 1));
  const Pipeline p({out}, "wide_then_narrow");
  Schedule naive;
  naive.groups = {GroupSchedule{}, GroupSchedule{}};
  naive.groups[0].stages = {"wide"};
  naive.groups[1].stages = {"out"};
  const plan::GroupFootprint f = footprint(p, naive, 0, {{"N", std::int64_t{100}}});
  ASSERT_EQ(f.stages.size(), 1u);
  EXPECT_EQ(f.stages[0].scratchpad_extents, std::vector<std::int64_t>{101});
  EXPECT_EQ(f.stages[0].computed_points, 101);
  EXPECT_EQ(f.domain_points, 101);
}

TEST(GroupFootprint, ScaleneScratchpadsOfUnsharpAreTighter) {
  const apps::App& app = apps::find_app("unsharp");
  const Pipeline p = app.build();
  const ParamValues params = p.bind(app.small_size);
  Schedule g = apps::make_manual_schedule_unsharp(p);
  g.groups[0].tile_sizes = {1, 8, 16};
  const plan::GroupFootprint s = footprint(p, g, 0, params);
  g.groups[0].shape = TileShape::PolyMage;
  const plan::GroupFootprint m = footprint(p, g, 0, params);
  ASSERT_EQ(s.stages[1].stage, "blurx"); // after the inlined zero border
  EXPECT_LT(s.computed_points, m.computed_points);
  EXPECT_GT(s.redundant_fraction, 0);
}

TEST(LowerSchedule, TiledGroupHasTileLoopsAndScratchpads) {
  const apps::App& app = apps::find_app("blur");
  const Pipeline p = app.build();
  const Schedule s = blur_in_scratchpad(p);
  const std::string ir = testing_support::lowered_text(p, s);
  EXPECT_THAT(ir, HasSubstr("x_tile"));
  EXPECT_THAT(ir, HasSubstr("scalene shape"));
  // hoist_scratchpads: blurx's memory once per thread around the tile loops,
  // its origin per tile.
  EXPECT_THAT(ir, HasSubstr("allocate blurx: float32[min(32, R), 16 * ((min(258, C + 2) + 15) / "
                            "16)] origin (0, 0) per thread\nparallel for x_tile"));
  EXPECT_THAT(ir, HasSubstr("origin (blurx_x_lo, blurx_y_lo) reuse"));
  // Not hoisted: after stage_loops, the tile's buffer is a stack buffer.
  std::ostringstream log;
  lower::LowerOptions options;
  options.print_after = "full_buffers";
  options.log = &log;
  lower::lower(p, s, options);
  EXPECT_THAT(log.str(), HasSubstr("origin (blurx_x_lo, blurx_y_lo) stack"));
}

TEST(LowerSchedule, CodegenAllocatesScratchpadsOncePerThread) {
  const apps::App& app = apps::find_app("unsharp");
  const Pipeline p = app.build();
  const std::string src =
      testing_support::generate_cpp(p, apps::make_manual_schedule_unsharp(p)).source;
  // Allocated by each worker of the tile loop, once, after it took its first tile.
  EXPECT_THAT(src, HasSubstr("#pragma omp task if(worker > 0)"));
  EXPECT_THAT(src, HasSubstr("if (c_tile_start < c_tile_iterations) { // scratchpads only for"));
  EXPECT_THAT(src, HasSubstr("per worker (64-byte aligned), holds blurx"));
  EXPECT_THAT(src, HasSubstr("if (!c_tile_memory_ok) continue;"));
  EXPECT_THAT(src, testing::Not(HasSubstr("holds sharpen"))); // inlined
}

// Tile loops hand out tiles dynamically by default, an untiled stage's rows
// in chunks (sized where the loop starts, from its collapsed iteration count);
// a group's parallel_schedule overrides either, and the loop IR names it. The
// generated code takes the chosen number of iterations at a time from the
// loop's shared counter.
TEST(LowerSchedule, ParallelLoopsCarryTheirGroupsSchedule) {
  const Pipeline p = apps::find_app("unsharp").build();
  Schedule s = apps::make_manual_schedule_unsharp(p);
  const std::string one_at_a_time = testing_support::generate_cpp(p, s).source;
  EXPECT_THAT(one_at_a_time, HasSubstr("// dynamic: one iteration at a time to whichever worker"));
  EXPECT_THAT(one_at_a_time, HasSubstr("int64_t c_tile_start = tz_take(c_tile_loop, 1);"));
  EXPECT_THAT(testing_support::lowered_text(p, s), HasSubstr("collapsed and parallel (dynamic)"));
  s.groups[0].parallel_schedule = ParallelSchedule::Static;
  const std::string fixed = testing_support::generate_cpp(p, s).source;
  EXPECT_THAT(fixed, HasSubstr("const int64_t c_tile_chunk = (c_tile_iterations + tz_threads - 1) "
                               "/ tz_threads; // one share per worker\n"));
  EXPECT_THAT(fixed, HasSubstr("c_tile_start = tz_take(c_tile_loop, c_tile_chunk))"));
  EXPECT_THAT(fixed, testing::Not(HasSubstr("dynamic")));

  s.groups[0].parallel_schedule = ParallelSchedule::Chunked;
  EXPECT_THAT(testing_support::generate_cpp(p, s).source,
              HasSubstr("const int64_t c_tile_chunk = tz_chunk(c_tile_iterations, tz_threads);"));

  Schedule naive = Schedule::naive(p);
  const std::string chunked = testing_support::generate_cpp(p, naive).source;
  EXPECT_THAT(chunked, HasSubstr("const int64_t c_iterations = c_count * x_count;\n"));
  EXPECT_THAT(chunked, HasSubstr("const int64_t c_chunk = tz_chunk(c_iterations, tz_threads);"));
  EXPECT_THAT(chunked, HasSubstr("inline int tz_chunk(int64_t iterations, int threads) {"));
  // The collapsed loops' variables from the flat iteration number.
  EXPECT_THAT(chunked, HasSubstr("const int32_t x = int32_t(x_first + c_iteration % x_count);\n"));
  EXPECT_THAT(chunked, HasSubstr("const int32_t c = int32_t(c_first + c_iteration / x_count);\n"));
  EXPECT_THAT(testing_support::lowered_text(p, naive),
              HasSubstr("parallel for c in [0, 2] collapse(2) chunked:"));
  for (GroupSchedule& g : naive.groups)
    g.parallel_schedule = ParallelSchedule::Dynamic;
  const std::string rows = testing_support::lowered_text(p, naive);
  EXPECT_THAT(rows, HasSubstr("parallel for c in [0, 2] collapse(2) dynamic:"));
  for (GroupSchedule& g : naive.groups)
    g.parallel_schedule = ParallelSchedule::Static;
  const std::string fixed_rows = testing_support::generate_cpp(p, naive).source;
  EXPECT_THAT(fixed_rows, HasSubstr("// one share per worker"));
  EXPECT_THAT(fixed_rows, testing::Not(HasSubstr("tz_chunk")));
}

TEST(LowerSchedule, LiveOutReadInItsGroupIsCopiedOutOfAPrivateScratchpad) {
  const Pipeline p = apps::find_app("harris").build();
  Schedule s = apps::make_manual_schedule_harris(p);
  s.storage.clear(); // Sxx becomes a live-out
  GroupSchedule rest = s.groups[0];
  s.groups[0].stages = {"Ix", "Ixx", "Sxx"};
  rest.stages = {"Iy", "Iyy", "Ixy", "Syy", "Sxy", "det", "trace", "harris"};
  s.groups.push_back(rest);
  const std::string ir = testing_support::lowered_text(p, s);
  EXPECT_THAT(ir, HasSubstr("Ix_tile"));
  EXPECT_THAT(ir, HasSubstr("Ix: the tile's part, from its scratchpad to its full buffer"));
  EXPECT_THAT(ir, testing::Not(HasSubstr("Sxx_tile"))); // read by no stage of its group
}

TEST(LowerSchedule, NaiveScheduleIsTheNaiveLowering) {
  const Pipeline p = apps::find_app("harris").build();
  EXPECT_EQ(testing_support::generate_cpp(p).source,
            testing_support::generate_cpp(p, Schedule::naive(p)).source);
}

// Sxx reads Ixx at x-1..x+1 only inside Sxx's box [2, R-1], which lies inside
// Ixx's box [1, R]: the inlined read is Ixx's case value, with no select.
TEST(LowerSchedule, InlinedCaseResolvedByItsBox) {
  const Pipeline p = apps::find_app("harris").build();
  Schedule s = apps::make_manual_schedule_harris(p);
  s.storage = {{"Ixx", Storage::Inlined}};
  const std::string ir = testing_support::lowered_text(p, s);
  EXPECT_THAT(ir, HasSubstr("inlined: Ixx"));
  EXPECT_THAT(ir, HasSubstr("Sxx(x, y) = Ix(x - 1, y - 1) * Ix(x - 1, y - 1) + Ix(x - 1, y)"));
  EXPECT_THAT(ir, testing::Not(HasSubstr("Ixx(")));
}

// A(x) = img(x-1) + img(x+1) on its box [1, N], 7 elsewhere; B(x) over
// [0, N] is `b_of(A)` by cases, one group, A inlined.
std::string lowered_inlined_reader(
    const std::function<void(Func& B, Func& A, const Var& x, const Param& N)>& define_b) {
  Param N("N");
  Var x("x");
  Image img("img", ScalarType::Float32, {N + 2});
  Func A("A", ScalarType::Float32, {x}, {{0, N + 1}});
  A.define({Case(x.in(1, N), img(x - 1) + img(x + 1))}, 7.0f);
  Func B("B", ScalarType::Float32, {x}, {{0, N}});
  define_b(B, A, x, N);
  const Pipeline p({B}, "inlined_reader");
  Schedule s;
  s.groups = {GroupSchedule{}};
  s.groups[0].stages = {"A", "B"}; // one untiled group
  s.storage["A"] = Storage::Inlined;
  return testing_support::lowered_text(p, s);
}

// A read whose case holds on part of its reader's points splits the reader
// there: each part reads one case of A, and no point tests A's box.
TEST(LowerSchedule, InlinedCaseSplitsItsReader) {
  const std::string ir = lowered_inlined_reader([](Func& B, Func& A, const Var& x, const Param&) {
    B.define(A(x + 1) * 2.0f); // A's case on [0, N-1], its default at N
  });
  EXPECT_THAT(ir, HasSubstr("B(x) = (img(x) + img(x + 2)) * 2.0f\n"));
  EXPECT_THAT(ir, HasSubstr("B(x) = 7.0f * 2.0f\n"));
  EXPECT_THAT(ir, testing::Not(HasSubstr("select")));
}

// The reader's own cases count: where earlier cases cover the part of the
// default that would read A's case, the default reads only A's default.
TEST(LowerSchedule, InlinedCaseResolvedByTheReadersEarlierCases) {
  const std::string ir = lowered_inlined_reader([](Func& B, Func& A, const Var& x, const Param& N) {
    B.define({Case(x == 0, A(x)), Case(x.in(1, N - 1), A(x + 1))}, A(x + 1) * 2.0f);
  });
  // x == 0: A(0) is A's default; x in [1, N-1]: A(x+1) is inside A's box;
  // the default (x = N) reads A(N + 1), A's default.
  EXPECT_THAT(ir, HasSubstr("B(x) = 7.0f\n"));
  EXPECT_THAT(ir, HasSubstr("B(x) = img(x) + img(x + 2)\n"));
  EXPECT_THAT(ir, HasSubstr("B(x) = 7.0f * 2.0f\n"));
  EXPECT_THAT(ir, testing::Not(HasSubstr("select")));
}

// A read at a stride is split on too: its points in A's box, 1 <= 2x <= N,
// are the box 1 <= x <= N / 2 of x, which reads A's case directly.
TEST(LowerSchedule, InlinedCaseReadAtAStrideIsSplit) {
  const std::string ir = lowered_inlined_reader(
      [](Func& B, Func& A, const Var& x, const Param&) { B.define(A(2 * x) * 2.0f); });
  EXPECT_THAT(ir, HasSubstr("B(x) = 7.0f * 2.0f\n"));
  EXPECT_THAT(ir, HasSubstr("vectorized for x in [min(max(1, B_x_first), B_x_last + 1), "
                            "min(max(max(N / 2, 0), B_x_first - 1), B_x_last)]:\n"
                            "    B(x) = (img(2 * x - 1) + img(2 * x + 1)) * 2.0f\n"));
  EXPECT_THAT(ir, testing::Not(HasSubstr("select")));
}

TEST(LowerSchedule, IntraTileFusionOfConsumersOfACommonProducer) {
  const Pipeline p = apps::find_app("harris").build();
  Schedule s = apps::make_manual_schedule_harris(p);
  s.storage.clear(); // every stage in a scratchpad
  s.groups[0].intra_tile_fusion = true;
  const std::string fused = testing_support::lowered_text(p, s);
  // Ix and Iy read img, Ixx, Ixy and Iyy read Ix and Iy, det and trace read
  // Sxx and Syy, each set over equal regions; Iy, Ixy and Iyy move up past
  // the stages they do not need (the group lists Ix, Ixx, Sxx, Iy, ...).
  EXPECT_THAT(fused, HasSubstr("loops fused: Ix, Iy; loops fused: Ixx, Ixy, Iyy; loops fused: "
                               "det, trace"));
  EXPECT_THAT(fused, HasSubstr("Ixx, Ixy, Iyy: one fused nest"));
  // Sxx, Syy and Sxy read different products: not fused with each other.
  EXPECT_THAT(fused, testing::Not(HasSubstr("Sxx, Syy")));
  s.groups[0].intra_tile_fusion = false;
  const std::string apart = testing_support::lowered_text(p, s);
  EXPECT_THAT(apart, testing::Not(HasSubstr("loops fused")));
  EXPECT_THAT(apart, testing::Not(HasSubstr("one fused nest")));
}

// A consumer that reads a stage between itself and its partner cannot move up
// to the partner's place: blury reads blurx, so blurx's partner cannot be it.
TEST(LowerSchedule, IntraTileFusionKeepsProducersFirst) {
  const Pipeline p = apps::find_app("blur").build();
  Schedule s = blur_in_scratchpad(p);
  s.groups[0].intra_tile_fusion = true;
  const std::string ir = testing_support::lowered_text(p, s);
  EXPECT_THAT(ir, testing::Not(HasSubstr("loops fused")));
}

// Lowering trusts its plan: a schedule that does not fit is rejected by
// make_plan (Schedule::validate's messages), before any pass runs.
TEST(LowerScheduleErrors, ThePlanRejectsWhatDoesNotFit) {
  const Pipeline p = apps::find_app("blur").build();
  Schedule s = apps::make_manual_schedule_blur(p);
  s.groups[0].tile_sizes = {};
  s.groups[0].inner_tile_sizes = {8, 64};
  EXPECT_THAT([&] { lower::lower(p, s); }, testing::ThrowsMessage<Error>(HasSubstr(
                                               "has inner tile sizes [8, 64] but is untiled")));
  s = apps::make_manual_schedule_blur(p);
  s.groups[0].tile_sizes = {8};
  EXPECT_THAT([&] { lower::lower(p, s); },
              testing::ThrowsMessage<Error>(HasSubstr("has 1 tile sizes")));
  s = apps::make_manual_schedule_blur(p);
  s.storage["blury"] = Storage::Scratchpad;
  EXPECT_THAT([&] { lower::lower(p, s); },
              testing::ThrowsMessage<Error>(HasSubstr("so it cannot be in a scratchpad")));
}

TEST(LowerSchedule, InnerTilesAreSerialParallelograms) {
  const Pipeline p = apps::find_app("blur").build();
  Schedule s = blur_in_scratchpad(p);
  s.groups[0].inner_tile_sizes = {8, 64};
  const std::string ir = testing_support::lowered_text(p, s);
  EXPECT_THAT(ir, HasSubstr("inner parallelogram tiles [8, 64]"));
  EXPECT_THAT(ir, HasSubstr("blurx_y_band_hi"));
}

TEST(LowerRectangleShape, FusesTheStagesRowByRowWithTheScaleneRegions) {
  // blur tiled [32, 256] over (x, y): one band per row x, whole along y
  // (no y_inner loop); the regions are the scalene ones.
  const Pipeline p = apps::find_app("blur").build();
  Schedule s = blur_in_scratchpad(p);
  s.groups[0].shape = TileShape::Rectangle;
  const std::string text = testing_support::lowered_text(p, s);
  EXPECT_THAT(text,
              HasSubstr("rectangle shape: the stages' point loops fused in bands [1, whole]"));
  EXPECT_THAT(text, HasSubstr("serial for x_inner in [0, x_tile_hi - x_tile_lo]"));
  EXPECT_THAT(text, testing::Not(HasSubstr("y_inner")));
  // The chain A -> B -> C, 1-D: C reads B at x - 2 .. x + 2, so B's band is
  // shifted by its upper margin 2 (and A's by 3).
  const Pipeline chain = three_stage_chain();
  Schedule bands = Schedule::naive(chain);
  bands.groups = {chain_group(TileShape::Rectangle, {10})};
  bands.groups[0].inner_tile_sizes = {1};
  const std::string chain_text = testing_support::lowered_text(chain, bands);
  EXPECT_THAT(chain_text, HasSubstr("min(B_x_hi, x_inner_lo + 2)"));
  EXPECT_THAT(chain_text, HasSubstr("min(A_x_hi, x_inner_lo + 3)"));
  Schedule scalene = s;
  scalene.groups[0].shape = TileShape::Scalene;
  const ParamValues params = p.bind({});
  const plan::GroupFootprint a = footprint(p, s, 0, params);
  const plan::GroupFootprint b = footprint(p, scalene, 0, params);
  EXPECT_EQ(a.computed_points, b.computed_points);
  ASSERT_EQ(a.stages.size(), b.stages.size());
  for (std::size_t i = 0; i < a.stages.size(); ++i)
    EXPECT_EQ(a.stages[i].scratchpad_extents, b.stages[i].scratchpad_extents);
}

// ---------------------------------------------------------------- footprints

// The per-tile extents (scratchpad sizes) of the stages of a fused group,
// by stage name, at the app's default size.
std::map<std::string, std::vector<std::int64_t>>
group_extents(const std::string& app_name, const std::vector<std::string>& group,
              const std::vector<std::int64_t>& tiles,
              const std::map<std::string, Storage>& storage = {}) {
  const apps::App& app = apps::find_app(app_name);
  const Pipeline p = app.build();
  GroupSchedule fused;
  fused.stages = group;
  fused.tile_sizes = tiles;
  Schedule s;
  s.groups = {fused};
  apps::add_remaining_stages(p, s, "test: not fused");
  s.storage = storage;
  const plan::GroupFootprint f = footprint(p, s, 0, p.bind(app.default_size));
  std::map<std::string, std::vector<std::int64_t>> out;
  for (const plan::StageFootprint& stage : f.stages)
    out[stage.stage] = stage.scratchpad_extents;
  return out;
}

using Extents = std::vector<std::int64_t>;

// Paper 000, table 7 (unsharp mask, tiles 8 x 512, "our work"): blurx
// 3x8x516, blury and sharpen 3x8x512. Our unsharp is PolyMage's (blurx along
// x, blury along y, 5 taps each), so the footprints are the paper's.
TEST(PaperFootprints, UnsharpMatchesTable7) {
  const auto e = group_extents("unsharp", {"blurx", "blury", "sharpen", "mask"}, {3, 8, 512},
                               {{"sharpen", Storage::Scratchpad}});
  EXPECT_EQ(e.at("blurx"), (Extents{3, 8, 516}));
  EXPECT_EQ(e.at("blury"), (Extents{3, 8, 512}));
  EXPECT_EQ(e.at("sharpen"), (Extents{3, 8, 512}));
}

// Paper 000, table 5 (multiscale interpolation, "tile size 32x128"; our
// work): i_L0 4x33x129, Ux_i_L0 4x33x66, i_L1 4x18x66, Ux_i_L1 4x18x35,
// i_L2 4x11x35, Ux_i_L2 4x11x20, i_L3 4x7x20, Ux_i_L3 4x7x10. The paper's
// tile of "32 x 128" spans 33 x 129 points (its i_L0, the live-out, is
// 33 x 129): with tiles of 33 x 129 the three finest stages equal the table.
// Below them ours are one tighter per level: Ux_i_L1 reads i_L2 at
// floor((x+1)/2) and floor((x+2)/2) for 18 consecutive x, which is 10 rows
// wherever the 18 start, where the table has 11 (and so on down). With tiles
// of 32 x 128 the tile space starts at row and column 1, the first that the
// pipeline reads of i_L0 (its ghost ring is read by no one, plan/demand.h):
// tiles starting there, at an odd position, need one row and column fewer of
// Ux_i_L3 than tiles starting at 0 (4x5x9).
TEST(PaperFootprints, InterpolateMatchesTable5) {
  const std::vector<std::string> group = {
      "Ux_interpolated_L3", "interpolated_L3", "Ux_interpolated_L2", "interpolated_L2",
      "Ux_interpolated_L1", "interpolated_L1", "Ux_interpolated_L0", "interpolated_L0"};
  const auto paper = group_extents("interpolate", group, {4, 33, 129});
  EXPECT_EQ(paper.at("interpolated_L0"), (Extents{4, 33, 129}));
  EXPECT_EQ(paper.at("Ux_interpolated_L0"), (Extents{4, 33, 66}));
  EXPECT_EQ(paper.at("interpolated_L1"), (Extents{4, 18, 66}));
  EXPECT_EQ(paper.at("Ux_interpolated_L1"), (Extents{4, 18, 34}));
  EXPECT_EQ(paper.at("interpolated_L2"), (Extents{4, 10, 34}));
  EXPECT_EQ(paper.at("Ux_interpolated_L2"), (Extents{4, 10, 18}));
  EXPECT_EQ(paper.at("interpolated_L3"), (Extents{4, 6, 18}));
  EXPECT_EQ(paper.at("Ux_interpolated_L3"), (Extents{4, 6, 10}));
  const auto ours = group_extents("interpolate", group, {4, 32, 128});
  EXPECT_EQ(ours.at("interpolated_L0"), (Extents{4, 32, 128}));
  EXPECT_EQ(ours.at("Ux_interpolated_L0"), (Extents{4, 32, 65}));
  EXPECT_EQ(ours.at("interpolated_L1"), (Extents{4, 17, 65}));
  EXPECT_EQ(ours.at("Ux_interpolated_L3"), (Extents{4, 5, 9}));
}

// Paper 000, table 6 (pyramid blending, tiles 16 x 256, our work), for its
// group of levels 2 and 3: Ux_2_img 3x16x66, Uy_2_img and Res_2 3x16x128
// equal the table. Two differences in the definitions change the others: our
// down-sampling has 5 taps (2x-2 .. 2x+2, benchmarks.md), PolyMage's 4, so
// Dx_2_mask needs 2*(11-1)+5 = 25 rows where the table has 22 = 2*(10-1)+4;
// and our tiles start at the live-outs' first row (7, odd), so 16 rows of
// Ux_2 read G_3 at floor(x/2)-1 .. floor(x/2)+1 = 11 rows where tiles
// starting at an even row read 10 (Dx_3, Dy_3 and Res_3: 11 rows, not 10).
TEST(PaperFootprints, PyramidBlendDiffersFromTable6AsItsDefinitionDoes) {
  const auto e = group_extents("pyramid_blend",
                               {"Dx_3_img1", "Dx_3_img2", "Dy_3_img1", "Dy_3_img2", "Col_2_x",
                                "Dx_3_mask", "Dy_3_mask", "Ux_2_img1", "Ux_2_img2", "Dx_2_mask",
                                "Dy_2_mask", "Uy_2_img1", "Uy_2_img2", "Res_3", "Res_2"},
                               {3, 16, 256});
  EXPECT_EQ(e.at("Ux_2_img1"), (Extents{3, 16, 66}));
  EXPECT_EQ(e.at("Uy_2_img2"), (Extents{3, 16, 128}));
  EXPECT_EQ(e.at("Res_2"), (Extents{3, 16, 128}));
  EXPECT_EQ(e.at("Dx_2_mask"), (Extents{25, 265}));
  EXPECT_EQ(e.at("Dy_2_mask"), (Extents{25, 131}));
  EXPECT_EQ(e.at("Dx_3_img1"), (Extents{3, 11, 135}));
  EXPECT_EQ(e.at("Res_3"), (Extents{3, 11, 64}));
}

// A three-level 2x pyramid, D_l(x, y) = D_l-1(2x - 1 .. 2x + 1, y): in tiles
// of 16 x 8 (finest points) D3 holds 2 x 8 points of a tile, so D2 needs rows
// [2*(2k) - 1, 2*(2k+1) + 1]: 5, D1 2*5+1 = 11, A 2*11+1 = 23, exactly; the
// consumer's region is snapped to its own points before widening, so no
// level adds slack.
TEST(TileRegions, ThreeLevelPyramidFootprintsAreExact) {
  Param N("N"), M("M");
  Var x("x"), y("y");
  Image img("img", ScalarType::Float32, {8 * N + 8, M});
  Func A("A", ScalarType::Float32, {x, y}, {{0, 8 * N + 7}, {0, M - 1}});
  A.define(img(x, y) * 2.0f);
  Func D1("D1", ScalarType::Float32, {x, y}, {{1, 4 * N + 2}, {0, M - 1}});
  D1.define(A(2 * x - 1, y) + A(2 * x, y) + A(2 * x + 1, y));
  Func D2("D2", ScalarType::Float32, {x, y}, {{1, 2 * N}, {0, M - 1}});
  D2.define(D1(2 * x - 1, y) + D1(2 * x, y) + D1(2 * x + 1, y));
  Func D3("D3", ScalarType::Float32, {x, y}, {{1, N - 1}, {0, M - 1}});
  D3.define(D2(2 * x - 1, y) + D2(2 * x, y) + D2(2 * x + 1, y));
  const Pipeline p({D3}, "pyramid");
  GroupSchedule g;
  g.stages = {"A", "D1", "D2", "D3"};
  g.tile_sizes = {16, 8};
  const plan::GroupFootprint f = footprint(p, one_group(g), 0, {{"N", 64}, {"M", 40}});
  ASSERT_EQ(f.stages.size(), 4u);
  EXPECT_EQ(f.stages[3].scratchpad_extents, (Extents{2, 8}));  // D3
  EXPECT_EQ(f.stages[2].scratchpad_extents, (Extents{5, 8}));  // D2
  EXPECT_EQ(f.stages[1].scratchpad_extents, (Extents{11, 8})); // D1
  EXPECT_EQ(f.stages[0].scratchpad_extents, (Extents{23, 8})); // A
}

// A stage with multigrid's boundary cases (x == 0, the interior [1, n],
// x == n + 1): with n >= 1 declared, their boundaries are ordered for every n
// and partition_cases leaves no select, naive or tiled; without the range
// (n = -1 would make 1 > n + 1) the unordered case keeps its box test.
TEST(PartitionCases, DeclaredRangesOrderTheCases) {
  for (const bool ranged : {false, true}) {
    const Pipeline p = testing_support::boundary_cases(ranged);
    Schedule tiled;
    tiled.groups = {GroupSchedule{}};
    tiled.groups[0].stages = {"g", "h"};
    tiled.groups[0].tile_sizes = {4, 8};
    for (const Schedule& s : {Schedule::naive(p), tiled}) {
      const std::string ir = testing_support::lowered_text(p, s);
      EXPECT_EQ(ir.find("select(") == std::string::npos, ranged) << ir;
    }
  }
}

// partition_parity: every stage of parity_sampling runs its whole groups of
// two points as a coarse loop whose stores fix the parity: no % 2 and no / 2
// of the split variable is left in them, naive and tiled.
TEST(PartitionParity, CoarseLoopsStoreEachResidueWithoutTests) {
  const Pipeline p = testing_support::parity_sampling();
  Schedule tiled;
  tiled.groups = {GroupSchedule{}};
  tiled.groups[0].stages = {"a", "up", "mix", "even"};
  tiled.groups[0].tile_sizes = {6, 10};
  for (const Schedule& s : {Schedule::naive(p), tiled}) {
    const std::string ir = testing_support::lowered_text(p, s);
    for (const char* coarse : {"x_coarse", "y_coarse"})
      EXPECT_THAT(ir, HasSubstr(coarse));
    // The bodies of the coarse loops (lines indented below their header).
    std::istringstream lines(ir);
    int stores = 0;
    std::string split;     // the variable of the coarse loop being read
    std::size_t depth = 0; // its header's indentation
    for (std::string line; std::getline(lines, line);) {
      const std::size_t indent = line.find_first_not_of(' ');
      if (!split.empty() && indent <= depth) split.clear();
      if (const std::size_t at = line.find("_coarse");
          at != std::string::npos && line.find(" for ") != std::string::npos) {
        split = line.substr(at - 1, 1); // "x" or "y"
        depth = indent;
        continue;
      }
      if (split.empty() || line.find(") = ") == std::string::npos) continue;
      ++stores;
      const std::string value = line.substr(line.find(") = "));
      EXPECT_THAT(value, testing::Not(HasSubstr(split + " % 2"))) << line;
      EXPECT_THAT(value, testing::Not(HasSubstr(split + " / 2"))) << line;
    }
    EXPECT_GE(stores, 6);
  }
}

// Every pass of lowering prints its loop IR for every app under its
// hand-written schedule; Produces exist until stage_loops and never after.
TEST(LoweringPasses, EveryPassPrintsForEveryApp) {
  for (const apps::App& app : apps::all_apps()) {
    const Pipeline p = app.build();
    std::ostringstream log;
    lower::LowerOptions options;
    options.print_after = "all";
    options.log = &log;
    const lower::Module m = lower::lower(p, app.manual_schedule(p), options);
    const std::string text = log.str();
    const std::vector<std::string>& names = lower::pass_names();
    std::size_t at = 0;
    for (const std::string& name : names) {
      const std::size_t next = text.find("// --- loop IR after " + name + " ---\n", at);
      ASSERT_NE(next, std::string::npos) << app.name << ": nothing after " << name;
      at = next + 1;
    }
    const std::size_t loops = text.find("// --- loop IR after stage_loops ---");
    EXPECT_NE(text.rfind("produce ", loops), std::string::npos) << app.name;
    EXPECT_EQ(text.find("produce ", loops), std::string::npos) << app.name;
    EXPECT_EQ(m.passes.size(), names.size());
  }
}

} // namespace
} // namespace trapeze
