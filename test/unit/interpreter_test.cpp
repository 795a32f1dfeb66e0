// The reference interpreter against hand-computed results, one construct at a time.
#include "trapeze/dsl.h"
#include "trapeze/ir_visitor.h"
#include "trapeze/pipeline.h"
#include "trapeze/runtime.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace trapeze {
namespace {

using testing::ElementsAre;
using testing::ElementsAreArray;

std::vector<double> values_of(const Buffer& b) {
  std::vector<double> v;
  for (std::int64_t i = 0; i < b.size(); ++i)
    v.push_back(b.get_as_double(i));
  return v;
}

// A 1-D stage over x in [lo, hi] defined by `value`, interpreted.
std::vector<double> eval_1d(ScalarType type, int lo, int hi, const Var& x, const Expr& value,
                            const BufferMap& inputs = {}, const ParamValues& params = {}) {
  Func f("f", type, {x}, {{lo, hi}});
  f.define(value);
  const BufferMap out = interpret(Pipeline({f}), params, inputs);
  EXPECT_EQ(out.at("f").type(), type);
  return values_of(out.at("f"));
}

TEST(Interpreter, FloorDivisionAndModuloOfNegatives) {
  Var x("x");
  EXPECT_THAT(eval_1d(ScalarType::Int32, -4, 4, x, x / 3),
              ElementsAre(-2, -1, -1, -1, 0, 0, 0, 1, 1));
  EXPECT_THAT(eval_1d(ScalarType::Int32, -4, 4, x, x % 3), ElementsAre(2, 0, 1, 2, 0, 1, 2, 0, 1));
  EXPECT_THAT(eval_1d(ScalarType::Int32, -4, 4, x, x / -3),
              ElementsAre(1, 1, 0, 0, 0, -1, -1, -1, -2));
  EXPECT_THAT(eval_1d(ScalarType::Int32, -4, 4, x, x % -3),
              ElementsAre(-1, 0, -2, -1, 0, -2, -1, 0, -2));
  EXPECT_THAT(eval_1d(ScalarType::Int32, -4, 4, x, trunc_div(x, 3)),
              ElementsAre(-1, -1, 0, 0, 0, 0, 0, 1, 1));
  EXPECT_THAT(eval_1d(ScalarType::Int32, -4, 4, x, trunc_mod(x, 3)),
              ElementsAre(-1, 0, -2, -1, 0, 1, 2, 0, 1));
}

TEST(Interpreter, DivisionByAVariableZeroYieldsZero) {
  Var x("x");
  // x - 1 is zero at x = 1 only.
  EXPECT_THAT(eval_1d(ScalarType::Int32, 0, 3, x, 12 / (x - 1)), ElementsAre(-12, 0, 12, 6));
  EXPECT_THAT(eval_1d(ScalarType::Int32, 0, 3, x, 7 % (x - 1)), ElementsAre(0, 0, 0, 1));
  EXPECT_THAT(eval_1d(ScalarType::Int32, 0, 3, x, trunc_div(-7, x - 1)), ElementsAre(7, 0, -7, -3));
  EXPECT_THAT(eval_1d(ScalarType::Int32, 0, 3, x, trunc_mod(-7, x - 1)), ElementsAre(0, 0, 0, -1));
}

TEST(Interpreter, IntegerArithmeticAndPromotion) {
  Var x("x");
  EXPECT_THAT(eval_1d(ScalarType::Int32, 0, 3, x, x * x - 2 * x + 1), ElementsAre(1, 0, 1, 4));
  // uint8 operands are promoted to int32 before the addition: no wrap at 256.
  EXPECT_THAT(
      eval_1d(ScalarType::Int32, 0, 1, x, cast<std::uint8_t>(x + 200) + cast<std::uint8_t>(100)),
      ElementsAre(300, 301));
  EXPECT_THAT(eval_1d(ScalarType::Int32, -2, 2, x, -x), ElementsAre(2, 1, 0, -1, -2));
  EXPECT_THAT(eval_1d(ScalarType::Int32, -2, 2, x, abs(x)), ElementsAre(2, 1, 0, 1, 2));
  EXPECT_THAT(eval_1d(ScalarType::Int32, -2, 2, x, min(x, 0)), ElementsAre(-2, -1, 0, 0, 0));
  EXPECT_THAT(eval_1d(ScalarType::Int32, -2, 2, x, max(x, 0)), ElementsAre(0, 0, 0, 1, 2));
  EXPECT_THAT(eval_1d(ScalarType::Int32, -2, 2, x, clamp(x * 3, -1, 4)),
              ElementsAre(-1, -1, 0, 3, 4));
  // int64 arithmetic beyond the int32 range.
  const std::int64_t big = 3'000'000'000;
  EXPECT_THAT(eval_1d(ScalarType::Int64, 0, 2, x, x * Expr(big) / 2),
              ElementsAre(0, 1'500'000'000, 3'000'000'000));
}

TEST(Interpreter, NarrowingCastsWrapAround) {
  Var x("x");
  EXPECT_THAT(eval_1d(ScalarType::UInt8, 0, 3, x, cast<std::uint8_t>(x * 100)),
              ElementsAre(0, 100, 200, 44));
  EXPECT_THAT(eval_1d(ScalarType::UInt8, -2, 0, x, cast<std::uint8_t>(x)),
              ElementsAre(254, 255, 0));
  EXPECT_THAT(eval_1d(ScalarType::Int16, 0, 3, x, cast<std::int16_t>(x * 20000)),
              ElementsAre(0, 20000, -25536, -5536));
  EXPECT_THAT(eval_1d(ScalarType::UInt16, 0, 2, x, cast<std::uint16_t>(x * 40000)),
              ElementsAre(0, 40000, 14464));
  EXPECT_THAT(eval_1d(ScalarType::Int32, 0, 2, x, cast<int>(x == 0)), ElementsAre(1, 0, 0));
  EXPECT_THAT(eval_1d(ScalarType::Bool, 0, 2, x, cast<bool>(x - 1)), ElementsAre(1, 0, 1));
  // int64 -> int32 keeps the low 32 bits.
  EXPECT_THAT(eval_1d(ScalarType::Int32, 0, 1, x,
                      cast<int>(cast<std::int64_t>(x) + Expr(std::int64_t{4294967296 + 5}))),
              ElementsAre(5, 6));
}

TEST(Interpreter, FloatToIntegerCastsTruncateTowardZero) {
  Var x("x");
  // x * 0.75 - 1.5 for x = 0..4: -1.5, -0.75, 0, 0.75, 1.5
  EXPECT_THAT(eval_1d(ScalarType::Int32, 0, 4, x, cast<int>(x * 0.75f - 1.5f)),
              ElementsAre(-1, 0, 0, 0, 1));
  EXPECT_THAT(eval_1d(ScalarType::UInt8, 0, 2, x, cast<std::uint8_t>(x * 100.5f)),
              ElementsAre(0, 100, 201));
  EXPECT_THAT(eval_1d(ScalarType::Bool, 0, 2, x, cast<bool>(x * 0.5f)), ElementsAre(0, 1, 1));
  EXPECT_THAT(eval_1d(ScalarType::Float32, 0, 2, x, cast<float>(x) / 4.0f),
              ElementsAre(0, 0.25, 0.5));
}

TEST(Interpreter, Float32IsRoundedAfterEveryOperation) {
  Var x("x");
  // 2^24 + 1 is not a float32: in float32 arithmetic the sum rounds back to 2^24.
  EXPECT_THAT(eval_1d(ScalarType::Float32, 0, 1, x, (16777216.0f + cast<float>(x)) - 16777216.0f),
              ElementsAre(0, 0));
  EXPECT_THAT(
      eval_1d(ScalarType::Float64, 0, 1, x, (f64(16777216.0) + cast<double>(x)) - f64(16777216.0)),
      ElementsAre(0, 1));
  const float third = 1.0f / 3.0f;
  const std::vector<double> v = eval_1d(ScalarType::Float32, 1, 1, x, cast<float>(x) / 3.0f * 3.0f);
  EXPECT_EQ(v[0], static_cast<double>(third * 3.0f));
  // 0.1f + 0.2f in float32 arithmetic.
  const std::vector<double> s =
      eval_1d(ScalarType::Float64, 0, 0, x, cast<double>(0.1f + cast<float>(x) + 0.2f));
  EXPECT_EQ(s[0], static_cast<double>(0.1f + 0.2f));
}

TEST(Interpreter, FloatFunctionsUseTheFloat32Versions) {
  Var x("x");
  const Expr v = cast<float>(x) * 0.37f + 0.1f; // 0.1f, 0.47f, 0.84f
  std::vector<float> in;
  for (int i = 0; i < 3; ++i)
    in.push_back(static_cast<float>(i) * 0.37f + 0.1f);
  const auto expect = [&](const Expr& e, float (*fn)(float)) {
    const std::vector<double> got = eval_1d(ScalarType::Float32, 0, 2, x, e);
    for (int i = 0; i < 3; ++i)
      EXPECT_EQ(got[static_cast<std::size_t>(i)],
                static_cast<double>(fn(in[static_cast<std::size_t>(i)])))
          << ir::to_string(e) << " at " << i;
  };
  expect(sqrt(v), [](float a) { return std::sqrt(a); });
  expect(exp(v), [](float a) { return std::exp(a); });
  expect(log(v), [](float a) { return std::log(a); });
  expect(sin(v), [](float a) { return std::sin(a); });
  expect(cos(v), [](float a) { return std::cos(a); });
  expect(pow(v, 2.5f), [](float a) { return std::pow(a, 2.5f); });
  expect(-v, [](float a) { return -a; });
  EXPECT_THAT(eval_1d(ScalarType::Float32, -2, 1, x, floor(cast<float>(x) * 0.5f)),
              ElementsAre(-1, -1, 0, 0));
  EXPECT_THAT(eval_1d(ScalarType::Float32, -2, 1, x, ceil(cast<float>(x) * 0.5f)),
              ElementsAre(-1, 0, 0, 1));
  EXPECT_THAT(eval_1d(ScalarType::Float32, -2, 1, x, abs(cast<float>(x) * 0.5f)),
              ElementsAre(1, 0.5, 0, 0.5));
  EXPECT_THAT(eval_1d(ScalarType::Float64, 0, 1, x, sqrt(cast<double>(x) + f64(3.0))),
              ElementsAre(std::sqrt(3.0), 2.0));
}

TEST(Interpreter, FloatModuloAndMinMax) {
  Var x("x");
  // a % 1 = a - floor(a): -1.5 -> 0.5, -1 -> 0, -0.5 -> 0.5, 0 -> 0, 0.5 -> 0.5
  EXPECT_THAT(eval_1d(ScalarType::Float32, -3, 1, x, (cast<float>(x) * 0.5f) % 1.0f),
              ElementsAre(0.5, 0, 0.5, 0, 0.5));
  EXPECT_THAT(eval_1d(ScalarType::Float32, -1, 1, x, 2.5f % (cast<float>(x) - 2.0f)),
              ElementsAre(-0.5, -1.5, -0.5));
  EXPECT_THAT(eval_1d(ScalarType::Float32, -1, 1, x, min(cast<float>(x), 0.25f)),
              ElementsAre(-1, 0, 0.25));
  EXPECT_THAT(eval_1d(ScalarType::Float32, -1, 1, x, max(cast<float>(x), 0.25f)),
              ElementsAre(0.25, 0.25, 1));
  EXPECT_THAT(eval_1d(ScalarType::Float32, 1, 3, x, pow(2.0f, cast<float>(x))),
              ElementsAre(2, 4, 8));
}

TEST(Interpreter, SelectComparisonsAndLogic) {
  Var x("x");
  EXPECT_THAT(eval_1d(ScalarType::Int32, 0, 5, x, select(x % 2 == 0, x / 2, -x)),
              ElementsAre(0, -1, 1, -3, 2, -5));
  EXPECT_THAT(eval_1d(ScalarType::Bool, 0, 5, x, x > 1 && x <= 3), ElementsAre(0, 0, 1, 1, 0, 0));
  EXPECT_THAT(eval_1d(ScalarType::Bool, 0, 5, x, x < 1 || x >= 5), ElementsAre(1, 0, 0, 0, 0, 1));
  EXPECT_THAT(eval_1d(ScalarType::Bool, 0, 3, x, !(x != 2)), ElementsAre(0, 0, 1, 0));
  EXPECT_THAT(eval_1d(ScalarType::Float32, 0, 3, x,
                      select(cast<float>(x) * 0.5f >= 1.0f, 1.0f, cast<float>(x) * 0.25f)),
              ElementsAre(0, 0.25, 1, 1));
  // Both branches may be evaluated: division by zero in the unused one is harmless.
  EXPECT_THAT(eval_1d(ScalarType::Int32, 0, 2, x, select(x == 1, 7, 10 / (x - 1))),
              ElementsAre(-10, 7, 10));
}

TEST(Interpreter, ParametersOfEveryKind) {
  Var x("x");
  Param n("n"), scale("scale", ScalarType::Float32), offset("offset", ScalarType::Float64);
  Func f("f", ScalarType::Float64, {x}, {{0, Expr(n) - 1}});
  f.define(cast<double>(cast<float>(x) * scale) + offset);
  const BufferMap out = interpret(Pipeline({f}), {{"n", 3}, {"scale", 0.5}, {"offset", 0.125}}, {});
  EXPECT_THAT(values_of(out.at("f")), ElementsAre(0.125, 0.625, 1.125));
  // A float32 parameter is rounded to float32.
  const BufferMap out2 = interpret(Pipeline({f}), {{"n", 2}, {"scale", 0.1}, {"offset", 0.0}}, {});
  EXPECT_EQ(values_of(out2.at("f"))[1], static_cast<double>(0.1f));
}

TEST(Interpreter, CasesFirstMatchWinsAndValuesAreReadOnlyWhereTheyApply) {
  Var x("x");
  Image in("in", ScalarType::Int32, {6});
  // g is defined on [0, 5] only; f reads it only where its cases allow.
  Func g("g", ScalarType::Int32, {x}, {{0, 5}});
  g.define(in(x)*10);
  Func f("f", ScalarType::Int32, {x}, {{0, 9}});
  f.define({Case(x <= 5 && x % 2 == 0, g(x)),        // box [0, 5] plus a residual
            Case(x >= 3 && x <= 8, g(x - 3) + 1000), // box [3, 8]
            Case(x == 1, Expr(-1))},
           Expr(-7));
  Buffer b(ScalarType::Int32, {6});
  for (int i = 0; i < 6; ++i)
    b.at<std::int32_t>({i}) = i + 1;
  const BufferMap out = interpret(Pipeline({f}), {}, {{"in", b}});
  EXPECT_THAT(values_of(out.at("f")),
              ElementsAre(10, -1, 30, 1010, 50, 1030, 1040, 1050, 1060, -7));
}

TEST(Interpreter, CaseWithANonBoxCondition) {
  Var x("x"), y("y");
  Func f("f", ScalarType::Int32, {x, y}, {{0, 2}, {0, 3}});
  f.define({Case(x * x + y * y <= 4, x + 10 * y)}, Expr(-1));
  const BufferMap out = interpret(Pipeline({f}), {}, {});
  EXPECT_THAT(values_of(out.at("f")), ElementsAre(0, 10, 20, -1, 1, 11, -1, -1, 2, -1, -1, -1));
}

TEST(Interpreter, OutputBufferStartsAtTheDomainsLowCorner) {
  Var x("x"), y("y");
  Param R("R"), C("C");
  Image img("img", ScalarType::Float32, {Expr(R) + 2, Expr(C) + 2});
  Func blurx("blurx", ScalarType::Float32, {x, y}, {{1, R}, {0, Expr(C) + 1}});
  blurx.define((img(x - 1, y) + img(x, y) + img(x + 1, y)) / 3.0f);
  Func blury("blury", ScalarType::Float32, {x, y}, {{1, R}, {1, C}});
  blury.define((blurx(x, y - 1) + blurx(x, y) + blurx(x, y + 1)) / 3.0f);
  Buffer in(ScalarType::Float32, {4, 5});
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 5; ++j)
      in.at<float>({i, j}) = static_cast<float>(i * 10 + j);
  const BufferMap out = interpret(Pipeline({blury}), {{"R", 2}, {"C", 3}}, {{"img", in}});
  const Buffer& b = out.at("blury");
  ASSERT_THAT(b.extents(), ElementsAre(2, 3));
  // The same float32 arithmetic written in C++ (no contraction in ISO mode).
  const auto bx = [&](int i, int j) {
    return (in.at<float>({i - 1, j}) + in.at<float>({i, j}) + in.at<float>({i + 1, j})) / 3.0f;
  };
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) {
      const int px = i + 1, py = j + 1; // element (i, j) holds the point (1 + i, 1 + j)
      EXPECT_EQ(b.at<float>({i, j}), (bx(px, py - 1) + bx(px, py) + bx(px, py + 1)) / 3.0f);
      EXPECT_NEAR(b.at<float>({i, j}), px * 10 + py, 1e-5);
    }
  }
}

TEST(Interpreter, HistogramReductionWithClampedTargets) {
  Var b("b");
  Image img("img", ScalarType::UInt8, {2, 4});
  RVar rx("rx", {0, 1}), ry("ry", {0, 3});
  Func hist("hist", ScalarType::Int32, {b}, {{0, 3}});
  // Bins beyond 3 are clamped to 3; a second update counts everything in bin 0.
  hist.define_reduction(
      Expr(0), {rx, ry},
      {sum_into({cast<int>(img(rx, ry))}, Expr(1)), sum_into({Expr(-5)}, Expr(1))});
  Buffer in(ScalarType::UInt8, {2, 4});
  const std::uint8_t v[8] = {0, 1, 1, 2, 3, 7, 200, 2};
  for (int i = 0; i < 8; ++i)
    static_cast<std::uint8_t*>(in.raw())[i] = v[i];
  const BufferMap out = interpret(Pipeline({hist}), {}, {{"img", in}});
  EXPECT_THAT(values_of(out.at("hist")), ElementsAre(1 + 8, 2, 2, 3));
}

TEST(Interpreter, MinMaxReductionsInOrder) {
  Var x("x");
  RVar r("r", {0, 5});
  Image img("img", ScalarType::Int16, {6});
  Func lo("lo", ScalarType::Int16, {x}, {{0, 1}});
  // Even r into element 0, odd r into element 1.
  lo.define_reduction(cast<std::int16_t>(100), {r}, {min_into({r % 2}, img(r))});
  Func hi("hi", ScalarType::Int16, {x}, {{0, 1}});
  hi.define_reduction(cast<std::int16_t>(-100), {r}, {max_into({r % 2}, img(r))});
  Buffer in(ScalarType::Int16, {6});
  const std::int16_t v[6] = {5, -3, 7, 9, -2, 4};
  for (int i = 0; i < 6; ++i)
    in.at<std::int16_t>({i}) = v[i];
  const BufferMap out = interpret(Pipeline({lo, hi}), {}, {{"img", in}});
  EXPECT_THAT(values_of(out.at("lo")), ElementsAre(-2, -3));
  EXPECT_THAT(values_of(out.at("hi")), ElementsAre(7, 9));
}

TEST(Interpreter, Float32SumRoundsEveryStep) {
  Var x("x");
  RVar r("r", {0, 9});
  Func s("s", ScalarType::Float32, {x}, {{0, 0}});
  // 2^24 + 1 + 1 + ... stays 2^24 in float32 (each step rounds back).
  s.define_reduction(16777216.0f, {r}, {sum_into({Expr(0)}, 1.0f)});
  Func d("d", ScalarType::Float64, {x}, {{0, 0}});
  d.define_reduction(f64(16777216.0), {r}, {sum_into({Expr(0)}, f64(1.0))});
  const BufferMap out = interpret(Pipeline({s, d}), {}, {});
  EXPECT_THAT(values_of(out.at("s")), ElementsAre(16777216.0));
  EXPECT_THAT(values_of(out.at("d")), ElementsAre(16777226.0));
}

TEST(Interpreter, ReductionUpdatesInterleavePerPoint) {
  Var x("x");
  RVar r("r", {1, 3});
  Func f("f", ScalarType::Int32, {x}, {{0, 0}});
  // Per point r: first max with r*10, then add 1: max(0,10)+1=11, max(11,20)+1=21, max(21,30)+1=31.
  f.define_reduction(Expr(0), {r}, {max_into({Expr(0)}, r * 10), sum_into({Expr(0)}, Expr(1))});
  const BufferMap out = interpret(Pipeline({f}), {}, {});
  EXPECT_THAT(values_of(out.at("f")), ElementsAre(31));
}

TEST(Interpreter, DataDependentLookupIsClamped) {
  Var x("x"), v("v");
  Image img("img", ScalarType::Int32, {5});
  Func lut("lut", ScalarType::Int32, {v}, {{0, 3}});
  lut.define(v * 10 + 1);
  Func out("out", ScalarType::Int32, {x}, {{0, 4}});
  out.define(lut(img(x)));
  Buffer in(ScalarType::Int32, {5});
  const std::int32_t vals[5] = {-5, 0, 2, 3, 9};
  for (int i = 0; i < 5; ++i)
    in.at<std::int32_t>({i}) = vals[i];
  const BufferMap r = interpret(Pipeline({out}), {}, {{"img", in}});
  EXPECT_THAT(values_of(r.at("out")), ElementsAre(1, 1, 21, 31, 31));
}

TEST(Interpreter, LongRowsAndManyRowsMatchADirectComputation) {
  // Rows longer than one stretch and enough points to use several threads.
  Var x("x"), y("y");
  Param R("R"), C("C");
  Image img("img", ScalarType::UInt16, {R, C});
  Func f("f", ScalarType::Int32, {x, y}, {{0, Expr(R) - 1}, {1, Expr(C) - 2}});
  f.define({Case(y < 100, cast<int>(img(x, y)) * 2)},
           cast<int>(img(x, y - 1)) - cast<int>(img(x, y + 1)) + x);
  const int rows = 70, cols = 2600;
  Buffer in(ScalarType::UInt16, {rows, cols});
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j)
      in.at<std::uint16_t>({i, j}) = static_cast<std::uint16_t>((i * 7919 + j * 104729) % 65536);
  const BufferMap out = interpret(Pipeline({f}), {{"R", rows}, {"C", cols}}, {{"img", in}});
  const Buffer& b = out.at("f");
  ASSERT_THAT(b.extents(), ElementsAre(rows, cols - 2));
  for (int i = 0; i < rows; ++i) {
    for (int y0 = 1; y0 <= cols - 2; ++y0) {
      const int expected =
          y0 < 100 ? in.at<std::uint16_t>({i, y0}) * 2
                   : in.at<std::uint16_t>({i, y0 - 1}) - in.at<std::uint16_t>({i, y0 + 1}) + i;
      ASSERT_EQ(b.at<std::int32_t>({i, y0 - 1}), expected) << i << "," << y0;
    }
  }
}

TEST(Interpreter, IntermediatesAndSharedSubexpressions) {
  Var x("x");
  Func a("a", ScalarType::Int32, {x}, {{0, 4}});
  a.define(x * 3);
  const Expr shared = a(x) + 1;
  Func b("b", ScalarType::Int32, {x}, {{1, 3}});
  b.define(shared * shared + a(x - 1));
  Func c("c", ScalarType::Int32, {x}, {{1, 3}});
  c.define(b(x) - a(x + 1));
  const BufferMap out = interpret(Pipeline({c, a}), {}, {});
  // b(x) = (3x+1)^2 + 3(x-1); c = b - 3(x+1)
  EXPECT_THAT(values_of(out.at("c")), ElementsAre(16 - 6, 49 + 3 - 9, 100 + 6 - 12));
  EXPECT_THAT(values_of(out.at("a")), ElementsAre(0, 3, 6, 9, 12));
}

} // namespace
} // namespace trapeze

namespace trapeze {
namespace {

Buffer floats(const std::vector<float>& values) {
  Buffer b(ScalarType::Float32, {static_cast<std::int64_t>(values.size())});
  for (std::size_t i = 0; i < values.size(); ++i)
    b.data<float>()[i] = values[i];
  return b;
}

// The oracle cannot be fooled (issue 13): bit for bit where exactness is
// promised, and with a tolerance relative to the values, not to 1.
TEST(Oracle, ExactComparisonCatchesOneUlp) {
  const float v = 0.3f;
  EXPECT_FALSE(compare_buffers(floats({v, 1.0f}), floats({v, 1.0f}), 0).has_value());
  const auto m = compare_buffers(floats({v, 1.0f}), floats({std::nextafter(v, 1.0f), 1.0f}), 0);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->index, std::vector<std::int64_t>{0});
  EXPECT_EQ(m->count, 1);
}

TEST(Oracle, SmallOutputsAreNotHiddenByAnAbsoluteFloor) {
  // A multigrid residual norm of about 5e-5, computed as 0: the old check
  // (|a - e| / max(1, |e|) <= 1e-4) passed it.
  EXPECT_TRUE(compare_buffers(floats({5e-5f}), floats({0.0f}), 1e-4).has_value());
  EXPECT_TRUE(compare_buffers(floats({1e-5f, -2e-5f}), floats({0.0f, 0.0f}), 1e-4).has_value());
  // Within the tolerance relative to the buffer's magnitude: a reduction's rounding.
  EXPECT_FALSE(compare_buffers(floats({1e-5f}), floats({1e-5f * (1 + 1e-6f)}), 1e-4).has_value());
}

TEST(Oracle, EqualInfinitiesAndNaNsAreEqual) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::nanf("");
  for (double tolerance : {0.0, 1e-4}) {
    EXPECT_FALSE(
        compare_buffers(floats({inf, -inf, nan}), floats({inf, -inf, nan}), tolerance).has_value());
    EXPECT_TRUE(compare_buffers(floats({inf}), floats({-inf}), tolerance).has_value());
    EXPECT_TRUE(compare_buffers(floats({inf}), floats({nan}), tolerance).has_value());
    EXPECT_TRUE(compare_buffers(floats({1.0f}), floats({inf}), tolerance).has_value());
  }
}

TEST(Oracle, ExactUnlessAReassociatedFloatSumFeedsTheOutput) {
  Var x("x");
  RVar r("r", {0, 9});
  Image in("in", ScalarType::Float32, {10});
  Func scaled("scaled", ScalarType::Float32, {x}, {{0, 9}});
  scaled.define(in(x)*2.0f);
  Func sum("sum", ScalarType::Float32, {x}, {{0, 0}});
  sum.define_reduction(0.0f, {r}, {sum_into({0}, scaled(r))});
  Func after("after", ScalarType::Float32, {x}, {{0, 0}});
  after.define(sum(x) + 1.0f);
  Func count("count", ScalarType::Int32, {x}, {{0, 0}});
  count.define_reduction(0, {r}, {sum_into({0}, 1)});
  Func wave("wave", ScalarType::Float32, {x}, {{0, 9}});
  wave.define(sin(scaled(x)));
  Func root("root", ScalarType::Float32, {x}, {{0, 9}});
  root.define(sqrt(scaled(x)));
  const Pipeline p({scaled, after, count, wave, root});
  const std::set<std::string> reassociated = {"sum"};
  EXPECT_EQ(output_tolerance(p, *p.stage("scaled"), reassociated, 1e-4), 0);
  EXPECT_EQ(output_tolerance(p, *p.stage("after"), reassociated, 1e-4), 1e-4);
  EXPECT_EQ(output_tolerance(p, *p.stage("after"), {}, 1e-4), 0); // the sum in order: exact
  EXPECT_EQ(output_tolerance(p, *p.stage("count"), reassociated, 1e-4), 0);
  EXPECT_EQ(output_tolerance(p, *p.stage("wave"), reassociated, 1e-4), 0); // sin: the library's
  EXPECT_EQ(output_tolerance(p, *p.stage("root"), reassociated, 1e-4), 0);
}

} // namespace
} // namespace trapeze
