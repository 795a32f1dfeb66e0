// Boundary conditions (trapeze/boundary.h): each mode's values at hand-picked
// points outside the source (Halide's meanings), and pipelines that read a
// boundary stage beyond their source's edges, over images and stages, all or
// some dimensions, margins wider than the source, under naive and automatic
// schedules, against the interpreter bit for bit.
#include "trapeze/boundary.h"
#include "trapeze/error.h"
#include "trapeze/image_io.h"
#include "trapeze/ir_visitor.h"
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

// A 5x3 stencil `blur` over a boundary `b` of an image, and `out` reading
// a boundary `edge` of blur (rows only). Margins given ({0, 2, 2} and
// {0, 1, 0}, what the stencils need) or, with `inferred`, left out.
struct StencilPipeline {
  Func b, edge;
  Pipeline p;
};

StencilPipeline stencil_over_boundaries(const Mode& mode, bool inferred, const std::string& name) {
  Param R("R"), C("C");
  Var c("c"), x("x"), y("y");
  Image img("img", ScalarType::Float32, {3, R, C});
  const boundary::Condition condition = *boundary::condition_named(mode.name);
  const Func b = inferred ? boundary::apply(condition, img, Expr(-7.5f), std::nullopt)
                          : mode.make(img, {Expr(0), Expr(2), Expr(2)});
  Func blur("blur", ScalarType::Float32, {c, x, y}, {{0, 2}, {0, R - 1}, {0, C - 1}});
  Expr sum = Expr(0.0f);
  for (int i = -2; i <= 2; ++i)
    for (int j = -1; j <= 1; ++j)
      sum = sum + b(c, x + i, y + 2 * j);
  blur.define(sum / 15.0f);
  const Func edge = inferred ? boundary::repeat_edge(blur)
                             : boundary::repeat_edge(blur, {Expr(0), Expr(1), Expr(0)});
  Func out("out", ScalarType::Float32, {c, x, y}, {{0, 2}, {0, R - 1}, {0, C - 1}});
  out.define(edge(c, x - 1, y) - edge(c, x + 1, y));
  return {b, edge, Pipeline({out}, name)};
}

// By hand: each boundary fused into its consumer's tiles and inlined (a
// boundary cannot yet share a group with its own source stage: the clamped
// read is no constant dependence, docs/dsl.md).
Schedule fused_by_hand(const StencilPipeline& s) {
  Schedule fused;
  GroupSchedule g1, g2;
  g1.stages = {s.b.name(), "blur"};
  g1.tile_sizes = {2, 8, 16};
  g2.stages = {s.edge.name(), "out"};
  g2.tile_sizes = {1, 16, 8};
  fused.groups = {g1, g2};
  fused.storage = {{s.b.name(), Storage::Inlined}, {s.edge.name(), Storage::Inlined}};
  return fused;
}

// The stencils over every mode, given margins, under naive, automatic and
// hand-written fused schedules: the JIT matches the interpreter.
TEST(BoundaryConditions, StencilsOverBoundariesMatchTheInterpreter) {
  CompileOptions options;
  options.flags = "-O1 -fopenmp -ffp-contract=off";
  for (const Mode& mode : modes()) {
    const StencilPipeline s = stencil_over_boundaries(mode, false, "stencil_" + mode.name);
    const ParamValues bound{{"R", 37}, {"C", 53}};
    const BufferMap inputs{{"img", synthetic_image({ScalarType::Float32, {3, 37, 53}, 0, 1, 5})}};
    const BufferMap expected = interpret(s.p, bound, inputs);
    for (const auto& [what, schedule] :
         std::vector<std::pair<std::string, Schedule>>{{"naive", Schedule::naive(s.p)},
                                                       {"dp", auto_schedule(s.p, {})},
                                                       {"fused", fused_by_hand(s)}}) {
      const BufferMap actual = compile(s.p, schedule, options).run(bound, inputs, 2);
      const auto m = compare_buffers(expected.at("out"), actual.at("out"), 0.0);
      EXPECT_FALSE(m.has_value()) << mode.name << " " << what << ": " << (m ? m->str() : "");
    }
  }
}

// The domain of a stage as text: "[0, 2] x [-2, R + 1]".
std::string domain_text(const Func& f) {
  std::string out;
  for (const Interval& i : f.contents()->domain())
    out += (out.empty() ? "[" : " x [") + ir::to_string(i.lo) + ", " + ir::to_string(i.hi) + "]";
  return out;
}

// The stencils with every margin left to inference: the domains are the
// ones given by hand above, and the code computes the same values (checked
// under naive, automatic and fused schedules for repeat_edge, naive for
// constant_exterior).
TEST(BoundaryConditions, InferredMarginsAreWhatTheReadersNeed) {
  CompileOptions options;
  options.flags = "-O1 -fopenmp -ffp-contract=off";
  for (const Mode& mode : modes()) {
    const StencilPipeline s = stencil_over_boundaries(mode, true, "inferred_" + mode.name);
    EXPECT_EQ(domain_text(s.b), "[0, 2] x [-2, R + 1] x [-2, C + 1]") << mode.name;
    EXPECT_EQ(domain_text(s.edge), "[0, 2] x [-1, R] x [0, C - 1]") << mode.name;
    EXPECT_EQ(s.b.contents()->margins_inferred_by(), "inferred_" + mode.name);
    if (mode.name != "repeat_edge" && mode.name != "constant_exterior") continue;

    const StencilPipeline given = stencil_over_boundaries(mode, false, "given_" + mode.name);
    const ParamValues bound{{"R", 29}, {"C", 41}};
    const BufferMap inputs{{"img", synthetic_image({ScalarType::Float32, {3, 29, 41}, 0, 1, 7})}};
    const BufferMap expected = interpret(given.p, bound, inputs);
    EXPECT_FALSE(compare_buffers(expected.at("out"), interpret(s.p, bound, inputs).at("out"), 0.0));
    std::vector<std::pair<std::string, Schedule>> schedules{{"naive", Schedule::naive(s.p)}};
    if (mode.name == "repeat_edge") {
      schedules.emplace_back("dp", auto_schedule(s.p, {}));
      schedules.emplace_back("fused", fused_by_hand(s));
    }
    for (const auto& [what, schedule] : schedules) {
      const BufferMap actual = compile(s.p, schedule, options).run(bound, inputs, 2);
      const auto m = compare_buffers(expected.at("out"), actual.at("out"), 0.0);
      EXPECT_FALSE(m.has_value()) << mode.name << " " << what << ": " << (m ? m->str() : "");
    }
  }
}

// A boundary's domain is its source's until a pipeline reads it.
TEST(BoundaryConditions, InferredMarginsWaitForAPipeline) {
  Param R("R");
  Var x("x");
  Image img("img", ScalarType::Float32, {R});
  const Func edge = boundary::repeat_edge(img);
  Func f("f", ScalarType::Float32, {x}, {{0, R - 1}});
  f.define(edge(x + 1));
  EXPECT_EQ(domain_text(edge), "[0, R - 1]");
  EXPECT_TRUE(edge.contents()->awaits_margins());
  const Pipeline p({f}, "p");
  EXPECT_EQ(domain_text(edge), "[-1, R]");
  EXPECT_FALSE(edge.contents()->awaits_margins());
  // A bound divided exactly ((2 * R) / 2 is R) still lies a constant apart.
  const Func wide = boundary::repeat_edge(img);
  Func g("g", ScalarType::Float32, {x}, {{0, (2 * R + 4) / 2 - 1}});
  g.define(wide(x - 3));
  const Pipeline q({g}, "q");
  EXPECT_EQ(domain_text(wide), "[-3, R + 2]"); // 3 below, so 3 above too
}

// A reduction reads a boundary with its reduction variables; a scaled index
// whose range is a constant distance from the source's (3 * i + r over
// constant bounds) is understood too; margins are the larger of both sides.
TEST(BoundaryConditions, InferredMarginsCoverReductionsAndScaledIndices) {
  Var x("x");
  Image img("img", ScalarType::Float32, {10});
  const Func edge = boundary::mirror_image(img);
  RVar ri("i", {0, 3}), r("r", {-1, 4});
  Func sums("sums", ScalarType::Float32, {x}, {{0, 3}});
  sums.define_reduction(0.0f, {ri, r}, {sum_into({ri}, edge(3 * ri + r))});
  const Pipeline p({sums}, "sums");
  // Lowest index -1, highest 3 * 3 + 4 = 13: 1 below [0, 9], 4 above.
  EXPECT_EQ(domain_text(edge), "[-4, 13]");
  const BufferMap inputs{{"img", synthetic_image({ScalarType::Float32, {10}, 0, 1, 3})}};
  const BufferMap got = interpret(p, {}, inputs);
  const Buffer& in = inputs.at("img");
  for (std::int64_t i = 0; i <= 3; ++i) {
    float want = 0.0f;
    for (std::int64_t k = -1; k <= 4; ++k) {
      const std::int64_t v = 3 * i + k, t = ((v % 20) + 20) % 20;
      want += in.at<float>({t < 10 ? t : 19 - t});
    }
    EXPECT_FLOAT_EQ(got.at("sums").at<float>({i}), want) << "point " << i;
  }
}

// What the inference cannot see is an error that names the stage, its
// reader and the index, and asks for the margins; a failed pipeline leaves
// every stage as it was.
TEST(BoundaryConditions, MarginsThatCannotBeInferredAreAskedFor) {
  const auto error_of = [](const std::function<void()>& make) -> std::string {
    try {
      make();
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  Param W("W");
  Var x("x");
  Image img("img", ScalarType::Float32, {W});
  {
    const Func edge = boundary::repeat_edge(img);
    Func up("up", ScalarType::Float32, {x}, {{0, 2 * W - 1}});
    up.define(edge(x / 2 + 1));
    const std::string e = error_of([&] { Pipeline({up}, "up"); });
    EXPECT_NE(e.find("cannot infer the margins of boundary stage 'img_repeat_edge' (declared "
                     "at boundary_conditions_test.cpp:"),
              std::string::npos)
        << e << "\n(a boundary stage is declared where the user makes it)";
    EXPECT_NE(e.find("stage 'up' (declared at"), std::string::npos) << e;
    EXPECT_NE(e.find("whose index x / 2 + 1 is not a sum of the reader's variables"),
              std::string::npos)
        << e;
    EXPECT_NE(e.find("give them, one per dimension: repeat_edge(img, [M0])"), std::string::npos)
        << e;
    EXPECT_EQ(domain_text(edge), "[0, W - 1]") << "left as it was";
    EXPECT_TRUE(edge.contents()->awaits_margins());
  }
  {
    const Func zero = boundary::constant_exterior(img, 0.0f);
    Func down("down", ScalarType::Float32, {x}, {{0, W / 2 - 1}});
    down.define(zero(2 * x - 1) + zero(2 * x + 1));
    const std::string e = error_of([&] { Pipeline({down}, "down"); });
    EXPECT_NE(e.find("over x in [0, W / 2 - 1], does not stay a constant distance from the "
                     "source's domain [0, W - 1] in dimension 0; give them, one per dimension: "
                     "constant_exterior(img, 0.0f, [M0])"),
              std::string::npos)
        << e;
  }
  {
    const Func edge = boundary::repeat_edge(img);
    const std::string e = error_of([&] { Pipeline({edge}, "alone"); });
    EXPECT_NE(e.find("no stage of pipeline 'alone' reads it (it is an output)"), std::string::npos)
        << e;
  }
  {
    const Func edge = boundary::repeat_edge(img);
    const std::string e = error_of([&] { boundary::mirror_image(edge, {Expr(1)}); });
    EXPECT_NE(e.find("whose own margins are still to be inferred"), std::string::npos) << e;
  }
  {
    // The first pipeline fixes the margins; a second that reads further is
    // refused with margins enough for both, one that reads less is not.
    const Func edge = boundary::repeat_edge(img);
    Func near("near", ScalarType::Float32, {x}, {{0, W - 1}});
    near.define(edge(x - 1) + edge(x + 1));
    Func far("far", ScalarType::Float32, {x}, {{0, W - 1}});
    far.define(edge(x + 3));
    Func same("same", ScalarType::Float32, {x}, {{0, W - 1}});
    same.define(edge(x));
    const Pipeline first({near}, "first");
    EXPECT_EQ(domain_text(edge), "[-1, W]");
    EXPECT_NO_THROW(Pipeline({same}, "smaller"));
    const std::string e = error_of([&] { Pipeline({far}, "second"); });
    EXPECT_NE(e.find("had its margins inferred as [1] by pipeline 'first', and pipeline 'second' "
                     "reads beyond them; give its margins explicitly, enough for both: "
                     "repeat_edge(img, [3])"),
              std::string::npos)
        << e;
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
