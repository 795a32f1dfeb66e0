// Interval arithmetic over expressions: exact on affine forms, conservative elsewhere.
#include "analysis/interval_bounds.h"
#include "trapeze/dsl.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace trapeze::analysis {
namespace {

IntRange range(const Expr& e, const VarRanges& vars, const ParamValues& params = {}) {
  return integer_range(e, vars, params);
}

TEST(IntervalBounds, AffineFormsAreExact) {
  Var x("x"), y("y");
  Param R("R");
  const VarRanges v{{"x", {1, 10}}, {"y", {-3, 4}}};
  EXPECT_EQ(range(x + 2 * y - 1, v), (IntRange{-6, 17}));
  EXPECT_EQ(range(x - y, v), (IntRange{-3, 13}));
  EXPECT_EQ(range(-3 * x + y, v), (IntRange{-33, 1}));
  EXPECT_EQ(range(x + R, v, {{"R", 100}}), (IntRange{101, 110}));
  EXPECT_EQ(range(2 * x + 1, v), (IntRange{3, 21}));
}

TEST(IntervalBounds, FloorDivisionAndModulo) {
  Var x("x"), y("y");
  const VarRanges v{{"x", {-5, 9}}, {"y", {-2, 3}}};
  EXPECT_EQ(range(x / 2, v), (IntRange{-3, 4}));
  EXPECT_EQ(range(x / -2, v), (IntRange{-5, 2}));
  EXPECT_EQ(range(trunc_div(x, 2), v), (IntRange{-2, 4}));
  EXPECT_EQ(range(x % 4, v), (IntRange{0, 3}));
  EXPECT_EQ(range(x % -4, v), (IntRange{-3, 0}));
  EXPECT_EQ(range(trunc_mod(x, 4), v), (IntRange{-3, 3}));
  // Inside one block of the divisor the remainder is exact.
  EXPECT_EQ(range(x % 16, VarRanges{{"x", {17, 20}}}), (IntRange{1, 4}));
  // A divisor range containing zero: the quotient by 0 is 0, by -1 and 1 the extremes.
  EXPECT_EQ(range(x / y, v), (IntRange{-9, 9}));
  EXPECT_EQ(range(x % y, v), (IntRange{-1, 2}));
  EXPECT_EQ(range(trunc_mod(x, y), v), (IntRange{-2, 2}));
}

TEST(IntervalBounds, MinMaxSelectAbsNeg) {
  Var x("x");
  const VarRanges v{{"x", {-4, 6}}};
  EXPECT_EQ(range(min(x, 2), v), (IntRange{-4, 2}));
  EXPECT_EQ(range(max(x, 0), v), (IntRange{0, 6}));
  EXPECT_EQ(range(clamp(x + 5, 0, 7), v), (IntRange{1, 7}));
  EXPECT_EQ(range(select(x > 0, x, -2 * x), v), (IntRange{-12, 8}));  // the union
  EXPECT_EQ(range(select(x > 10, x * 100, x), v), (IntRange{-4, 6})); // the condition is false
  EXPECT_EQ(range(abs(x), v), (IntRange{0, 6}));
  EXPECT_EQ(range(-x, v), (IntRange{-6, 4}));
  EXPECT_EQ(range(x < 10, v), (IntRange{1, 1}));
  EXPECT_EQ(range(x < 0, v), (IntRange{0, 1}));
}

TEST(IntervalBounds, CastsAndOverflow) {
  Var x("x");
  const VarRanges v{{"x", {0, 300}}};
  EXPECT_EQ(range(cast<std::uint8_t>(x), v), (IntRange{0, 255}));     // may wrap: full range
  EXPECT_EQ(range(cast<std::uint8_t>(x / 2), v), (IntRange{0, 150})); // provably in range
  EXPECT_EQ(range(cast<std::int16_t>(x - 400), v), (IntRange{-400, -100}));
  EXPECT_EQ(range(cast<std::int64_t>(x) * Expr(std::int64_t{1} << 40), v),
            (IntRange{0, 300 * (std::int64_t{1} << 40)}));
  // An int32 product that may overflow: nothing is known.
  EXPECT_EQ(range(x * 10000000, v), full_range(ScalarType::Int32));
}

TEST(IntervalBounds, IndicesComputedThroughFloats) {
  Var x("x");
  Param s("s", ScalarType::Float32);
  const VarRanges v{{"x", {0, 10}}};
  EXPECT_EQ(range(cast<int>(cast<float>(x) * 0.5f), v), (IntRange{0, 5}));
  EXPECT_EQ(range(cast<int>(cast<float>(x) * s + 1.0f), v, {{"s", 0.25}}), (IntRange{1, 3}));
  EXPECT_EQ(range(cast<int>(floor(cast<float>(x) * 0.3f - 1.0f)), v), (IntRange{-1, 2}));
  // A float that may exceed the integer type: full range.
  EXPECT_EQ(range(cast<std::uint8_t>(cast<float>(x) * 30.0f), v), (IntRange{0, 255}));
  // Division by a range containing zero: anything (including NaN).
  EXPECT_EQ(range(cast<int>(1.0f / cast<float>(x)), v), full_range(ScalarType::Int32));
  const FloatRange f = float_range(sqrt(cast<float>(x)), v, {});
  EXPECT_EQ(f.lo, 0);
  EXPECT_FLOAT_EQ(static_cast<float>(f.hi), std::sqrt(10.0f));
  EXPECT_FALSE(f.may_be_nan);
}

TEST(IntervalBounds, ReadsFromMemoryAreUnbounded) {
  Var x("x");
  Image img("img", ScalarType::UInt8, {10});
  Image fimg("fimg", ScalarType::Float32, {10});
  const VarRanges v{{"x", {0, 9}}};
  EXPECT_EQ(range(cast<int>(img(x)), v), (IntRange{0, 255}));
  EXPECT_EQ(range(cast<int>(fimg(x)), v), full_range(ScalarType::Int32));
}

TEST(IntervalBounds, MissingParameterIsAnError) {
  Var x("x");
  Param R("R");
  EXPECT_THROW((void)range(x + R, VarRanges{{"x", {0, 1}}}), Error);
}

} // namespace
} // namespace trapeze::analysis
