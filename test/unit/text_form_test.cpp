// The text form of a pipeline: printing, parsing, and the round trip of every
// construct of the IR.
#include "support/sample_pipelines.h"
#include "unit/text_form_round_trip.h"

#include "trapeze/boundary.h"
#include "trapeze/dsl.h"
#include "trapeze/ir_visitor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>

namespace trapeze {
namespace {

using ::testing::HasSubstr;
using testing_support::expect_text_round_trip;

Pipeline blur() { return testing_support::sample_blur(); }

Pipeline unsharp() {
  Param R("R"), C("C"), threshold("threshold", ScalarType::Float32),
      weight("weight", ScalarType::Float32);
  Var c("c"), x("x"), y("y");
  Image img("img", ScalarType::Float32, {3, R + 4, C + 4});
  Func blurx("blurx", ScalarType::Float32, {c, x, y}, {{0, 2}, {2, R + 1}, {0, C + 3}});
  blurx.define((img(c, x - 2, y) + 4 * img(c, x - 1, y) + 6 * img(c, x, y) + 4 * img(c, x + 1, y) +
                img(c, x + 2, y)) *
               0.0625f);
  Func blury("blury", ScalarType::Float32, {c, x, y}, {{0, 2}, {2, R + 1}, {2, C + 1}});
  blury.define((blurx(c, x, y - 2) + 4 * blurx(c, x, y - 1) + 6 * blurx(c, x, y) +
                4 * blurx(c, x, y + 1) + blurx(c, x, y + 2)) *
               0.0625f);
  Func sharpen("sharpen", ScalarType::Float32, {c, x, y}, {{0, 2}, {2, R + 1}, {2, C + 1}});
  sharpen.define(img(c, x, y) * (1 + weight) - blury(c, x, y) * weight);
  Func mask("mask", ScalarType::Float32, {c, x, y}, {{0, 2}, {2, R + 1}, {2, C + 1}});
  mask.define(
      select(abs(img(c, x, y) - blury(c, x, y)) < threshold, img(c, x, y), sharpen(c, x, y)));
  Pipeline p({mask}, "unsharp");
  p.set_default("R", 2832);
  p.set_default("C", 4256);
  p.set_default("threshold", 0.001);
  p.set_default("weight", 3.0);
  return p;
}

Pipeline harris() {
  Param R("R"), C("C");
  Var x("x"), y("y");
  Image img("img", ScalarType::Float32, {R + 2, C + 2});
  const std::vector<Interval> all = {{0, R + 1}, {0, C + 1}};
  const Expr inner1 = x.in(1, R) && y.in(1, C);
  const Expr inner2 = x >= 2 && x <= R - 1 && y >= 2 && y <= C - 1;
  Func Iy("Iy", ScalarType::Float32, {x, y}, all);
  Iy.define({{inner1, (-img(x - 1, y - 1) + img(x - 1, y + 1) - 2.0f * img(x, y - 1) +
                       2.0f * img(x, y + 1) - img(x + 1, y - 1) + img(x + 1, y + 1)) /
                          12.0f}},
            0.0f);
  Func Ix("Ix", ScalarType::Float32, {x, y}, all);
  Ix.define({{inner1, (img(x + 1, y) - img(x - 1, y)) / 12.0f}}, 0.0f);
  Func Ixy("Ixy", ScalarType::Float32, {x, y}, all);
  Ixy.define({{inner1, Ix(x, y) * Iy(x, y)}}, 0.0f);
  Func Sxy("Sxy", ScalarType::Float32, {x, y}, all);
  Expr box = Ixy(x - 1, y - 1);
  for (int dx = -1; dx <= 1; ++dx)
    for (int dy = -1; dy <= 1; ++dy)
      if (dx != -1 || dy != -1) box = box + Ixy(x + dx, y + dy);
  // Two cases: the first that holds wins; the default covers the rest.
  Sxy.define({{inner2, box}, {x == 0, Ixy(x, y)}}, 0);
  Func harris("harris", ScalarType::Float32, {x, y}, all);
  harris.define({{inner2, Sxy(x, y) * Sxy(x, y) - 0.04f * Sxy(x, y) * Sxy(x, y)}}, 0.0f);
  return Pipeline({harris}, "harris");
}

// A histogram with a data-dependent bin, min and max reductions, and a look-up
// by pixel value that reads the histogram.
Pipeline histogram() {
  Param R("R"), C("C");
  Var b("b"), x("x"), y("y"), i("i");
  RVar rx("rx", {0, R - 1}), ry("ry", {0, C - 1});
  Image img("img", ScalarType::UInt8, {R, C});
  Func hist("hist", ScalarType::Int32, {b}, {{0, 255}});
  hist.define_reduction(0, {rx, ry}, {sum_into({img(rx, ry)}, 1)});
  Func extremes("extremes", ScalarType::Int32, {i}, {{0, 1}});
  extremes.define_reduction(select(i == 0, 255, 0), {rx, ry},
                            {min_into({0}, cast<int>(img(rx, ry))),
                             max_into({1}, cast<int>(img(rx, ry))),
                             sum_into({img(rx, ry) % 2}, 0)});
  Func equalized("equalized", ScalarType::Float32, {x, y}, {{0, R - 1}, {0, C - 1}});
  equalized.define(cast<float>(hist(img(x, y))) / cast<float>(R * C) +
                   cast<float>(extremes(0) + extremes(1)));
  Pipeline p({equalized}, "histogram");
  p.set_default("R", 64);
  return p;
}

// Down- and up-sampling with floor division and modulo, and C's division.
Pipeline sampling() {
  Param N("N");
  Var x("x");
  Image in("in", ScalarType::Int16, {2 * N + 2});
  Func down("down", ScalarType::Int32, {x}, {{0, N}});
  down.define(cast<int>(in(2 * x)) + in(2 * x + 1));
  Func up("up", ScalarType::Int32, {x}, {{0, 2 * N + 1}});
  up.define(select(x % 2 == 0, down(x / 2), (down(x / 2) + down(trunc_div(x + 1, 2))) / 2));
  Func mixed("mixed", ScalarType::Int64, {x}, {{0, N}});
  mixed.define(cast<std::int64_t>(up(2 * x)) * trunc_mod(x, 3) + N);
  return Pipeline({mixed, up}, "sampling");
}

// Every cast between the eight types, constants of every type, and many outputs.
Pipeline casts() {
  const std::vector<ScalarType> types = {
      ScalarType::Bool,  ScalarType::UInt8, ScalarType::UInt16,  ScalarType::Int16,
      ScalarType::Int32, ScalarType::Int64, ScalarType::Float32, ScalarType::Float64};
  Param N("N");
  Var x("x");
  std::vector<Func> sources, outputs;
  for (ScalarType t : types) {
    const std::string n = "from_" + std::string(type_name(t));
    Func f(n, t, {x}, {{0, N}});
    f.define(t == ScalarType::Bool ? x % 2 == 1 : cast(t, cast(t, x * 3 - 7) + constant(t, 5)));
    sources.push_back(f);
  }
  for (ScalarType to : types) {
    for (std::size_t s = 0; s < types.size(); ++s) {
      const std::string n =
          "cast_" + std::string(type_name(types[s])) + "_to_" + std::string(type_name(to));
      Func f(n, to, {x}, {{0, N}});
      f.define(cast(to, sources[s](x)));
      outputs.push_back(f);
    }
  }
  return Pipeline(outputs, "casts");
}

// Every operator, every special constant, and the corners of the precedence rules.
Pipeline operators() {
  Param N("N"), k("k", ScalarType::Float64), g("g", ScalarType::Float32);
  Var x("x"), y("y");
  Image in("in", ScalarType::Float64, {N, N});
  Func f("f", ScalarType::Float32, {x, y}, {{0, N - 1}, {0, N - 1}});
  const Expr a = cast<float>(in(x, y)), i = x + y;
  Expr v = -a + abs(a) + sqrt(a) + exp(a) + log(a) + floor(a) + ceil(a) + sin(a) + cos(a);
  v = v + min(a, 1.0f) + max(a, g) + pow(a, 2.0f) + a / 3.0f + a % 2.0f - (a - (a - 1.0f));
  v = v - -(a * a) + cast<float>(trunc_div(i, 3) + trunc_mod(i, -3) + i / 4 + i % 5);
  const Expr cmp = (i == 1 || i != 2) && !(i < 3) && i <= 4 && (i > 5 || i >= 6);
  v = select(cmp, v, select(!cmp, a, -0.0f));
  f.define(v);
  Func h("h", ScalarType::Float64, {x, y}, {{0, N - 1}, {0, N - 1}});
  const Expr inf32 = constant(ScalarType::Float32, std::numeric_limits<double>::infinity());
  const Expr nan64 = constant(ScalarType::Float64, std::numeric_limits<double>::quiet_NaN());
  h.define({{x == 0, f64(1e-05) * k + cast<double>(f(x, y))},
            {x == 1, cast<double>(-inf32) + nan64},
            {x == 2, cast<double>(Expr(std::int64_t{3000000000}) +
                                  std::int64_t{-9223372036854775807} - 1 + (-2147483647 - 1))},
            {x == 3 && y == 3, cast<double>(constant(ScalarType::Float32, 1e30) * 1e10f)}},
           f64(0.1));
  return Pipeline({h}, "operators");
}

// Names that are keywords of the text form elsewhere, and a name that is not an identifier.
Pipeline keyword_names() {
  Param param("param"), output_size("output");
  Var x("x"), on("on"), in_var("in");
  RVar over("over", {0, param}), in_r("in", {0, 3});
  Image input("input", ScalarType::Float32, {output_size, 4});
  Func stage("stage", ScalarType::Float32, {x, on}, {{0, output_size - 1}, {0, 3}});
  stage.define(input(x, on) + input(x, 3 - on));
  Func reduce("reduce", ScalarType::Float32, {in_var}, {{0, 3}});
  reduce.define_reduction(0.0f, {over, in_r}, {sum_into({in_r}, stage(over % output_size, in_r))});
  Func output("output", ScalarType::Float32, {x}, {{0, 3}});
  output.define(reduce(x) * 2.0f);
  return Pipeline({output}, "local-laplacian \"v2\"");
}

// Random expressions over every node kind, operator and type: whatever the
// factories accept must print and parse back to the same tree.
class RandomExprs {
public:
  explicit RandomExprs(std::uint32_t seed) : rng_(seed) {}

  Expr make(int depth) {
    if (depth == 0 || pick(4) == 0) return leaf();
    switch (pick(6)) {
    case 0: return ir::Cast::make(types[pick(types.size())], make(depth - 1));
    case 1: return ir::Unary::make(static_cast<ir::UnaryOp>(pick(10)), make(depth - 1));
    case 2:
      return ir::Select::make(make(depth - 1) < make(depth - 1), make(depth - 1), make(depth - 1));
    case 3: return img_(cast<int>(make(depth - 1)) % 4, static_cast<int>(pick(3)));
    default:
      return ir::Binary::make(static_cast<ir::BinaryOp>(pick(18)), make(depth - 1),
                              make(depth - 1));
    }
  }

private:
  static inline const std::vector<ScalarType> types = {
      ScalarType::Bool,  ScalarType::UInt8, ScalarType::UInt16,  ScalarType::Int16,
      ScalarType::Int32, ScalarType::Int64, ScalarType::Float32, ScalarType::Float64};
  std::mt19937 rng_;
  Var x_{"x"};
  Param n_{"n"}, w_{"w", ScalarType::Float64};
  Image img_{"img", ScalarType::UInt8, {4, 3}};

  std::size_t pick(std::size_t n) { return rng_() % n; }
  Expr leaf() {
    const double values[] = {0, 1, -1, 7, -2147483648.0, 0.1, -2.5, 1e-7, 3e9, -0.0};
    switch (pick(5)) {
    case 0: return x_;
    case 1: return pick(2) ? Expr(n_) : Expr(w_);
    case 2: return constant(types[pick(types.size())], values[pick(std::size(values))]);
    case 3:
      return constant(types[6 + pick(2)], pick(2) ? std::numeric_limits<double>::infinity()
                                                  : -std::numeric_limits<double>::infinity());
    default: return Expr(static_cast<int>(pick(2000)) - 1000);
    }
  }
};

TEST(TextForm, RoundTripsRandomExpressions) {
  RandomExprs gen(12345);
  Var x("x");
  std::vector<Func> stages;
  for (int i = 0; stages.size() < 300 && i < 5000; ++i) {
    Expr e;
    try {
      e = gen.make(4);
    } catch (const Error&) {
      continue; // a type error the DSL rejects, e.g. '&&' on integers
    }
    Func f("e" + std::to_string(stages.size()), e.type(), {x}, {{0, 9}});
    f.define(e);
    stages.push_back(f);
  }
  ASSERT_EQ(stages.size(), 300u);
  expect_text_round_trip(Pipeline(stages, "random"));
}

TEST(TextForm, PrintsTheBlurPipeline) {
  EXPECT_EQ(to_text(blur()), R"(# trapeze pipeline text form, version 1
pipeline blur

param C: int64
param R: int64

input img: float32[R + 2][C + 2]

stage blurx(x, y): float32 on [1, R] x [0, C + 1]
  = (img(x - 1, y) + img(x, y) + img(x + 1, y)) / 3.0f

stage blury(x, y): float32 on [1, R] x [1, C]
  = (blurx(x, y - 1) + blurx(x, y) + blurx(x, y + 1)) / 3.0f

output blury
)");
}

TEST(TextForm, PrintsParamDefaultsCasesAndReductions) {
  const std::string u = to_text(unsharp());
  EXPECT_THAT(u, HasSubstr("param threshold: float32 = 0.001f\n"));
  EXPECT_THAT(u, HasSubstr("param weight: float32 = 3.0f\n"));
  EXPECT_THAT(u, HasSubstr("param R: int64 = 2832\n"));
  EXPECT_THAT(u, HasSubstr("input img: float32[3][R + 4][C + 4]\n"));
  const std::string h = to_text(harris());
  EXPECT_THAT(h, HasSubstr("  case x >= 2 && x <= R - 1 && y >= 2 && y <= C - 1: "));
  EXPECT_THAT(h, HasSubstr("  case x == 0: Ixy(x, y)\n  default: 0.0f\n"));
  const std::string r = to_text(histogram());
  EXPECT_THAT(r, HasSubstr("stage hist(b): int32 on [0, 255]\n"
                           "  init: 0\n"
                           "  reduce over rx in [0, R - 1], ry in [0, C - 1]:\n"
                           "    hist(int32(img(rx, ry))) += 1\n"));
  EXPECT_THAT(r, HasSubstr("    extremes(0) min= int32(img(rx, ry))\n"
                           "    extremes(1) max= int32(img(rx, ry))\n"));
  EXPECT_THAT(to_text(sampling()), HasSubstr("\noutput mixed, up\n"));
  EXPECT_THAT(to_text(keyword_names()), HasSubstr("pipeline \"local-laplacian \\\"v2\\\"\"\n"));
}

TEST(TextForm, ParameterRangesRoundTrip) {
  const Pipeline p = parse_pipeline("pipeline ranged\n"
                                    "param lo: int64 >= -3 = 0\n"
                                    "param n: int64 >= 1 <= 64 = 3\n"
                                    "param top: int64 <= 10\n"
                                    "stage f(x): int32 on [lo, n + top] = x\n"
                                    "output f\n");
  const std::string text = to_text(p);
  EXPECT_THAT(text, HasSubstr("param lo: int64 >= -3 = 0\n"));
  EXPECT_THAT(text, HasSubstr("param n: int64 >= 1 <= 64 = 3\n"));
  EXPECT_THAT(text, HasSubstr("param top: int64 <= 10\n"));
  expect_text_round_trip(p);
  EXPECT_THAT(
      [] {
        parse_pipeline("param n: int64 >= 5 = 3\nstage f(x): int32 on [0, n] = x\n"
                       "output f\n");
      },
      testing::ThrowsMessage<Error>(HasSubstr("has the default 3, outside its range n >= 5")));
  EXPECT_THAT(
      [] {
        parse_pipeline("param n: int64 >= x\nstage f(x): int32 on [0, n] = x\n"
                       "output f\n");
      },
      testing::ThrowsMessage<Error>(HasSubstr("expected an integer after '>='")));
}

TEST(TextForm, RoundTripsBlur) { expect_text_round_trip(blur()); }
TEST(TextForm, RoundTripsUnsharpWithFloatParams) { expect_text_round_trip(unsharp()); }
TEST(TextForm, RoundTripsHarrisWithCases) { expect_text_round_trip(harris()); }
TEST(TextForm, RoundTripsReductionsWithDataDependentIndices) {
  expect_text_round_trip(histogram());
}
TEST(TextForm, RoundTripsSampling) { expect_text_round_trip(sampling()); }
TEST(TextForm, RoundTripsCastsAmongAllTypes) { expect_text_round_trip(casts()); }
TEST(TextForm, RoundTripsAllOperatorsAndSpecialConstants) { expect_text_round_trip(operators()); }
TEST(TextForm, RoundTripsNamesThatAreKeywords) { expect_text_round_trip(keyword_names()); }

// Every boundary condition, on an input and on a stage, over some dimensions
// and with a margin in the parameters: written as the user wrote it, read back
// to the same stages.
Pipeline boundaries() {
  Param R("R"), C("C");
  Var x("x"), y("y");
  Image img("img", ScalarType::Float32, {R, C});
  Func edge = boundary::repeat_edge(img, {1, 2});
  Func blurx("blurx", ScalarType::Float32, {x, y}, {{0, R - 1}, {-2, C + 1}});
  blurx.define(edge(x - 1, y) + edge(x + 1, y));
  Func tiled = boundary::repeat_image(blurx, {0, R});
  Func mirrored = boundary::mirror_image(tiled, {3, 0});
  Func interior = boundary::mirror_interior(img, {1, 1});
  Func zero = boundary::constant_exterior(img, 0.5, {R / 2, 1});
  Func out("out", ScalarType::Float32, {x, y}, {{0, R - 1}, {0, C - 1}});
  out.define(mirrored(x - 3, y - R - 2) + interior(x + 1, y - 1) + zero(x - R / 2, y + 1));
  return Pipeline({out}, "boundaries");
}

TEST(TextForm, RoundTripsBoundaryConditionsAsWritten) {
  const std::string text = expect_text_round_trip(boundaries());
  EXPECT_THAT(text, HasSubstr("stage img_repeat_edge = repeat_edge(img, [1, 2])\n"));
  EXPECT_THAT(text, HasSubstr("stage blurx_repeat_image = repeat_image(blurx, [0, R])\n"));
  EXPECT_THAT(text, HasSubstr("= mirror_image(blurx_repeat_image, [3, 0])\n"));
  EXPECT_THAT(text, HasSubstr("stage img_mirror_interior = mirror_interior(img, [1, 1])\n"));
  EXPECT_THAT(
      text, HasSubstr("stage img_constant_exterior = constant_exterior(img, 0.5f, [R / 2, 1])\n"));
  // A name of the user's own, and the stage read as any other.
  const Pipeline p = parse_pipeline("param N: int64\ninput img: float32[N]\n"
                                    "stage padded = constant_exterior(img, 1, [2])\n"
                                    "stage f(x): float32 on [0, N - 1] = padded(x - 2)\n"
                                    "output f\n");
  const ir::Function& padded = *p.stages()[0];
  EXPECT_EQ(padded.name(), "padded");
  EXPECT_EQ(padded.vars(), std::vector<std::string>{"padded_0"});
  EXPECT_EQ(ir::to_string(padded.domain()[0].lo), "-2");
  EXPECT_EQ(ir::to_string(padded.definition().otherwise), "1.0f");
}

// Margins left to inference are written as the user left them, and read
// back to the same domains (inferred again from the same readers).
Pipeline inferred_boundaries() {
  Param R("R"), C("C");
  Var x("x"), y("y");
  Image img("img", ScalarType::Float32, {R, C});
  Func edge = boundary::repeat_edge(img);
  Func zero = boundary::constant_exterior(img, 0.5);
  Func out("out", ScalarType::Float32, {x, y}, {{0, R - 1}, {0, C - 1}});
  out.define(edge(x - 1, y + 2) + zero(x + 3, y));
  return Pipeline({out}, "inferred");
}

TEST(TextForm, RoundTripsInferredMarginsAsWritten) {
  const std::string text = expect_text_round_trip(inferred_boundaries());
  EXPECT_THAT(text, HasSubstr("stage img_repeat_edge = repeat_edge(img)\n"));
  EXPECT_THAT(text, HasSubstr("stage img_constant_exterior = constant_exterior(img, 0.5f)\n"));
  const Pipeline p = parse_pipeline(text);
  EXPECT_EQ(ir::to_string(p.stage("img_repeat_edge")->domain()[1].hi), "C + 1");
  EXPECT_EQ(ir::to_string(p.stage("img_constant_exterior")->domain()[0].lo), "-3");
}

TEST(TextForm, SecondRoundTripIsIdentical) {
  for (const Pipeline& p : {blur(), unsharp(), harris(), histogram(), sampling(), operators()}) {
    const std::string once = to_text(parse_pipeline(to_text(p)));
    EXPECT_EQ(to_text(parse_pipeline(once)), once);
  }
}

TEST(TextForm, ParsedPipelineHasTheDeclaredStructure) {
  const Pipeline p = parse_pipeline(to_text(unsharp()), "unsharp.trapeze");
  ASSERT_EQ(p.stages().size(), 4u);
  EXPECT_EQ(p.stages()[0]->name(), "blurx");
  EXPECT_EQ(p.stages()[3]->name(), "mask");
  EXPECT_EQ(p.stages()[0]->type(), ScalarType::Float32);
  EXPECT_EQ(p.stages()[0]->dimensions(), 3);
  ASSERT_EQ(p.params().size(), 4u);
  EXPECT_EQ(p.params()[2].name, "threshold");
  EXPECT_EQ(p.params()[2].type, ScalarType::Float32);
  const ParamValues bound = p.bind({});
  EXPECT_EQ(concrete_domain(*p.stage("blurx"), bound).str(), "[0, 2] x [2, 2833] x [0, 4259]");
  EXPECT_EQ(concrete_domain(*p.input("img"), bound).str(), "[0, 2] x [0, 2835] x [0, 4259]");
  EXPECT_FLOAT_EQ(static_cast<float>(bound.at("threshold").f), 0.001f);
  // Stages remember the line of the text that declared them, for later error messages.
  EXPECT_EQ(p.stage("mask")->describe(), "'mask' (declared at unsharp.trapeze:20)");
}

TEST(TextForm, AcceptsCommentsBlankLinesAndFreeLayout) {
  const Pipeline p = parse_pipeline(R"(
# a hand-written pipeline
pipeline   blur2   # trailing comment

stage blury(x, y): float32 on [1, R] x [1, C]   # uses blurx before its definition
  = (blurx(x, y - 1)
       + blurx(x, y)      # a comment inside an expression
       + blurx(x, y + 1)) / 3.0f
stage blurx(x, y): float32
  on [1, R]
   x [0, C + 1]
  = (img(x - 1, y) + img(x, y) + img(x + 1, y)) / 3.0f

param R: int64
input img: float32[R + 2][C + 2]
param C: int64
param unused: float64 = 2.5
output blury
)");
  EXPECT_EQ(p.name(), "blur2");
  // `C + 1` with an int32 literal builds the same IR as the printed `C + int64(1)`.
  testing_support::expect_same_pipeline(p, Pipeline({Func(blur().stage("blury"))}, "blur2"));
  EXPECT_EQ(p.params().size(), 2u) << "a parameter no stage uses is dropped";
}

TEST(TextForm, AcceptsDefaultWithoutCasesAndIntegerFloatDefaults) {
  const Pipeline p = parse_pipeline(R"(param w: float32 = 2
param z: float64 = -inf_f64
input img: uint8[4]
stage f(x): float32 on [0, 3]
  default: float32(img(x)) * w + float32(z)
output f)");
  EXPECT_TRUE(p.stage("f")->definition().cases.empty());
  EXPECT_EQ(p.params()[0].default_value.f, 2.0);
  EXPECT_TRUE(p.params()[0].default_value.is_float);
  EXPECT_EQ(p.params()[1].default_value.f, -std::numeric_limits<double>::infinity());
}

TEST(TextForm, LoadsAFile) {
  const std::string path = ::testing::TempDir() + "/text_form_blur.trapeze";
  {
    std::FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    const std::string text = to_text(blur());
    std::fputs(text.c_str(), f);
    std::fclose(f);
  }
  const Pipeline p = load_pipeline(path);
  EXPECT_EQ(to_text(p), to_text(blur()));
  EXPECT_EQ(p.stage("blury")->describe(), "'blury' (declared at text_form_blur.trapeze:12)");
  std::remove(path.c_str());
}

TEST(TextForm, TheDocumentedExampleParses) {
  std::ifstream doc(std::string(TRAPEZE_SOURCE_DIR) + "/docs/text-form.md");
  ASSERT_TRUE(doc) << "docs/text-form.md not found";
  const std::string text((std::istreambuf_iterator<char>(doc)), std::istreambuf_iterator<char>());
  const std::size_t example = text.find("```\n", text.find("## An example"));
  ASSERT_NE(example, std::string::npos);
  const std::size_t end = text.find("```", example + 4);
  const Pipeline p = parse_pipeline(text.substr(example + 4, end - example - 4), "example");
  EXPECT_EQ(p.name(), "unsharp");
  EXPECT_EQ(p.stages().size(), 3u);
  EXPECT_EQ(p.outputs().size(), 3u);
  expect_text_round_trip(p);
}

} // namespace
} // namespace trapeze
