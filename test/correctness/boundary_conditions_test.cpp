// Boundary conditions (trapeze/boundary.h): each mode's values at hand-picked
// points outside the source (Halide's meanings), and pipelines that read a
// boundary stage beyond their source's edges, over images and stages, all or
// some dimensions, margins wider than the source, under naive and automatic
// schedules, against the interpreter bit for bit.
#include "trapeze/boundary.h"
#include "trapeze/error.h"
#include "trapeze/image_io.h"
#include "trapeze/runtime.h"
#include "trapeze/schedule.h"

#include <gtest/gtest.h>

#include <functional>

namespace trapeze {
namespace {

using BoundaryFn = std::function<Func(const Image&, std::vector<Expr>)>;

struct Mode {
  std::string name;
  BoundaryFn make;
  std::function<std::int64_t(std::int64_t v, std::int64_t n)> index; ///< -1: the constant
};

const std::vector<Mode>& modes() {
  static const std::vector<Mode> all = {
      {"repeat_edge",
       [](const Image& i, std::vector<Expr> m) { return boundary::repeat_edge(i, m); },
       [](std::int64_t v, std::int64_t n) { return std::clamp<std::int64_t>(v, 0, n - 1); }},
      {"repeat_image",
       [](const Image& i, std::vector<Expr> m) { return boundary::repeat_image(i, m); },
       [](std::int64_t v, std::int64_t n) { return ((v % n) + n) % n; }},
      {"mirror_image",
       [](const Image& i, std::vector<Expr> m) { return boundary::mirror_image(i, m); },
       [](std::int64_t v, std::int64_t n) {
         const std::int64_t t = ((v % (2 * n)) + 2 * n) % (2 * n);
         return t < n ? t : 2 * n - 1 - t;
       }},
      {"mirror_interior",
       [](const Image& i, std::vector<Expr> m) { return boundary::mirror_interior(i, m); },
       [](std::int64_t v, std::int64_t n) -> std::int64_t {
         if (n == 1) return 0;
         const std::int64_t p = 2 * n - 2, t = ((v % p) + p) % p;
         return t < n ? t : p - t;
       }},
      {"constant_exterior",
       [](const Image& i, std::vector<Expr> m) {
         return boundary::constant_exterior(i, Expr(-7.5f), m);
       },
       [](std::int64_t v, std::int64_t n) -> std::int64_t { return v < 0 || v >= n ? -1 : v; }},
  };
  return all;
}

// The boundary stage itself as the output, with margins wider than the
// source in one dimension and none in another: every value as the mode says.
TEST(BoundaryConditions, EveryModeGivesHalidesValues) {
  CompileOptions options;
  options.flags = "-O1 -fopenmp -ffp-contract=off";
  for (const Mode& mode : modes()) {
    Param R("R"), C("C");
    Image img("img", ScalarType::Float32, {R, C});
    const Func b = mode.make(img, {Expr(0), C + 3}); // rows untouched, columns beyond a period
    const Pipeline p({b}, "boundary_" + mode.name);
    for (const std::int64_t cols : {1, 2, 5}) {
      const ParamValues bound{{"R", 3}, {"C", cols}};
      Buffer in = synthetic_image({ScalarType::Float32, {3, cols}, 0, 1, 9});
      const BufferMap expected = interpret(p, bound, {{"img", in}});
      const Buffer& e = expected.at(b.name());
      ASSERT_EQ(e.extents(), (std::vector<std::int64_t>{3, 3 * cols + 6}));
      for (std::int64_t r = 0; r < 3; ++r)
        for (std::int64_t c = -cols - 3; c <= 2 * cols + 2; ++c) {
          const std::int64_t k = mode.index(c, cols);
          const float want = k < 0 ? -7.5f : in.at<float>({r, k});
          EXPECT_EQ(e.at<float>({r, c + cols + 3}), want)
              << mode.name << ", " << cols << " columns, point (" << r << ", " << c << ")";
        }
      const BufferMap actual = compile(p, Schedule::naive(p), options).run(bound, {{"img", in}});
      EXPECT_FALSE(compare_buffers(e, actual.at(b.name()), 0.0).has_value()) << mode.name;
    }
  }
}

// A 5x3 stencil over a boundary stage of an image (every mode), and a
// boundary on a stage (repeat_edge of a blur, some dimensions only), under
// naive, automatic and hand-written fused schedules (each boundary inlined
// into its consumer's tiles): the JIT matches the interpreter.
TEST(BoundaryConditions, StencilsOverBoundariesMatchTheInterpreter) {
  CompileOptions options;
  options.flags = "-O1 -fopenmp -ffp-contract=off";
  for (const Mode& mode : modes()) {
    Param R("R"), C("C");
    Var c("c"), x("x"), y("y");
    Image img("img", ScalarType::Float32, {3, R, C});
    const Func b = mode.make(img, {Expr(0), Expr(2), Expr(2)});
    Func blur("blur", ScalarType::Float32, {c, x, y}, {{0, 2}, {0, R - 1}, {0, C - 1}});
    Expr sum = Expr(0.0f);
    for (int i = -2; i <= 2; ++i)
      for (int j = -1; j <= 1; ++j)
        sum = sum + b(c, x + i, y + 2 * j);
    blur.define(sum / 15.0f);
    // A boundary on a stage: rows only.
    const Func edge = boundary::repeat_edge(blur, {Expr(0), Expr(1), Expr(0)});
    Func out("out", ScalarType::Float32, {c, x, y}, {{0, 2}, {0, R - 1}, {0, C - 1}});
    out.define(edge(c, x - 1, y) - edge(c, x + 1, y));
    const Pipeline p({out}, "stencil_" + mode.name);
    const ParamValues bound{{"R", 37}, {"C", 53}};
    const BufferMap inputs{{"img", synthetic_image({ScalarType::Float32, {3, 37, 53}, 0, 1, 5})}};
    const BufferMap expected = interpret(p, bound, inputs);
    // By hand: each boundary fused into its consumer's tiles and inlined (a
    // boundary cannot yet share a group with its own source stage: the
    // clamped read is no constant dependence, docs/dsl.md).
    Schedule fused;
    GroupSchedule g1, g2;
    g1.stages = {b.name(), "blur"};
    g1.tile_sizes = {2, 8, 16};
    g2.stages = {edge.name(), "out"};
    g2.tile_sizes = {1, 16, 8};
    fused.groups = {g1, g2};
    fused.storage = {{b.name(), Storage::Inlined}, {edge.name(), Storage::Inlined}};
    for (const auto& [what, s] : std::vector<std::pair<std::string, Schedule>>{
             {"naive", Schedule::naive(p)}, {"dp", auto_schedule(p, {})}, {"fused", fused}}) {
      const BufferMap actual = compile(p, s, options).run(bound, inputs, 2);
      const auto m = compare_buffers(expected.at("out"), actual.at("out"), 0.0);
      EXPECT_FALSE(m.has_value()) << mode.name << " " << what << ": " << (m ? m->str() : "");
    }
  }
}

TEST(BoundaryConditions, OneMarginPerDimension) {
  Param R("R");
  Image img("img", ScalarType::Float32, {R, R});
  try {
    boundary::mirror_image(img, {Expr(1)});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("boundary::mirror_image of 'img': 1 margins for 2 "
                                         "dimensions"),
              std::string::npos)
        << e.what();
  }
}

} // namespace
} // namespace trapeze
