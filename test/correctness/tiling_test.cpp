// Fused, overlapped-tiled schedules compiled through the JIT match the
// reference interpreter: both tile shapes, tile sizes that do not divide the
// image, tiles larger than the image, 1-wide tiles, scratchpads and inlined
// point-wise stages, several groups, at small and odd sizes. Each schedule is
// compiled once and run at every size.
#include "app.h"
#include "lower/loop_ir.h"
#include "support/lowering.h"
#include "support/sample_pipelines.h"
#include "trapeze/dsl.h"
#include "trapeze/runtime.h"
#include "trapeze/text_form.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace trapeze {
namespace {

struct TilingCase {
  std::string app;
  std::string label; // test name suffix
  std::function<Schedule(const Pipeline&)> schedule;
};

void PrintTo(const TilingCase& c, std::ostream* os) { *os << c.app << " " << c.label; }

std::string case_name(const testing::TestParamInfo<TilingCase>& info) {
  return info.param.app + "_" + info.param.label;
}

// The app's manual schedule with the one group's tiles and shape replaced.
std::function<Schedule(const Pipeline&)> variant(Schedule (*manual)(const Pipeline&),
                                                 std::vector<std::int64_t> sizes, TileShape shape,
                                                 std::map<std::string, Storage> storage = {},
                                                 int parallel = 1,
                                                 std::vector<std::int64_t> inner = {}) {
  return [=](const Pipeline& p) {
    Schedule s = manual(p);
    s.groups[0].tile_sizes = sizes;
    s.groups[0].inner_tile_sizes = inner;
    s.groups[0].shape = shape;
    s.groups[0].parallel_tile_dims = parallel;
    for (const auto& [stage, where] : storage)
      s.storage[stage] = where;
    return s;
  };
}

// harris in two tiled groups: the gradients and their products, then the rest.
Schedule harris_two_groups(const Pipeline& p) {
  Schedule s = apps::make_manual_schedule_harris(p);
  s.storage.clear(); // Sxx, Syy become live-outs
  GroupSchedule second = s.groups[0];
  s.groups[0].stages = {"Ix", "Iy", "Ixx", "Iyy", "Ixy"};
  s.groups[0].tile_sizes = {9, 14};
  second.stages = {"Sxx", "Syy", "Sxy", "det", "trace", "harris"};
  second.tile_sizes = {5, 1000};
  second.shape = TileShape::PolyMage;
  s.groups = {second, s.groups[0]}; // listed out of order on purpose
  return s;
}

// harris with Ix read both inside its tiled group (by Ixx) and by the next
// group (Ixy): a live-out with a consumer in its own group.
Schedule harris_shared_live_out(const Pipeline& p) {
  Schedule s = apps::make_manual_schedule_harris(p);
  s.storage.clear(); // Sxx becomes a live-out
  GroupSchedule second = s.groups[0];
  s.groups[0].stages = {"Ix", "Ixx", "Sxx"};
  s.groups[0].tile_sizes = {7, 12};
  second.stages = {"Iy", "Iyy", "Ixy", "Syy", "Sxy", "det", "trace", "harris"};
  second.tile_sizes = {11, 6};
  s.groups.push_back(second);
  return s;
}

std::vector<TilingCase> all_cases() {
  const auto scalene = TileShape::Scalene, polymage = TileShape::PolyMage;
  const auto rectangle = TileShape::Rectangle;
  const auto scratch = Storage::Scratchpad, full = Storage::Full, inlined = Storage::Inlined;
  const auto blur = &apps::make_manual_schedule_blur;
  const auto unsharp = &apps::make_manual_schedule_unsharp;
  const auto harris = &apps::make_manual_schedule_harris;
  return {
      {"blur", "manual", blur},
      {"blur", "scalene_7x13", variant(blur, {7, 13}, scalene)},
      {"blur", "polymage_7x13", variant(blur, {7, 13}, polymage, {}, 2)},
      {"blur", "scalene_1x1", variant(blur, {1, 1}, scalene)},
      {"blur", "polymage_huge_full", variant(blur, {1000, 1000}, polymage, {{"blurx", full}})},
      {"blur", "untiled_group", variant(blur, {}, scalene)},
      {"blur", "scalene_inner_5x9", variant(blur, {32, 64}, scalene, {}, 2, {5, 9})},
      {"blur", "polymage_inner_1x1", variant(blur, {6, 10}, polymage, {}, 1, {1, 1})},
      {"blur", "scalene_inlined_blurx", variant(blur, {4, 9}, scalene, {{"blurx", inlined}})},
      {"blur", "rectangle_7x13", variant(blur, {7, 13}, rectangle)},
      {"blur", "rectangle_untiled", variant(blur, {}, rectangle)},
      {"unsharp", "manual", unsharp},
      {"unsharp", "scalene_scratchpad_2x5x11",
       variant(unsharp, {2, 5, 11}, scalene, {{"sharpen", scratch}}, 3)},
      {"unsharp", "polymage_inlined_1x3x7", variant(unsharp, {1, 3, 7}, polymage)},
      {"unsharp", "polymage_scratchpad_huge",
       variant(unsharp, {3, 1000, 1000}, polymage, {{"sharpen", scratch}}, 0)},
      {"unsharp", "scalene_inner_1x3x100",
       variant(unsharp, {2, 16, 512}, scalene, {}, 2, {1, 3, 100})},
      {"unsharp", "scalene_inlined_1_wide", variant(unsharp, {1, 1, 1}, scalene)},
      {"unsharp", "rectangle_scratchpad_2x5x11",
       variant(unsharp, {2, 5, 11}, rectangle, {{"sharpen", scratch}}, 2)},
      {"unsharp", "rectangle_inner_1x3x100",
       variant(unsharp, {2, 16, 512}, rectangle, {}, 2, {1, 3, 100})},
      {"unsharp", "manual_static_tiles",
       [](const Pipeline& p) {
         Schedule s = apps::make_manual_schedule_unsharp(p);
         s.groups[0].parallel_schedule = ParallelSchedule::Static;
         return s;
       }},
      {"unsharp", "naive_dynamic_rows",
       [](const Pipeline& p) {
         Schedule s = Schedule::naive(p);
         for (GroupSchedule& g : s.groups)
           g.parallel_schedule = ParallelSchedule::Dynamic;
         return s;
       }},
      {"unsharp", "manual_chunked_tiles",
       [](const Pipeline& p) {
         Schedule s = apps::make_manual_schedule_unsharp(p);
         s.groups[0].parallel_schedule = ParallelSchedule::Chunked;
         return s;
       }},
      {"unsharp", "naive_static_rows",
       [](const Pipeline& p) {
         Schedule s = Schedule::naive(p);
         for (GroupSchedule& g : s.groups)
           g.parallel_schedule = ParallelSchedule::Static;
         return s;
       }},
      {"harris", "manual", harris},
      {"harris", "polymage_6x10", variant(harris, {6, 10}, polymage)},
      {"harris", "scalene_1x5", variant(harris, {1, 5}, scalene, {}, 2)},
      {"harris", "scalene_huge", variant(harris, {500, 500}, scalene, {{"Ixx", full}})},
      {"harris", "two_groups", harris_two_groups},
      {"harris", "shared_live_out", harris_shared_live_out},
      {"harris", "polymage_inner_3x7", variant(harris, {16, 40}, polymage, {}, 2, {3, 7})},
      {"harris", "scalene_inner_4x11", variant(harris, {20, 1000}, scalene, {}, 1, {4, 11})},
      {"harris", "rectangle_9x14", variant(harris, {9, 14}, rectangle, {}, 2)},
      {"harris", "rectangle_1x1", variant(harris, {1, 1}, rectangle)},
      // Stages with cases inlined: each case resolved by its box where the
      // read provably lies inside it, a lazy select elsewhere.
      {"harris", "scalene_inlined_cases_9x14",
       variant(harris, {9, 14}, scalene,
               {{"Sxx", inlined},
                {"Syy", inlined},
                {"Sxy", inlined},
                {"det", inlined},
                {"trace", inlined}})},
      {"harris", "polymage_inlined_products_5x3",
       variant(harris, {5, 3}, polymage, {{"Ixx", inlined}, {"Iyy", inlined}, {"Ixy", inlined}},
               2)},
      {"harris", "rectangle_inlined_all_but_gradients",
       variant(harris, {6, 20}, rectangle,
               {{"Ixx", inlined},
                {"Iyy", inlined},
                {"Ixy", inlined},
                {"Sxx", inlined},
                {"Syy", inlined},
                {"Sxy", inlined},
                {"det", inlined},
                {"trace", inlined}})},
      {"harris", "scalene_no_intra_tile_fusion",
       [](const Pipeline& p) {
         Schedule s = apps::make_manual_schedule_harris(p);
         s.groups[0].intra_tile_fusion = false;
         return s;
       }},
  };
}

class TiledScheduleMatchesInterpreter : public testing::TestWithParam<TilingCase> {};

TEST_P(TiledScheduleMatchesInterpreter, AtSmallAndOddSizes) {
  const apps::App& app = apps::find_app(GetParam().app);
  const Pipeline p = app.build();
  const CompiledPipeline compiled = compile(p, GetParam().schedule(p));
  std::vector<ParamValues> sizes = {app.small_size, app.size_for_image(37, 61),
                                    app.size_for_image(8, 9)};
  int threads = 1;
  for (const ParamValues& size : sizes) {
    const ParamValues bound = p.bind(size);
    const BufferMap inputs = app.make_inputs(p, bound);
    const BufferMap expected = interpret(p, bound, inputs);
    const BufferMap actual = compiled.run(bound, inputs, threads);
    threads = 3 - threads; // alternate 1 and 2 threads
    for (const auto& out : p.outputs()) {
      const auto mismatch =
          compare_buffers(expected.at(out->name()), actual.at(out->name()),
                          output_tolerance(p, *out, compiled.reassociated_sums(), app.tolerance));
      EXPECT_FALSE(mismatch.has_value()) << GetParam().label << " output " << out->name() << ": "
                                         << (mismatch ? mismatch->str() : "") << "\n"
                                         << compiled.source();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Apps, TiledScheduleMatchesInterpreter, testing::ValuesIn(all_cases()),
                         case_name);

// A sampled group: D halves A's rows, U reads D at x/2 (common space: A and U
// at x, D at 2x), with a column stencil on D.
Pipeline down_up() {
  Param N("N"), M("M");
  Var x("x"), y("y");
  Image img("img", ScalarType::Float32, {2 * N + 2, M});
  Func A("A", ScalarType::Float32, {x, y}, {{0, 2 * N + 1}, {0, M - 1}});
  A.define(img(x, y) * 0.5f);
  Func D("D", ScalarType::Float32, {x, y}, {{0, N}, {0, M - 1}});
  D.define(A(2 * x, y) + A(2 * x + 1, y));
  Func U("U", ScalarType::Float32, {x, y}, {{0, 2 * N + 1}, {1, M - 2}});
  U.define(D(x / 2, y - 1) + D(x / 2, y + 1) + A(x, y));
  return Pipeline({U}, "down_up");
}

TEST(SampledGroup, MatchesInterpreterForEveryShape) {
  const Pipeline p = down_up();
  for (const TileShape shape : {TileShape::Scalene, TileShape::PolyMage, TileShape::Rectangle}) {
    for (const std::vector<std::int64_t>& sizes :
         {std::vector<std::int64_t>{5, 7}, std::vector<std::int64_t>{1, 1},
          std::vector<std::int64_t>{9, 8, 3, 2}}) {
      GroupSchedule g;
      g.stages = {"A", "D", "U"};
      g.tile_sizes = {sizes[0], sizes[1]};
      if (sizes.size() == 4) g.inner_tile_sizes = {sizes[2], sizes[3]};
      g.shape = shape;
      Schedule s;
      s.groups = {g};
      const CompiledPipeline compiled = compile(p, s);
      for (const auto& [n, m] : {std::pair<std::int64_t, std::int64_t>{6, 11}, {1, 3}}) {
        const ParamValues bound = p.bind({{"N", n}, {"M", m}});
        Buffer img(ScalarType::Float32, {2 * n + 2, m});
        for (std::int64_t i = 0; i < 2 * n + 2; ++i)
          for (std::int64_t j = 0; j < m; ++j)
            img.at<float>({i, j}) = static_cast<float>((i * 7 + j * 3) % 11);
        const BufferMap inputs = {{"img", img}};
        const BufferMap expected = interpret(p, bound, inputs);
        const BufferMap actual = compiled.run(bound, inputs, 2);
        const auto mismatch = compare_buffers(expected.at("U"), actual.at("U"), 0);
        EXPECT_FALSE(mismatch.has_value())
            << tile_shape_name(shape) << " tiles " << sizes[0] << "x" << sizes[1] << " at N=" << n
            << ", M=" << m << ": " << (mismatch ? mismatch->str() : "") << "\n"
            << compiled.source();
      }
    }
  }
}

// Expects `compiled`'s output `output`, run with `threads` threads on
// `inputs` at `bound`, to equal the interpreter's within `tolerance`; `label`
// names the case in a failure, which prints the generated C++ too.
void expect_output_matches_interpreter(const Pipeline& p, const CompiledPipeline& compiled,
                                       const ParamValues& bound, const BufferMap& inputs,
                                       const std::string& output, const std::string& label,
                                       double tolerance = 0, int threads = 2) {
  const auto mismatch = compare_buffers(interpret(p, bound, inputs).at(output),
                                        compiled.run(bound, inputs, threads).at(output), tolerance);
  EXPECT_FALSE(mismatch.has_value()) << label << ": " << (mismatch ? mismatch->str() : "") << "\n"
                                     << compiled.source();
}

// Runs `compiled` at each size (N, M) on the float image "img" of extents
// extents(N, M), element (i, j) fill(i, j), and expects its output `output` to
// equal the interpreter's exactly; `label` names the case in a failure.
void expect_matches_interpreter(
    const Pipeline& p, const CompiledPipeline& compiled, const std::string& output,
    std::initializer_list<std::pair<std::int64_t, std::int64_t>> sizes,
    const std::function<std::vector<std::int64_t>(std::int64_t, std::int64_t)>& extents,
    const std::function<float(std::int64_t, std::int64_t)>& fill, const std::string& label) {
  for (const auto& [n, m] : sizes) {
    const ParamValues bound = p.bind({{"N", n}, {"M", m}});
    const std::vector<std::int64_t> shape = extents(n, m);
    Buffer img(ScalarType::Float32, shape);
    for (std::int64_t i = 0; i < shape[0]; ++i)
      for (std::int64_t j = 0; j < shape[1]; ++j)
        img.at<float>({i, j}) = fill(i, j);
    expect_output_matches_interpreter(p, compiled, bound, {{"img", img}}, output,
                                      label + " N=" + std::to_string(n) +
                                          ", M=" + std::to_string(m));
  }
}

// Inlining stages with cases where the reader's points straddle the case
// boxes. B (pure, over the whole row) reads A at x and x + 1, and A's first
// case reads img only inside its box, so the select B gets must stay lazy; A's
// second case has a residual that reads memory. C (cases) reads A both inside
// and across A's boxes.
Pipeline straddling_cases() {
  Param N("N"), M("M");
  Var x("x"), y("y");
  Image img("img", ScalarType::Float32, {N + 2, M});
  Func A("A", ScalarType::Float32, {x, y}, {{0, N + 1}, {0, M - 1}});
  A.define({Case(x.in(1, N), img(x - 1, y) + img(x + 1, y)),
            Case(x == 0 && img(x, y) > 0.5f, img(x, y) * 3.0f)},
           -1.0f);
  Func B("B", ScalarType::Float32, {x, y}, {{0, N}, {0, M - 1}});
  B.define(A(x, y) - A(x + 1, y));
  Func C("C", ScalarType::Float32, {x, y}, {{0, N}, {0, M - 1}});
  C.define({Case(x.in(2, N - 1), A(x - 1, y) * A(x + 1, y) + B(x, y)),
            Case(y.in(1, M - 2), A(x, y - 1) + B(x, y))},
           B(x, y));
  return Pipeline({C}, "straddling_cases");
}

// Intra-tile fusion of stages written over different variable names (B's
// loops are renamed to A's), and of a stage with cases with a pure one of
// other bounds (not fused): every shape matches the interpreter.
Pipeline renamed_consumers() {
  Param N("N"), M("M");
  Var x("x"), y("y"), u("u"), v("v");
  Image img("img", ScalarType::Float32, {N + 2, M + 2});
  Func P("P", ScalarType::Float32, {x, y}, {{1, N}, {1, M}});
  P.define(img(x - 1, y) + img(x + 1, y + 1));
  Func A("A", ScalarType::Float32, {x, y}, {{1, N}, {1, M}});
  A.define(P(x, y) * 2.0f);
  Func B("B", ScalarType::Float32, {u, v}, {{1, N}, {1, M}});
  B.define(P(u, v) - 1.0f);
  Func D("D", ScalarType::Float32, {x, y}, {{1, N}, {1, M}});
  D.define({Case(x.in(2, N - 1), P(x - 1, y) + P(x + 1, y))}, 0.5f);
  Func C("C", ScalarType::Float32, {x, y}, {{1, N}, {1, M}});
  C.define(A(x, y) * B(x, y) + D(x, y));
  return Pipeline({C}, "renamed_consumers");
}

TEST(IntraTileFusion, RenamedLoopsMatchInterpreter) {
  const Pipeline p = renamed_consumers();
  for (const TileShape shape : {TileShape::Scalene, TileShape::PolyMage, TileShape::Rectangle}) {
    GroupSchedule g;
    g.stages = {"P", "A", "B", "D", "C"};
    g.tile_sizes = {3, 7};
    g.shape = shape;
    Schedule s;
    s.groups = {g};
    const std::string ir = testing_support::lowered_text(p, s);
    EXPECT_THAT(ir, testing::HasSubstr("A, B: one fused nest")) << tile_shape_name(shape);
    EXPECT_THAT(ir, testing::Not(testing::HasSubstr("B(u, v)"))) << "B's loops not renamed";
    expect_matches_interpreter(
        p, compile(p, s), "C", {{10, 13}, {1, 1}, {2, 5}},
        [](std::int64_t n, std::int64_t m) {
          return std::vector<std::int64_t>{n + 2, m + 2};
        },
        [](std::int64_t i, std::int64_t j) {
          return static_cast<float>((i * 3 + j * 5) % 9) / 8.0f;
        },
        tile_shape_name(shape));
  }
}

// Inlining rule 6 (docs/autoschedule.md): P, a stencil of the image, is
// inlined into A and B, which read it at their own point over one box; intra-
// tile fusion computes them in one nest, and out reads both at two points.
// dp makes this choice (Inlining.AStageReadAtTheirOwnPointByConsumersOfOneNest
// IsInlined); here every shape runs it against the interpreter.
TEST(IntraTileFusion, AStencilInlinedIntoConsumersOfOneNestMatchesInterpreter) {
  Param N("N"), M("M");
  Var x("x"), y("y");
  Image img("img", ScalarType::Float32, {N + 2, M});
  Func P("P", ScalarType::Float32, {x, y}, {{1, N}, {0, M - 1}});
  P.define(img(x - 1, y) - img(x + 1, y));
  Func A("A", ScalarType::Float32, {x, y}, {{1, N}, {0, M - 1}});
  A.define(P(x, y) * P(x, y));
  Func B("B", ScalarType::Float32, {x, y}, {{1, N}, {0, M - 1}});
  B.define(P(x, y) * 0.5f + 1.0f);
  Func out("out", ScalarType::Float32, {x, y}, {{2, N - 1}, {0, M - 1}});
  out.define(A(x - 1, y) + A(x + 1, y) - B(x - 1, y) * B(x + 1, y));
  const Pipeline p({out}, "shared_stencil");
  for (const TileShape shape : {TileShape::Scalene, TileShape::PolyMage, TileShape::Rectangle}) {
    GroupSchedule g;
    g.stages = {"P", "A", "B", "out"};
    g.tile_sizes = {4, 5};
    g.shape = shape;
    Schedule s;
    s.groups = {g};
    s.storage["P"] = Storage::Inlined;
    EXPECT_THAT(testing_support::lowered_text(p, s), testing::HasSubstr("A, B: one fused nest"))
        << tile_shape_name(shape);
    expect_matches_interpreter(
        p, compile(p, s), "out", {{11, 13}, {3, 1}, {5, 9}},
        [](std::int64_t n, std::int64_t m) {
          return std::vector<std::int64_t>{n + 2, m};
        },
        [](std::int64_t i, std::int64_t j) {
          return static_cast<float>((i * 7 + j * 3) % 11) / 8.0f;
        },
        tile_shape_name(shape));
  }
}

TEST(SharedScratchpads, MatchInterpreterForEveryShapeAndThreadCount) {
  // s1 and s3 take turns in one per-thread buffer: tiles with and without
  // clipped edges, 1 and 3 workers, images no larger than a tile.
  const Pipeline p = testing_support::stencil_chain();
  for (const TileShape shape : {TileShape::Scalene, TileShape::PolyMage, TileShape::Rectangle}) {
    for (const std::vector<std::int64_t>& tiles :
         {std::vector<std::int64_t>{5, 7}, std::vector<std::int64_t>{16, 32}}) {
      Schedule s = apps::fuse_all_stages(p, tiles, 1, "test: s1 and s3 share");
      s.groups[0].shape = shape;
      // Rectangle tiles run their stages band by band, each band reading
      // the last's values: every buffer lives through the band loop.
      const std::string ir = testing_support::lowered_text(p, s);
      if (shape == TileShape::Rectangle)
        ASSERT_THAT(ir, testing::Not(testing::HasSubstr("in the memory of")));
      else
        ASSERT_THAT(ir, testing::HasSubstr("holds s1, s3"));
      const CompiledPipeline compiled = compile(p, s);
      for (const std::int64_t n : {16, 23, 41}) {
        const ParamValues bound = p.bind({{"n", n}});
        Buffer img(ScalarType::Float32, {n, n});
        for (std::int64_t i = 0; i < n; ++i)
          for (std::int64_t j = 0; j < n; ++j)
            img.at<float>({i, j}) = static_cast<float>((i * 7 + j * 3) % 11) / 10.0f;
        const BufferMap inputs = {{"img", img}};
        const BufferMap expected = interpret(p, bound, inputs);
        for (const int threads : {1, 3}) {
          const BufferMap actual = compiled.run(bound, inputs, threads);
          const auto mismatch = compare_buffers(expected.at("out"), actual.at("out"), 0);
          EXPECT_FALSE(mismatch.has_value())
              << tile_shape_name(shape) << " tiles " << tiles[0] << "x" << tiles[1] << " n=" << n
              << " threads " << threads << ": " << (mismatch ? mismatch->str() : "");
        }
      }
    }
  }
}

TEST(InlinedCases, ADivisorThatFoldsToZeroDividesToZero) {
  // Fuzz seed 220014: ch4 is 0 at every point; inlined into up6 as its
  // divisor and folded after parity splitting, the division became one by
  // the constant 0, which lowering rejected as if a user had written it. It
  // yields 0, as any integer division by zero does (docs/dsl.md).
  const Pipeline p = parse_pipeline(R"(# trapeze pipeline text form, version 1
pipeline zero_divisor
param M: int64 >= 3 = 5
param N: int64 >= 3 = 4
input in0: float32[2 * N + 5][4 * M + 4]
stage ch4(x, y): int32 on [0, 2 * N + 4] x [0, 4 * M + 3]
  = (int32(min(max(in0(x, y) * 64.0f, -3e+04f), 3e+04f)) + int32(min(max(in0(x, y) * 64.0f, -3e+04f), 3e+04f)) * -1) % 100003
stage up6(x, y): uint16 on [0, 4 * N + 9] x [-1, 4 * M + 2]
  = uint16(trunc_div(ch4(x / 2, y + 1) + ch4(x / 2, y + 1) * 3 + ch4(x / 2, y + 1) * -1, ch4(x / 2, y + 1)))
stage st7(x, y): float32 on [1, 4 * N + 8] x [1, 4 * M + 1]
  = float32(up6(x, y + 1)) * 0.75f + float32(up6(x, y - 2)) * 1.25f
output st7
)");
  GroupSchedule g;
  g.stages = {"ch4", "up6", "st7"};
  g.tile_sizes = {79, 21};
  Schedule s;
  s.groups = {g};
  s.storage["ch4"] = Storage::Inlined;
  const CompiledPipeline compiled = compile(p, s);
  const ParamValues bound = p.bind({});
  Buffer in0(ScalarType::Float32, {13, 24});
  for (std::int64_t i = 0; i < 13; ++i)
    for (std::int64_t j = 0; j < 24; ++j)
      in0.at<float>({i, j}) = static_cast<float>((i * 5 + j * 3) % 7) / 6.0f;
  expect_output_matches_interpreter(p, compiled, bound, {{"in0", in0}}, "st7", "st7");
}

TEST(InlinedCases, MatchInterpreterForEveryShapeAndStorage) {
  const Pipeline p = straddling_cases();
  for (const TileShape shape : {TileShape::Scalene, TileShape::PolyMage, TileShape::Rectangle}) {
    for (const auto& inlined : {std::vector<std::string>{"A"}, std::vector<std::string>{"A", "B"},
                                std::vector<std::string>{"B"}}) {
      GroupSchedule g;
      g.stages = {"A", "B", "C"};
      g.tile_sizes = {4, 5};
      g.shape = shape;
      Schedule s;
      s.groups = {g};
      for (const std::string& name : inlined)
        s.storage[name] = Storage::Inlined;
      expect_matches_interpreter(
          p, compile(p, s), "C", {{9, 13}, {1, 1}, {3, 2}},
          [](std::int64_t n, std::int64_t m) {
            return std::vector<std::int64_t>{n + 2, m};
          },
          [](std::int64_t i, std::int64_t j) {
            return static_cast<float>((i * 5 + j * 3) % 7) / 6.0f;
          },
          std::string(tile_shape_name(shape)) + " with " + std::to_string(inlined.size()) +
              " inlined,");
    }
  }
}

// Case partitioning: the boundary cases of support/sample_pipelines.h, with
// and without the declared range that orders them, naive and tiled in every
// shape, bounds-checked, against the interpreter at the smallest sizes.
TEST(PartitionCases, MatchInterpreterWithAndWithoutRanges) {
  CompileOptions checked;
  checked.bounds_check = true;
  for (const bool ranged : {false, true}) {
    const Pipeline p = testing_support::boundary_cases(ranged);
    std::vector<Schedule> schedules = {Schedule::naive(p)};
    for (const TileShape shape : {TileShape::Scalene, TileShape::PolyMage, TileShape::Rectangle}) {
      Schedule s;
      s.groups = {GroupSchedule{}};
      s.groups[0].stages = {"g", "h"};
      s.groups[0].tile_sizes = {2, 3};
      s.groups[0].shape = shape;
      s.groups[0].parallel_tile_dims = 2;
      schedules.push_back(s);
    }
    for (const Schedule& s : schedules) {
      const CompiledPipeline compiled = compile(p, s, checked);
      for (const std::int64_t n : {1, 2, 7}) {
        const ParamValues bound = p.bind({{"n", n}});
        Buffer img(ScalarType::Float32, {n + 2, n + 2});
        for (std::int64_t i = 0; i < img.size(); ++i)
          img.set_from_double(i, static_cast<double>((i * 5) % 11));
        expect_output_matches_interpreter(p, compiled, bound, {{"img", img}}, "h",
                                          std::string(ranged ? "ranged" : "unranged") +
                                              " n=" + std::to_string(n));
      }
    }
  }
}

// The naive schedule, and every stage of `p` in one group of `tiles` in
// each tile shape, `inlined` inlined.
std::vector<Schedule> naive_and_one_group_in_every_shape(const Pipeline& p,
                                                         const std::vector<std::int64_t>& tiles,
                                                         const std::string& inlined) {
  std::vector<Schedule> schedules = {Schedule::naive(p)};
  for (const TileShape shape : {TileShape::Scalene, TileShape::PolyMage, TileShape::Rectangle}) {
    Schedule s;
    s.groups = {GroupSchedule{}};
    for (const auto& stage : p.stages())
      s.groups[0].stages.push_back(stage->name());
    s.groups[0].tile_sizes = tiles;
    s.groups[0].shape = shape;
    s.storage[inlined] = Storage::Inlined;
    schedules.push_back(s);
  }
  return schedules;
}

// partition_parity in 3-D: the rows outside whole groups, split along the
// innermost dimension only, with a boundary case, naive and tiled in every
// shape, bounds-checked, at sizes where whole groups are many, one or none.
TEST(PartitionParity, ThreeDimensionsMatchInterpreter) {
  const Pipeline p = testing_support::parity_sampling_3d();
  CompileOptions checked;
  checked.bounds_check = true;
  for (const Schedule& s : naive_and_one_group_in_every_shape(p, {3, 5, 7}, "fine")) {
    const CompiledPipeline compiled = compile(p, s, checked);
    for (const std::int64_t n : {6, 1, 2}) {
      const ParamValues bound = p.bind({{"N", n}});
      Buffer img(ScalarType::Float32, {n + 2, n + 2, n + 2});
      Buffer fine_in(ScalarType::Float32, {2 * n + 2, 2 * n + 2, 2 * n + 2});
      for (std::int64_t i = 0; i < img.size(); ++i)
        img.set_from_double(i, static_cast<double>((i * 7) % 10) / 4.0);
      for (std::int64_t i = 0; i < fine_in.size(); ++i)
        fine_in.set_from_double(i, static_cast<double>((i * 5) % 11) / 8.0);
      expect_output_matches_interpreter(p, compiled, bound, {{"img", img}, {"fine_in", fine_in}},
                                        "up", "N=" + std::to_string(n));
    }
  }
}

// partition_parity: up-sampling and interleaving with odd starts, naive and
// tiled in every shape, bounds-checked, against the interpreter at sizes
// where the whole groups of two are many, one or none.
TEST(PartitionParity, MatchInterpreter) {
  const Pipeline p = testing_support::parity_sampling();
  CompileOptions checked;
  checked.bounds_check = true;
  for (const Schedule& s : naive_and_one_group_in_every_shape(p, {5, 7}, "up")) {
    const CompiledPipeline compiled = compile(p, s, checked);
    for (const auto& [n, m] : {std::pair<std::int64_t, std::int64_t>{9, 13}, {1, 1}, {2, 1}}) {
      const ParamValues bound = p.bind({{"N", n}, {"M", m}});
      Buffer img(ScalarType::Float32, {n + 2, m + 2});
      for (std::int64_t i = 0; i < img.size(); ++i)
        img.set_from_double(i, static_cast<double>((i * 7) % 10) / 4.0);
      expect_output_matches_interpreter(p, compiled, bound, {{"img", img}}, "even",
                                        "N=" + std::to_string(n) + ", M=" + std::to_string(m));
    }
  }
}

// Stages lacking a dimension of their group's common space: gray (x, y)
// reads rgb (c, x, y) at the fixed channels 0..2, out (c, x, y) reads gray
// whatever its channel, and gray and edge (x, y) are outputs too. Tiled
// along c with parallel tiles, every tile needs rgb's three channels, and
// only the first tile along c may write gray and edge (no two tiles write the
// same point). Runs bounds-checked too: a scratchpad sized for the tile alone
// (fuzz seed 100345) stops the run.
Pipeline gray_and_color() {
  Param N("N"), M("M");
  Var c("c"), x("x"), y("y");
  Image img("img", ScalarType::Float32, {3, N + 2, M + 2});
  Func rgb("rgb", ScalarType::Float32, {c, x, y}, {{0, 2}, {0, N + 1}, {0, M + 1}});
  rgb.define(img(c, x, y) * 2.0f);
  Func gray("gray", ScalarType::Float32, {x, y}, {{0, N + 1}, {0, M + 1}});
  gray.define(rgb(0, x, y) * 0.25f + rgb(1, x, y) * 0.5f + rgb(2, x, y) * 0.125f);
  Func out("out", ScalarType::Float32, {c, x, y}, {{0, 2}, {1, N}, {1, M}});
  out.define(rgb(c, x, y + 1) * gray(x, y) + gray(x, y - 1));
  Func edge("edge", ScalarType::Float32, {x, y}, {{1, N}, {1, M}});
  edge.define(gray(x + 1, y) - gray(x - 1, y));
  return Pipeline({out, edge, gray}, "gray_and_color");
}

TEST(MissingDimensions, MatchInterpreterForEveryShapeAndTiling) {
  const Pipeline p = gray_and_color();
  CompileOptions checked;
  checked.bounds_check = true;
  for (const TileShape shape : {TileShape::Scalene, TileShape::PolyMage, TileShape::Rectangle}) {
    for (const auto& [sizes, inner] :
         {std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>>{{1, 5, 7}, {}},
          {{2, 3, 4}, {1, 1, 2}},
          {{1, 1, 1}, {}},
          {{5, 100, 100}, {}}}) {
      GroupSchedule g;
      g.stages = {"rgb", "gray", "out", "edge"};
      g.tile_sizes = sizes;
      g.inner_tile_sizes = inner;
      g.shape = shape;
      g.parallel_tile_dims = 2;
      Schedule s;
      s.groups = {g};
      s.storage["rgb"] = Storage::Scratchpad;
      for (const CompileOptions& options : {CompileOptions{}, checked}) {
        const CompiledPipeline compiled = compile(p, s, options);
        for (const auto& [n, m] : {std::pair<std::int64_t, std::int64_t>{7, 12}, {1, 2}}) {
          const ParamValues bound = p.bind({{"N", n}, {"M", m}});
          Buffer img(ScalarType::Float32, {3, n + 2, m + 2});
          for (std::int64_t i = 0; i < img.size(); ++i)
            img.set_from_double(i, static_cast<double>((i * 7) % 13) / 12.0);
          const BufferMap inputs = {{"img", img}};
          const BufferMap expected = interpret(p, bound, inputs);
          const BufferMap actual = compiled.run(bound, inputs, 2);
          for (const std::string name : {"out", "edge", "gray"}) {
            const auto mismatch = compare_buffers(expected.at(name), actual.at(name), 0);
            EXPECT_FALSE(mismatch.has_value())
                << tile_shape_name(shape) << " tiles " << sizes[0] << "x" << sizes[1] << "x"
                << sizes[2] << (options.bounds_check ? " (bounds-checked)" : "") << ", output "
                << name << " at N=" << n << ", M=" << m << ": " << (mismatch ? mismatch->str() : "")
                << "\n"
                << compiled.source();
          }
        }
      }
    }
  }
}

// Prefetching live-ins (GroupSchedule::prefetch) is a hint: every shape and
// tiling, at 1, 2 and 8 rows ahead, matches the interpreter, bounds-checked
// (each prefetched address is checked as a load's is): a down-sampling read
// with a read in a select's arm, and a chain of stencils whose tiles' first
// and last rows reach the image's edges.
TEST(PrefetchRows, MatchInterpreterForEveryShapeAndDistance) {
  CompileOptions checked;
  checked.bounds_check = true;
  const std::vector<std::pair<Pipeline, std::vector<std::vector<std::int64_t>>>> cases = {
      {testing_support::prefetched_reads(), {{1, 8, 32}, {3, 1, 5}, {1, 100, 100}}},
      {testing_support::stencil_chain(), {{8, 16}, {1, 5}, {100, 100}}}};
  for (const auto& [p, tilings] : cases) {
    for (const TileShape shape : {TileShape::Scalene, TileShape::PolyMage, TileShape::Rectangle}) {
      for (std::size_t t = 0; t < tilings.size(); ++t) {
        const int distance = t == 0 ? 1 : t == 1 ? 2 : max_prefetch_rows;
        Schedule s = apps::fuse_all_stages(p, tilings[t], 1, "test");
        s.groups[0].shape = shape;
        for (const auto& input : p.inputs())
          s.groups[0].prefetch[input->name()] = distance;
        const CompiledPipeline compiled = compile(p, s, checked);
        EXPECT_THAT(compiled.source(), testing::HasSubstr("__builtin_prefetch(&tz_checked("));
        for (const std::int64_t n : {2, 3, 17, 40}) {
          if (p.name() == "stencil_chain" && n < 16) continue;
          const ParamValues bound = p.bind({{"n", n}});
          BufferMap inputs;
          for (const auto& input : p.inputs()) {
            const Box box = concrete_domain(*input, bound);
            std::vector<std::int64_t> extents;
            for (int d = 0; d < box.dimensions(); ++d)
              extents.push_back(box.extent(d));
            Buffer b(input->type(), extents);
            for (std::int64_t i = 0; i < b.size(); ++i)
              b.set_from_double(i, static_cast<double>((i * 7) % 13) / 6.0);
            inputs.emplace(input->name(), b);
          }
          const BufferMap expected = interpret(p, bound, inputs);
          const BufferMap actual = compiled.run(bound, inputs, 2);
          const auto mismatch = compare_buffers(expected.at("out"), actual.at("out"), 0);
          EXPECT_FALSE(mismatch.has_value())
              << p.name() << ", " << tile_shape_name(shape) << " tiling " << t << ", " << distance
              << " rows ahead, n=" << n << ": " << (mismatch ? mismatch->str() : "") << "\n"
              << compiled.source();
        }
      }
    }
  }
}

// A look-up whose index reads an inlined stage with cases (fuzz seed 140172):
// where the read's case is the constant default, the index no longer reads
// memory once inlined, yet it must still be clamped into the looked-up
// stage's domain, as the interpreter clamps it. 0.25 * 64 = 16 lies beyond
// small's domain [1, 6].
TEST(InlinedCases, LookUpThroughAConstantCaseIsClamped) {
  Param N("N");
  Var x("x");
  Image img("img", ScalarType::Float32, {N + 2});
  Func small("small", ScalarType::Float32, {x}, {{1, 6}});
  small.define(img(x) * 0.5f);
  Func level("level", ScalarType::Float32, {x}, {{-1, N + 1}});
  level.define({Case(x >= 1 && x <= 6, small(x) * 0.125f)}, 0.25f);
  Func look("look", ScalarType::Float32, {x}, {{0, 2 * N + 2}});
  look.define(small(cast<int>(level(x / 2) * 64.0f)) + level(x / 2));
  const Pipeline p({look}, "constant_case_lookup");
  CompileOptions checked;
  checked.bounds_check = true;
  std::vector<Schedule> schedules;
  for (const bool tiled : {false, true}) {
    Schedule s;
    s.groups = {GroupSchedule{}, GroupSchedule{}};
    s.groups[0].stages = {"small"};
    s.groups[1].stages = {"level", "look"};
    if (tiled) s.groups[1].tile_sizes = {3};
    s.storage["level"] = Storage::Inlined;
    schedules.push_back(s);
  }
  for (const Schedule& s : schedules) {
    const CompiledPipeline compiled = compile(p, s, checked);
    for (const std::int64_t n : {std::int64_t{10}, std::int64_t{20}}) {
      const ParamValues bound = p.bind({{"N", n}});
      Buffer pixels(ScalarType::Float32, {n + 2});
      for (std::int64_t i = 0; i < pixels.size(); ++i)
        pixels.set_from_double(i, static_cast<double>(i % 5));
      expect_output_matches_interpreter(p, compiled, bound, {{"img", pixels}}, "look",
                                        "N=" + std::to_string(n));
    }
  }
}

// A stage left unsplit (its x / 4 indexes gathers) beside one split by 4, in
// one fused group and naive, against the interpreter at sizes where the whole
// groups of four are many, one or none.
TEST(PartitionParity, GathersLeftUnsplitMatchInterpreter) {
  const Pipeline p = testing_support::gather_sampling();
  Schedule fused;
  fused.groups = {GroupSchedule{}, GroupSchedule{}};
  fused.groups[0].stages = {"grid"};
  fused.groups[1].stages = {"sliced", "upsampled"};
  fused.groups[1].tile_sizes = {13};
  for (const Schedule& s : {Schedule::naive(p), fused}) {
    const CompiledPipeline compiled = compile(p, s);
    for (const std::int64_t n : {9, 1, 2}) {
      const ParamValues bound = p.bind({{"N", n}});
      Buffer img(ScalarType::Float32, {4 * n});
      for (std::int64_t i = 0; i < img.size(); ++i)
        img.set_from_double(i, static_cast<double>((i * 7) % 11) / 10.0 - 0.1);
      expect_output_matches_interpreter(p, compiled, bound, {{"img", img}}, "upsampled",
                                        "N=" + std::to_string(n));
    }
  }
}

// Data wraps, indices do not (fuzz seed 173595): splitting a stage by the
// parity of x / 2 folds its expressions, and (2a + 2b) / 2 is a + b only for
// indices. For values read from an image, int32 arithmetic wraps (2 * 2^30
// is -2^31), so the folded expression would differ from the interpreter's.
TEST(ParityPartition, ArithmeticOnDataIsNotFoldedAsIfItCouldNotWrap) {
  Param N("N");
  Var x("x");
  Image img("img", ScalarType::Int32, {N});
  Func up("up", ScalarType::Int32, {x}, {{0, 2 * N - 1}});
  up.define((img(x / 2) * 2 + img(x / 2) * 2) / 2 + (img(x / 2) + 1 > img(x / 2)));
  const Pipeline p({up}, "wrapping_data");
  const CompiledPipeline compiled = compile(p, Schedule::naive(p));
  EXPECT_THAT(compiled.source(), testing::HasSubstr("x_coarse")) << "not split by parity";
  const ParamValues bound = p.bind({{"N", std::int64_t{6}}});
  Buffer values(ScalarType::Int32, {6});
  const std::int32_t samples[] = {1, -7, 1 << 30, (1 << 30) + 3, 2147483647, -2147483647 - 1};
  for (std::int64_t i = 0; i < 6; ++i)
    values.set_from_double(i, samples[i]);
  expect_output_matches_interpreter(p, compiled, bound, {{"img", values}}, "up", "wrapping_data", 0,
                                    1);
}

// A chain of inlined stages, each reading the one before three times at one
// point and once beside it (fuzz seed 175844: five such stages made 5.5 MB of
// C++ that took more than five minutes to compile). Each value is computed
// once, so the code grows with the chain, not with 3^length; and a stage
// with cases keeps its reads, shared or not, behind its box test.
TEST(InlinedChain, SharedValuesAreComputedOnce) {
  Param N("N");
  Var x("x");
  Image img("img", ScalarType::Float32, {N + 20});
  Func edge("edge", ScalarType::Float32, {x}, {{0, N + 19}});
  edge.define({Case(x >= 2, img(x - 2) * img(x - 2) + img(x - 1))}, 0.5f);
  std::vector<Func> chain = {edge};
  constexpr int kLength = 12;
  for (int k = 1; k <= kLength; ++k) {
    const Func& prev = chain.back();
    Func next("s" + std::to_string(k), ScalarType::Float32, {x}, {{0, N + 19 - k}});
    next.define(prev(x) * prev(x) * 0.25f + prev(x) * 0.5f + prev(x + 1) * 0.125f);
    chain.push_back(next);
  }
  const Pipeline p({chain.back()}, "inlined_chain");
  Schedule s = Schedule::naive(p);
  for (std::size_t k = 0; k + 1 < chain.size(); ++k)
    s.storage[chain[k].name()] = Storage::Inlined;
  s.groups = {GroupSchedule{}};
  for (const Func& f : chain)
    s.groups[0].stages.push_back(f.name());
  s.groups[0].tile_sizes = {16};
  CompileOptions checked;
  checked.bounds_check = true;
  checked.flags = "-O1 -fopenmp -ffp-contract=off";
  const CompiledPipeline compiled = compile(p, s, checked);
  // Printed as a tree, each of the stage's points would hold 3^12 copies of edge.
  EXPECT_LT(compiled.source().size(), 200'000u);
  for (const std::int64_t n : {std::int64_t{3}, std::int64_t{40}}) {
    const ParamValues bound = p.bind({{"N", n}});
    Buffer pixels(ScalarType::Float32, {n + 20});
    for (std::int64_t i = 0; i < pixels.size(); ++i)
      pixels.set_from_double(i, 0.1 * static_cast<double>(i % 7));
    expect_output_matches_interpreter(p, compiled, bound, {{"img", pixels}}, chain.back().name(),
                                      "N=" + std::to_string(n), 1e-4);
  }
}

// Three stencils inlined over a stage with cases (fuzz seed 311,912, reduced):
// cs5's two cases split st6 into pieces, and so on up the chain. The same
// point of cs5 is reached through many taps (x + 3 - 2 and x + 2 - 1), and a
// read that no piece holds took a select over all the pieces, each a copy of
// the whole value: 12 MB of C++ here, 36 MB in the seed, whose compile never
// ended. Equal coordinates are now one expression, such a read takes the
// stage's own cases, and a value both arms of a branch compute is computed
// before it.
TEST(InlinedChain, StencilsOverAStageWithCasesStaySmall) {
  const Pipeline p = parse_pipeline(R"(# trapeze pipeline text form, version 1
pipeline stencils_over_cases
param M: int64 >= 3 <= 12 = 3
param N: int64 >= 6 = 8
input in0: float32[2 * N + 2][4 * M + 5]
stage cs5(x, y): float32 on [-1, 2 * N] x [0, 4 * M]
  case 5 <= x && x <= 2 * N - 2 && y <= 4 * M - 2: sin(in0(x + 1, y) * -0.5f + in0(x + 1, y + 1) * -0.025f + in0(x, y) * 0.375f)
  case 1 <= x && x <= 2 * N - 2 && y <= 4 * M - 2: exp(min(max(in0(x + 1, y) * 0.1f + in0(x + 1, y + 1) * 0.5f, -2.0f), 2.0f)) - 1.0f
  default: 0.25f
stage st6(x, y): float32 on [1, 2 * N - 3] x [2, 4 * M + 1]
  = min(cs5(x + 3, y - 2) * 0.125f + cs5(x - 2, y - 2) * 1e+02f + cs5(x + 2, y - 2) * 0.05f + cs5(x, y - 2) * 0.75f + cs5(x - 2, y - 1) * 1.0f + cs5(x - 1, y - 1) * 0.25f, 0.5f)
stage st10(x, y): float32 on [2, 2 * N - 4] x [4, 4 * M - 2]
  = select(st6(x, y - 1) > st6(x, y), st6(x, y - 1) * -0.25f + st6(x, y + 3) * 0.375f + st6(x - 1, y + 3) * 0.5f + st6(x + 1, y - 1) * 5e+01f + st6(x - 1, y - 2) * -5e-06f + st6(x, y) * -0.25f, st6(x, y - 1) * 0.5f)
stage st11(x, y): float32 on [4, 2 * N - 6] x [7, 4 * M - 3]
  = st10(x, y - 3) + st10(x + 2, y - 3) + st10(x + 1, y) - st10(x + 2, y + 1) + st10(x - 2, y - 2) * 2.0f
output st11
)");
  GroupSchedule g;
  g.stages = {"cs5", "st6", "st10", "st11"};
  g.vectorize = false;
  Schedule s;
  s.groups = {g};
  for (const char* inlined : {"cs5", "st6", "st10"})
    s.storage[inlined] = Storage::Inlined;
  CompileOptions checked;
  checked.bounds_check = true;
  checked.flags = "-O1 -fopenmp -ffp-contract=off";
  const CompiledPipeline compiled = compile(p, s, checked);
  EXPECT_LT(compiled.source().size(), 2'000'000u);
  for (const auto& [n, m] : {std::pair<std::int64_t, std::int64_t>{8, 3}, {11, 5}}) {
    const ParamValues bound = p.bind({{"N", n}, {"M", m}});
    Buffer in0(ScalarType::Float32, {2 * n + 2, 4 * m + 5});
    for (std::int64_t i = 0; i < 2 * n + 2; ++i)
      for (std::int64_t j = 0; j < 4 * m + 5; ++j)
        in0.at<float>({i, j}) = static_cast<float>((i * 5 + j * 3) % 7) / 6.0f;
    expect_output_matches_interpreter(p, compiled, bound, {{"in0", in0}}, "st11",
                                      "N=" + std::to_string(n) + ", M=" + std::to_string(m), 1e-4);
  }
}

// Bounds inference (plan/demand.h): a restriction defined over the fine
// extent, as the multigrid spec defines it, but read on the coarse interior
// only is computed there, alone, fused with its producer or with its reader,
// and the outputs are the interpreter's.
TEST(DemandedBoxes, RestrictionIsComputedWhereItIsRead) {
  Param N("N");
  Var x("x"), y("y");
  Image img("img", ScalarType::Float32, {2 * N + 2, 2 * N + 2});
  Func fine("fine", ScalarType::Float32, {x, y}, {{0, 2 * N + 1}, {0, 2 * N + 1}});
  fine.define(img(x, y) * 2.0f + 1.0f);
  Func restrict("restrict", ScalarType::Float32, {x, y}, {{0, 2 * N + 1}, {0, 2 * N + 1}});
  restrict.define({Case(x >= 1 && x <= N && y >= 1 && y <= N,
                        fine(2 * x - 1, 2 * y) + fine(2 * x + 1, 2 * y) + fine(2 * x, 2 * y - 1))},
                  0.0f);
  Func coarse("coarse", ScalarType::Float32, {x, y}, {{0, N + 1}, {0, N + 1}});
  coarse.define({Case(x >= 1 && x <= N && y >= 1 && y <= N,
                      restrict(x, y) * 0.5f + restrict(x - 1, y) + restrict(x, y + 1))},
                0.0f);
  Pipeline p({coarse}, "restriction");
  p.set_range("N", 1, std::nullopt);
  std::vector<Schedule> schedules = {Schedule::naive(p)};
  for (const std::vector<std::string>& fused :
       {std::vector<std::string>{"fine", "restrict"}, {"restrict", "coarse"}}) {
    Schedule s;
    GroupSchedule group;
    group.stages = fused;
    group.tile_sizes = {3, 4};
    s.groups = {group};
    apps::add_remaining_stages(p, s, "test: alone");
    schedules.push_back(s);
  }
  CompileOptions checked;
  checked.bounds_check = true;
  for (const Schedule& s : schedules) {
    const CompiledPipeline compiled = compile(p, s, checked);
    for (const std::int64_t n : {std::int64_t{1}, std::int64_t{4}, std::int64_t{9}}) {
      const ParamValues bound = p.bind({{"N", n}});
      Buffer pixels(ScalarType::Float32, {2 * n + 2, 2 * n + 2});
      for (std::int64_t i = 0; i < pixels.size(); ++i)
        pixels.set_from_double(i, 0.25 * static_cast<double>(i % 9));
      expect_output_matches_interpreter(p, compiled, bound, {{"img", pixels}}, "coarse",
                                        s.to_json() + "\nN=" + std::to_string(n), 1e-5);
    }
  }
  // Alone, the restriction's nest says where it computes: what coarse's case
  // reads, (x - 1, y) to (x, y + 1) for x, y in [1, N].
  EXPECT_THAT(compile(p, schedules[0]).source(),
              testing::HasSubstr("computed on [0, N] x [1, N + 1] (what its readers read)"));
}

} // namespace
} // namespace trapeze
