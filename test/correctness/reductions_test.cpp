// Reductions run in parallel where their updates allow (reduction_parallelism.h)
// and give the interpreter's result: bit for bit over disjoint points and for
// integer partial results, within the float tolerance for float sums.
#include "support/lowering.h"
#include "trapeze/dsl.h"
#include "trapeze/runtime.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace trapeze {
namespace {

using testing::HasSubstr;

Buffer ramp(std::int64_t rows, std::int64_t cols) {
  Buffer img(ScalarType::Float32, {rows, cols});
  for (std::int64_t i = 0; i < img.size(); ++i)
    img.set_from_double(i, static_cast<double>((i * 37) % 101) / 100.0 - 0.3);
  return img;
}

// Runs `p` bounds-checked at R x C and compares every output with the
// interpreter (`tolerance` for floats); returns the lowered loop IR.
std::string expect_matches(const Pipeline& p, std::int64_t rows, std::int64_t cols,
                           double tolerance) {
  CompileOptions checked;
  checked.bounds_check = true;
  const CompiledPipeline compiled = compile(p, checked);
  const ParamValues bound = p.bind({{"R", rows}, {"C", cols}});
  const BufferMap inputs = {{"img", ramp(rows, cols)}};
  const BufferMap expected = interpret(p, bound, inputs);
  for (const int threads : {1, 2}) {
    const BufferMap actual = compiled.run(bound, inputs, threads);
    for (const auto& out : p.outputs()) {
      const auto mismatch =
          compare_buffers(expected.at(out->name()), actual.at(out->name()), tolerance);
      EXPECT_FALSE(mismatch.has_value())
          << out->name() << " with " << threads << " threads: " << (mismatch ? mismatch->str() : "")
          << "\n"
          << compiled.source();
    }
  }
  return testing_support::lowered_text(p, Schedule::naive(p));
}

// A histogram of bins by value (the bins are data-dependent, the domain a
// constant box): partial results, exact for integer counts; its float sums
// within tolerance; a minimum and a maximum, exact.
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
  EXPECT_THAT(ir, HasSubstr("in parallel over rx: distinct rx update distinct points"));
  EXPECT_THAT(ir, HasSubstr("parallel for rx in [0, R - 1]"));
  EXPECT_THAT(ir, HasSubstr("updates in order, serial over rx in [0, R - 1], ry in [0, C - 1]"));
}

} // namespace
} // namespace trapeze
