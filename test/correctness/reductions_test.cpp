// Reductions run in parallel where their updates allow (reduction_parallelism.h)
// and give the interpreter's result: bit for bit over disjoint points and for
// integer partial results, within the float tolerance for float sums in
// partial results, the one place the generated code reassociates.
#include "app.h"
#include "support/lowering.h"
#include "trapeze/dsl.h"
#include "trapeze/runtime.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace trapeze {
namespace {

using testing::HasSubstr;
using testing::Not;

Buffer ramp(std::int64_t rows, std::int64_t cols) {
  Buffer img(ScalarType::Float32, {rows, cols});
  for (std::int64_t i = 0; i < img.size(); ++i)
    img.set_from_double(i, static_cast<double>((i * 37) % 101) / 100.0 - 0.3);
  return img;
}

// Runs `p` bounds-checked at R x C, under its automatic schedule and its naive
// one with each parallel schedule, and with float sums reassociated, and
// compares every output with the interpreter (bit for bit, or `tolerance` for
// the outputs of reassociated float sums); returns the naive lowered loop IR.
std::string expect_matches(const Pipeline& p, std::int64_t rows, std::int64_t cols,
                           double tolerance) {
  CompileOptions checked;
  checked.bounds_check = true;
  std::vector<CompiledPipeline> compiled = {compile(p, checked)};
  checked.flags = "-O1 -fopenmp -ffp-contract=off"; // small pipelines: keep the compiles cheap
  for (const ParallelSchedule kind :
       {ParallelSchedule::Static, ParallelSchedule::Dynamic, ParallelSchedule::Chunked}) {
    Schedule naive = Schedule::naive(p);
    for (GroupSchedule& g : naive.groups)
      g.parallel_schedule = kind;
    compiled.push_back(compile(p, naive, checked));
    for (GroupSchedule& g : naive.groups)
      g.reassociate_float_sums = true;
    compiled.push_back(compile(p, naive, checked));
  }
  const ParamValues bound = p.bind({{"R", rows}, {"C", cols}});
  const BufferMap inputs = {{"img", ramp(rows, cols)}};
  const BufferMap expected = interpret(p, bound, inputs);
  for (const CompiledPipeline& c : compiled) {
    for (const int threads : {1, 2, 3}) {
      const BufferMap actual = c.run(bound, inputs, threads);
      for (const auto& out : p.outputs()) {
        const auto mismatch =
            compare_buffers(expected.at(out->name()), actual.at(out->name()),
                            output_tolerance(p, *out, c.reassociated_sums(), tolerance));
        EXPECT_FALSE(mismatch.has_value())
            << out->name() << " with " << threads
            << " threads: " << (mismatch ? mismatch->str() : "") << "\n"
            << c.source();
      }
    }
  }
  return testing_support::lowered_text(p, Schedule::naive(p));
}

// A histogram of bins by value (the bins are data-dependent, the domain a
// constant box): partial results, exact for integer counts; its float sums
// in order (exact) unless the schedule lets them be reassociated (then within
// tolerance); a minimum and a maximum, exact.
TEST(ParallelReductions, HistogramByPartialResults) {
  Param R("R"), C("C");
  Var b("b");
  const RVar rx("rx", {0, R - 1}), ry("ry", {0, C - 1});
  Image img("img", ScalarType::Float32, {R, C});
  const Expr bin = cast<int>((img(rx, ry) + 0.3f) * 20.0f);
  Func count("count", ScalarType::Int32, {b}, {{0, 19}});
  count.define_reduction(Expr(3), {rx, ry}, {sum_into({bin}, Expr(1))});
  Func mass("mass", ScalarType::Float32, {b}, {{0, 19}});
  mass.define_reduction(0.0f, {rx, ry}, {sum_into({bin}, img(rx, ry))});
  Func low("low", ScalarType::Float32, {b}, {{0, 19}});
  low.define_reduction(5.0f, {rx, ry}, {min_into({bin}, img(rx, ry))});
  Func high("high", ScalarType::Int16, {b}, {{0, 19}});
  high.define_reduction(cast<std::int16_t>(Expr(-9)), {rx, ry},
                        {max_into({bin}, cast<std::int16_t>(Expr(rx) - Expr(ry)))});
  const Pipeline p({count, mass, low, high}, "histograms");
  const std::string ir = expect_matches(p, 37, 53, 1e-4);
  EXPECT_THAT(ir, HasSubstr("8 chunks of rx into partial results"));
  EXPECT_THAT(ir, HasSubstr("allocate count_partial: int32[8, 20]"));
  EXPECT_THAT(ir, HasSubstr("parallel for chunk in [0, 7]"));
  expect_matches(p, 3, 2, 1e-4); // fewer rows than chunks: empty chunks
  EXPECT_THAT(ir, HasSubstr("updates in order, serial over rx in [0, R - 1], ry in [0, C - 1]"));
  EXPECT_THAT(ir, Not(HasSubstr("mass_partial")));
  EXPECT_TRUE(testing_support::lower_naive(p).reassociated_sums.empty());
  // Where the schedule allows it, the float sum runs by partial results too,
  // and is the one stage added in another order; the others stay exact.
  Schedule reassociating = Schedule::naive(p);
  for (GroupSchedule& g : reassociating.groups)
    g.reassociate_float_sums = true;
  EXPECT_THAT(testing_support::lowered_text(p, reassociating),
              HasSubstr("allocate mass_partial: float32[8, 20]"));
  const std::set<std::string> float_sum = {"mass"};
  EXPECT_EQ(lower::lower(p, reassociating).reassociated_sums, float_sum);
  EXPECT_EQ(testing_support::generate_cpp(p, reassociating).reassociated_sums, float_sum);
}

// A row sum: the target is the outermost reduction variable, so its loop runs
// in parallel and every point sums in the definition's order (bit for bit).
// A scatter into a domain that depends on the parameters, at data-dependent
// points, stays serial.
TEST(ParallelReductions, DisjointPointsAndSerialScatter) {
  Param R("R"), C("C");
  Var x("x");
  const RVar rx("rx", {0, R - 1}), ry("ry", {0, C - 1});
  Image img("img", ScalarType::Float32, {R, C});
  Func rows("rows", ScalarType::Float32, {x}, {{0, R - 1}});
  rows.define_reduction(0.5f, {rx, ry}, {sum_into({rx}, img(rx, ry) * 3.0f)});
  Func scatter("scatter", ScalarType::Float32, {x}, {{0, R - 1}});
  scatter.define_reduction(0.0f, {rx, ry},
                           {sum_into({cast<int>(img(rx, ry) * 10.0f) + ry}, img(rx, ry))});
  const Pipeline p({rows, scatter}, "row_sums");
  const std::string ir = expect_matches(p, 29, 31, 0);
  EXPECT_TRUE(testing_support::lower_naive(p).reassociated_sums.empty()); // in order, both
  EXPECT_THAT(ir, HasSubstr("in parallel over rx: distinct rx update distinct points"));
  EXPECT_THAT(ir, HasSubstr("parallel for rx in [0, R - 1]"));
  EXPECT_THAT(ir, HasSubstr("updates in order, serial over rx in [0, R - 1], ry in [0, C - 1]"));
}

// A reduction fused with its consumers (bilateral grid: each tile computes the
// histogram of the grid cells it reads): the grid's X and Y follow the
// reduction variables gX and gY (a tile runs only the updates of its cells),
// its channel is a constant per update (guarded where the tile holds one
// channel), its bin is computed (the tile computes every bin). Every shape and
// tiling, bounds-checked, against the interpreter; a tiled lone histogram too.
TEST(FusedReductions, BilateralGridMatchesInterpreter) {
  const apps::App& app = apps::find_app("bilateral_grid");
  const Pipeline p = app.build();
  const auto fused = [&](std::vector<std::string> stages, std::vector<std::int64_t> tiles,
                         TileShape shape) {
    GroupSchedule g;
    g.stages = std::move(stages);
    g.tile_sizes = std::move(tiles);
    g.shape = shape;
    g.parallel_tile_dims = 2;
    Schedule s;
    s.groups = {g};
    apps::add_remaining_stages(p, s, "test: not fused");
    return s;
  };
  CompileOptions checked;
  checked.bounds_check = true;
  checked.flags = "-O1 -fopenmp -ffp-contract=off"; // five compiles: keep them cheap
  const std::vector<Schedule> schedules = {
      fused({"grid", "blurz"}, {2, 4, 1000, 15}, TileShape::Scalene),
      fused({"grid", "blurz", "blurx", "blury"}, {1, 5, 7, 11}, TileShape::Scalene),
      fused({"grid", "blurz", "blurx", "blury"}, {2, 3, 4, 4}, TileShape::PolyMage),
      fused({"grid", "blurz", "blurx"}, {1, 2, 9, 15}, TileShape::Rectangle),
      fused({"grid"}, {1, 3, 5, 4}, TileShape::Scalene),
      apps::make_manual_schedule_bilateral_grid(p)};
  // Images smaller than a cell, and ones whose cells reach no interior
  // along a dimension, where the update loops' interior pieces are empty.
  std::vector<std::pair<ParamValues, BufferMap>> runs;
  for (const auto& [rows, cols] :
       {std::pair<std::int64_t, std::int64_t>{24, 40}, {1, 1}, {7, 13}}) {
    const ParamValues bound = p.bind(app.size_for_image(rows, cols));
    runs.emplace_back(bound, app.make_inputs(p, bound));
  }
  for (const Schedule& s : schedules) {
    const CompiledPipeline compiled = compile(p, s, checked);
    for (const auto& [bound, inputs] : runs) {
      const BufferMap expected = interpret(p, bound, inputs);
      const BufferMap actual = compiled.run(bound, inputs, 2);
      const auto mismatch = compare_buffers(
          expected.at("filtered"), actual.at("filtered"),
          output_tolerance(p, *p.outputs().front(), compiled.reassociated_sums(), app.tolerance));
      EXPECT_FALSE(mismatch.has_value()) << s.to_json() << "\n"
                                         << (mismatch ? mismatch->str() : "");
    }
  }
  const std::string ir = testing_support::lowered_text(p, schedules[1]);
  EXPECT_THAT(ir, HasSubstr("serial for gX in [max(-2, grid_X_lo), "));
  EXPECT_THAT(ir, HasSubstr("if grid_c_lo <= 1 && 1 <= grid_c_hi:")); // one channel per tile
  // gY innermost, the cells' samples outside it: consecutive updates hit
  // distinct cells' bins. With the clamp to the image's edges folded into the
  // histogram (the hand-written schedule), the loops split where its box test
  // holds, whose cells read the image directly.
  EXPECT_THAT(ir, HasSubstr("; gY innermost (each value updates points of its own"));
  const std::string folded =
      testing_support::lowered_text(p, apps::make_manual_schedule_bilateral_grid(p));
  EXPECT_THAT(folded, testing::ContainsRegex("serial for rx in \\[0, 8\\]:\n *serial for ry in "
                                             "\\[0, 8\\]:\n *serial for gY in"));
  EXPECT_THAT(folded, HasSubstr("grid(c, X, Y, z) = grid(c, X, Y, z) + input(8 * gX + rx - 4, 8 * "
                                "gY + ry - 4)\n"));
}

} // namespace
} // namespace trapeze
