// The expression IR, the DSL front end and pipeline construction.
#include "ir/value_numbers.h"
#include "trapeze/dsl.h"
#include "trapeze/ir_visitor.h"
#include "trapeze/pipeline.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

namespace trapeze {
namespace {

using ir::to_string;

TEST(Types, UsualArithmeticConversions) {
  EXPECT_EQ(arithmetic_result(ScalarType::UInt8, ScalarType::Int16), ScalarType::Int32);
  EXPECT_EQ(arithmetic_result(ScalarType::Int32, ScalarType::Int64), ScalarType::Int64);
  EXPECT_EQ(arithmetic_result(ScalarType::Int64, ScalarType::Float32), ScalarType::Float32);
  EXPECT_EQ(arithmetic_result(ScalarType::Float32, ScalarType::Float64), ScalarType::Float64);
  EXPECT_EQ(arithmetic_result(ScalarType::Bool, ScalarType::Bool), ScalarType::Int32);
}

TEST(Expr, LiteralsAndPromotion) {
  Var x("x");
  Param R("R");
  EXPECT_EQ(Expr(3).type(), ScalarType::Int32);
  EXPECT_EQ(Expr(0.5).type(), ScalarType::Float32);
  EXPECT_EQ(f64(0.5).type(), ScalarType::Float64);
  EXPECT_EQ((x + 1).type(), ScalarType::Int32);
  EXPECT_EQ((x + R).type(), ScalarType::Int64);
  EXPECT_EQ((x * 0.5f).type(), ScalarType::Float32);
  EXPECT_EQ((x < R).type(), ScalarType::Bool);
  EXPECT_EQ(sqrt(x).type(), ScalarType::Float32);
  EXPECT_EQ(cast<std::uint8_t>(x).type(), ScalarType::UInt8);
  EXPECT_EQ((cast<std::uint8_t>(x) + cast<std::uint8_t>(x)).type(), ScalarType::Int32);
}

TEST(Expr, PrintsWithMinimalParentheses) {
  Var x("x"), y("y");
  EXPECT_EQ(to_string((x + 1) * 2), "(x + 1) * 2");
  EXPECT_EQ(to_string(x + 1 * y), "x + 1 * y");
  EXPECT_EQ(to_string(x - (y - 1)), "x - (y - 1)");
  EXPECT_EQ(to_string(x * 0.0625f), "float32(x) * 0.0625f");
  EXPECT_EQ(to_string(select(x % 2 == 0, x / 2, -x)), "select(x % 2 == 0, x / 2, -x)");
  EXPECT_EQ(to_string(f64(0.1) + 1), "0.1 + 1.0");
}

TEST(Expr, ImpliedInt64ConstantsPrintPlainlyOnlyIfTheyFitInt32) {
  Param R("R");
  Var x("x");
  EXPECT_EQ(to_string(x <= R + 1), "x <= R + 1");
  EXPECT_EQ(to_string(R + std::int64_t{3000000000}), "R + int64(3000000000)");
  EXPECT_EQ(to_string(cast<std::int64_t>(x) + cast<std::int64_t>(x)), "int64(x) + int64(x)");
}

TEST(Expr, ConstantDivisionByZeroIsAnError) {
  Var x("x");
  EXPECT_THROW((void)(x / 0), Error);
  EXPECT_THROW((void)(x % 0), Error);
  EXPECT_NO_THROW((void)(cast<float>(x) / 0.0f));
}

// Equal values get one number whichever nodes hold them; anything that
// changes the value (a constant's bits, a name, a producer, an operand's
// order or type) changes the number.
TEST(ValueNumbers, EqualValuesShareANumberAndOnlyThey) {
  Param N("N");
  Var x("x"), y("y");
  Image img("img", ScalarType::Float32, {N});
  Image other("other", ScalarType::Float32, {N});
  ir::ValueNumbers numbers;
  const auto number = [&](const Expr& e) { return numbers.number(e); };
  // Built twice: distinct nodes, one value.
  EXPECT_EQ(number(img(x + 1) * 2.0f + img(x)), number(img(x + 1) * 2.0f + img(x)));
  EXPECT_EQ(number(select(x < 3, img(x), 0.5f)), number(select(x < 3, img(x), 0.5f)));
  EXPECT_NE(number(img(x + 1)), number(img(x + 2)));
  EXPECT_NE(number(img(x)), number(other(x)));
  EXPECT_NE(number(x - y), number(y - x));
  EXPECT_NE(number(x + 1), number(y + 1));
  EXPECT_NE(number(Expr(0.0f)), number(Expr(-0.0f)));
  EXPECT_NE(number(Expr(1)), number(Expr(std::int64_t{1})));
  EXPECT_NE(number(Expr(1.0f)), number(f64(1.0)));
  EXPECT_NE(number(x), number(Expr(ir::ParamRef::make("x"))));
  EXPECT_NE(number(sqrt(img(x))), number(abs(img(x))));
  EXPECT_NE(number(min(x, y)), number(max(x, y)));
  EXPECT_EQ(ir::operands(img(x) + 1.0f).size(), 2u);
  EXPECT_TRUE(ir::operands(x).empty());
}

// Coordinates composed through inlining (x + 3 + 1, x + 2 + 2) are one node
// once canonical, whatever the grouping; constants fold modulo 2^bits, as
// integer arithmetic wraps; sums of loaded values keep their written order.
TEST(Canonicalizer, EqualSumsOfCoordinatesAreOneNode) {
  Param N("N");
  Var x("x"), y("y");
  Image img("img", ScalarType::Float32, {N, N});
  Image counts("counts", ScalarType::Int32, {N});
  ir::Canonicalizer canonical;
  const Expr a = canonical.canonical(img((x + 3) + 1, y - 2 + 1));
  const Expr b = canonical.canonical(img(x + 2 + 2, (y + 1) - 2));
  const Expr c = canonical.canonical(img(1 + (3 + x), y - 1));
  EXPECT_EQ(a.get(), b.get());
  EXPECT_EQ(a.get(), c.get());
  EXPECT_EQ(ir::to_string(a), "img(x + 4, y - 1)");
  // Terms merge and cancel; variables come first, by name; 3 - x, not -x + 3.
  EXPECT_EQ(ir::to_string(canonical.canonical(y + x * 2 - x + 1 - x)), "y + 1");
  EXPECT_EQ(ir::to_string(canonical.canonical(3 - (x + y) + 2 * y)), "y - x + 3");
  EXPECT_EQ(ir::to_string(canonical.canonical(2 - x)), "2 - x");
  EXPECT_EQ(ir::to_string(canonical.canonical((x + 1) * 3 - 3)), "3 * x");
  EXPECT_EQ(ir::to_string(canonical.canonical(x - x)), "0");
  // int32 wraps: x + 2147483647 + 1 is x - 2^31 for every x.
  const Expr wrapped = canonical.canonical(x + 2147483647 + 1);
  const auto* sum = wrapped.as<ir::Binary>();
  ASSERT_NE(sum, nullptr);
  ASSERT_NE(sum->b.as<ir::IntConst>(), nullptr);
  EXPECT_EQ(sum->b.as<ir::IntConst>()->value, std::int64_t{INT32_MIN});
  EXPECT_EQ(wrapped.type(), ScalarType::Int32);
  // Loads are no coordinates: their sum is left as written.
  EXPECT_EQ(ir::to_string(canonical.canonical(counts(y) + counts(x) + 1 + 2)),
            "counts(y) + counts(x) + 1 + 2");
}

// A node shared by many parents is visited once, where the recursive
// pre-order first meets it, and rewritten once: a value doubled sixty times
// spells a tree of 2^60 leaves but is 61 nodes, and stays so.
TEST(ExprWalks, SharedNodesAreVisitedAndRewrittenOnce) {
  Var x("x"), y("y");
  const Expr sum = x + y;
  const Expr e = sum * 2 + (sum - 1);
  std::vector<const ir::ExprNode*> order;
  ir::for_each_node(e, [&](const Expr& n) { order.push_back(n.get()); });
  ASSERT_GE(order.size(), 3u);
  EXPECT_EQ(order[0], e.get());
  EXPECT_EQ(order[2], sum.get()); // inside sum * 2, before sum - 1
  EXPECT_EQ(std::count(order.begin(), order.end(), sum.get()), 1);

  Expr doubled = x;
  for (int k = 0; k < 60; ++k)
    doubled = doubled + doubled;
  const Expr moved = ir::substitute_vars(doubled, {{"x", Expr(y) + 1}});
  int nodes = 0;
  ir::for_each_node(moved, [&](const Expr&) { ++nodes; });
  EXPECT_EQ(nodes, 60 + 3); // the sums, y + 1, y and 1
}

TEST(Pipeline, TopologicalOrderAndParams) {
  Param R("R"), C("C");
  Var x("x"), y("y");
  Image img("img", ScalarType::Float32, {R + 2, C + 2});
  Func blurx("blurx", ScalarType::Float32, {x, y}, {{1, R}, {0, C + 1}});
  blurx.define((img(x - 1, y) + img(x, y) + img(x + 1, y)) / 3.0f);
  Func blury("blury", ScalarType::Float32, {x, y}, {{1, R}, {1, C}});
  blury.define((blurx(x, y - 1) + blurx(x, y) + blurx(x, y + 1)) / 3.0f);
  Pipeline p({blury}, "blur");
  ASSERT_EQ(p.stages().size(), 2u);
  EXPECT_EQ(p.stages()[0]->name(), "blurx");
  EXPECT_EQ(p.stages()[1]->name(), "blury");
  ASSERT_EQ(p.inputs().size(), 1u);
  ASSERT_EQ(p.params().size(), 2u);
  EXPECT_EQ(p.params()[0].name, "C");
  const ParamValues bound = p.bind({{"R", 10}, {"C", 20}});
  EXPECT_EQ(concrete_domain(*p.stage("blury"), bound).str(), "[1, 10] x [1, 20]");
  EXPECT_EQ(p.consumers(*p.stage("blurx")).size(), 1u);
}

// f(x) = x * gain on [0, n + 1]: an int64 parameter n and a float32 gain.
Pipeline scaled_by_gain(const std::string& name) {
  Param n("n"), gain("gain", ScalarType::Float32);
  Var x("x");
  Func f("f", ScalarType::Float32, {x}, {{0, n + 1}});
  f.define(cast(ScalarType::Float32, x) * gain);
  return Pipeline({f}, name);
}

// An int64 parameter's declared range: bind() and the defaults respect it,
// and every mistake is an error naming the parameter.
TEST(Pipeline, ParameterRanges) {
  Pipeline p = scaled_by_gain("ranged");
  p.set_range("n", 1, 64);
  EXPECT_EQ(p.params()[1].name, "n");
  EXPECT_EQ(p.params()[1].min, 1);
  EXPECT_EQ(p.params()[1].max, 64);
  EXPECT_EQ(p.bind({{"n", 1}, {"gain", 2.0}}).at("n").i, 1);
  EXPECT_EQ(p.bind({{"n", 64}, {"gain", 2.0}}).at("n").i, 64);
  const auto message = [&](const std::function<void()>& fn) {
    try {
      fn();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(message([&] {
                p.bind({{"n", 0}, {"gain", 2.0}});
              }),
              testing::HasSubstr("parameter 'n' of pipeline 'ranged' is given the value 0, outside "
                                 "its range n in [1, 64]"));
  EXPECT_THAT(message([&] {
                p.bind({{"n", 65}, {"gain", 2.0}});
              }),
              testing::HasSubstr("the value 65, outside its range n in [1, 64]"));
  EXPECT_THAT(message([&] { p.set_default("n", 100); }),
              testing::HasSubstr("has the default 100, outside its range"));
  EXPECT_THAT(message([&] { p.set_range("gain", 0, 1); }),
              testing::HasSubstr("only int64 parameters have a range"));
  EXPECT_THAT(message([&] { p.set_range("n", 5, 4); }), testing::HasSubstr("[5, 4] is empty"));
  EXPECT_THAT(message([&] { p.set_range("m", 0, 1); }),
              testing::HasSubstr("no parameter named 'm'"));
  p.set_range("n", std::nullopt, std::nullopt);
  EXPECT_EQ(p.bind({{"n", -1}, {"gain", 2.0}}).at("n").i, -1);
}

TEST(Pipeline, GivesEveryParamCountsDefaults) {
  Pipeline p = scaled_by_gain("partly_bound");
  EXPECT_FALSE(p.gives_every_param({}));
  EXPECT_FALSE(p.gives_every_param({{"n", 4}}));
  EXPECT_TRUE(p.gives_every_param({{"n", 4}, {"gain", 2.0}}));
  p.set_default("gain", 1.0);
  EXPECT_TRUE(p.gives_every_param({{"n", 4}}));
}

TEST(Sizes, BufferBytesStopsAtTheLimit) {
  const std::vector<std::int64_t> small{3, 5}, empty{0, std::int64_t{1} << 62};
  EXPECT_EQ(buffer_bytes(ScalarType::Float32, small), 60);
  EXPECT_EQ(buffer_bytes(ScalarType::Float64, empty), 0);
  const std::vector<std::int64_t> at_limit{max_buffer_bytes / 8}, over{max_buffer_bytes / 8 + 1};
  EXPECT_EQ(buffer_bytes(ScalarType::Float64, at_limit), max_buffer_bytes);
  EXPECT_EQ(buffer_bytes(ScalarType::Float64, over), std::nullopt);
  // A product that wraps int64 (2^40 x 2^40 x 4) is refused, not wrapped to 0.
  const std::vector<std::int64_t> wraps{std::int64_t{1} << 40, std::int64_t{1} << 40};
  EXPECT_EQ(buffer_bytes(ScalarType::Float32, wraps), std::nullopt);
}

TEST(Sizes, ParamBindingsTextNamesEachParameterOnce) {
  Param n("n"), s("s", ScalarType::Float32);
  const std::vector<Expr> exprs{n + n * 2, Expr(s) * 2.0f, Param("unbound") + 1};
  EXPECT_EQ(param_bindings_text(exprs, {{"n", 7}, {"s", 0.5}}), "n=7, s=0.5, unbound=?");
  EXPECT_EQ(param_bindings_text({Expr(3)}, {}), "");
}

} // namespace
} // namespace trapeze
