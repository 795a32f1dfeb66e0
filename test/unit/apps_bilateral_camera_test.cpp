// The bilateral grid and camera pipeline apps (benchmarks.md sections 3 and
// 4): their stages, values computed by hand from the spec's formulas (run
// through the reference interpreter, stage by stage where useful), and the
// inputs they make from a user's image.
#include "app.h"

#include "trapeze/error.h"
#include "trapeze/runtime.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

namespace trapeze::apps {
namespace {

using testing::HasSubstr;

std::set<std::string> stage_names(const Pipeline& p) {
  std::set<std::string> names;
  for (const auto& s : p.stages())
    names.insert(s->name());
  return names;
}

/// The pipeline that computes only `stage` of `p` (and what it reads).
Pipeline only(const Pipeline& p, const std::string& stage) {
  return Pipeline(std::vector<ir::FunctionPtr>{p.stage(stage)}, stage + "_only");
}

/// A bilateral grid input [R][C] holding one value everywhere.
BufferMap constant_bilateral_input(const Pipeline& p, const ParamValues& params, float value) {
  Buffer input(ScalarType::Float32, input_extents(p, "input", params));
  std::fill_n(input.data<float>(), input.size(), value);
  return {{"input", input}};
}

TEST(BilateralCameraApps, FollowHarrisInTheRegistry) {
  std::vector<std::string> names;
  for (const App& a : all_apps())
    names.push_back(a.name);
  ASSERT_GE(names.size(), 4u);
  EXPECT_EQ(names[2], "harris");
  EXPECT_EQ(names[3], "bilateral_grid");
}

TEST(BilateralGridApp, HasTheSixStagesOfTheSpec) {
  const App& app = find_app("bilateral_grid");
  const Pipeline p = app.build();
  EXPECT_EQ(p.stages().size(), 6u);
  EXPECT_EQ(stage_names(p),
            (std::set<std::string>{"grid", "blurz", "blurx", "blury", "interpolated", "filtered"}));
  EXPECT_TRUE(p.stage("grid")->definition().is_reduction());
  ASSERT_EQ(p.outputs().size(), 1u);
  EXPECT_EQ(p.outputs()[0]->name(), "filtered");
  // The spec's default size: R = 2560 + 56, C = 1536 + 56, grid X in [1, 325], Y in [1, 197].
  const ParamValues bound = p.bind(app.default_size);
  EXPECT_EQ(bound.at("R").i, 2616);
  EXPECT_EQ(bound.at("C").i, 1592);
  const Box grid = concrete_domain(*p.stage("grid"), bound);
  EXPECT_EQ(grid.str(), "[0, 1] x [1, 325] x [1, 197] x [0, 14]");
  EXPECT_EQ(concrete_domain(*p.stage("blury"), bound).str(),
            "[0, 1] x [3, 323] x [3, 195] x [2, 12]");
  EXPECT_EQ(concrete_domain(*p.stage("filtered"), bound).str(), "[24, 2583] x [24, 1559]");
}

TEST(BilateralGridApp, HistogramOfAConstantImageFillsOneBin) {
  const App& app = find_app("bilateral_grid");
  const Pipeline p = app.build();
  const ParamValues params = app.size_for_image(3, 5); // R = 59, C = 61: X, Y in [1, 6]
  const Pipeline grid_only = only(p, "grid");
  // v = 0.5: bin 2 + (int)(10 * 0.5 + 0.5) = 7; each cell sums 9 x 9 samples.
  const BufferMap out =
      interpret(grid_only, params, constant_bilateral_input(grid_only, params, 0.5f));
  const Buffer& grid = out.at("grid");
  ASSERT_EQ(grid.extents(), (std::vector<std::int64_t>{2, 6, 6, 15}));
  for (std::int64_t z = 0; z < 15; ++z) {
    EXPECT_EQ(grid.at<float>({0, 2, 3, z}), z == 7 ? 40.5f : 0.0f) << "z = " << z;
    EXPECT_EQ(grid.at<float>({1, 2, 3, z}), z == 7 ? 81.0f : 0.0f) << "z = " << z;
  }
}

TEST(BilateralGridApp, ConstantImagesComeOutUnchangedEvenAtOne) {
  const App& app = find_app("bilateral_grid");
  const Pipeline p = app.build();
  const ParamValues params = app.size_for_image(5, 7);
  // 1.0 lands in bin 12 and the slice reads z = 13, clamped into blury's [2, 12].
  for (float value : {0.25f, 0.5f, 1.0f}) {
    const BufferMap out = interpret(p, params, constant_bilateral_input(p, params, value));
    const Buffer& filtered = out.at("filtered");
    ASSERT_EQ(filtered.extents(), (std::vector<std::int64_t>{5, 7}));
    for (std::int64_t i = 0; i < filtered.size(); ++i)
      EXPECT_NEAR(filtered.get_as_double(i), value, 1e-6) << "element " << i;
  }
}

TEST(BilateralGridApp, InputsFromAnImageArePaddedWithClampToEdge) {
  const App& app = find_app("bilateral_grid");
  const Pipeline p = app.build();
  Buffer image(ScalarType::UInt8, {10, 12});
  for (std::int64_t i = 0; i < image.size(); ++i)
    image.set_from_double(i, static_cast<double>(i % 251));
  const ParamValues params = app.size_for_image(10, 12);
  const BufferMap inputs = app.inputs_from_image(p, p.bind(params), image);
  const Buffer& input = inputs.at("input");
  ASSERT_EQ(input.extents(), (std::vector<std::int64_t>{66, 68}));
  const auto pixel = [&](std::int64_t x, std::int64_t y) {
    return static_cast<float>(image.at<std::uint8_t>({x, y})) / 255.0f;
  };
  EXPECT_FLOAT_EQ(input.at<float>({24, 24}), pixel(0, 0));
  EXPECT_FLOAT_EQ(input.at<float>({0, 0}), pixel(0, 0));
  EXPECT_FLOAT_EQ(input.at<float>({65, 67}), pixel(9, 11));
  EXPECT_FLOAT_EQ(input.at<float>({3, 30}), pixel(0, 6));
  EXPECT_FLOAT_EQ(input.at<float>({40, 66}), pixel(9, 11));
  EXPECT_FLOAT_EQ(input.at<float>({30, 2}), pixel(6, 0));
  // The synthetic input stays in [0, 1) (the spec's edge case v = 1.0 is for user images).
  const BufferMap synthetic = app.make_inputs(p, p.bind(app.small_size));
  const Buffer& s = synthetic.at("input");
  for (std::int64_t i = 0; i < s.size(); ++i)
    ASSERT_LT(s.get_as_double(i), 1.0) << "element " << i;
}

} // namespace
} // namespace trapeze::apps
