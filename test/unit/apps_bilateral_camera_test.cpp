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
  ASSERT_GE(names.size(), 5u);
  EXPECT_EQ(names[2], "harris");
  EXPECT_EQ(names[3], "bilateral_grid");
  EXPECT_EQ(names[4], "camera_pipe");
  EXPECT_EQ(find_app("camera_pipe").tolerance, 0); // integer output: exact
}

TEST(BilateralGridApp, HasTheSixStagesOfTheSpec) {
  const App& app = find_app("bilateral_grid");
  const Pipeline p = app.build();
  // The spec's six stages, and the boundary condition that gives its padding.
  EXPECT_EQ(p.stages().size(), 7u);
  EXPECT_EQ(stage_names(p), (std::set<std::string>{"input_repeat_edge", "grid", "blurz", "blurx",
                                                   "blury", "interpolated", "filtered"}));
  EXPECT_TRUE(p.stage("grid")->definition().is_reduction());
  ASSERT_EQ(p.outputs().size(), 1u);
  EXPECT_EQ(p.outputs()[0]->name(), "filtered");
  // The spec's default size, 2560 x 1536; its grid X in [1, 325], Y in [1, 197]
  // of the padded image are X in [-2, 322], Y in [-2, 194] of the image.
  const ParamValues bound = p.bind(app.default_size);
  EXPECT_EQ(bound.at("R").i, 2560);
  EXPECT_EQ(bound.at("C").i, 1536);
  const Box grid = concrete_domain(*p.stage("grid"), bound);
  EXPECT_EQ(grid.str(), "[0, 1] x [-2, 322] x [-2, 194] x [0, 14]");
  EXPECT_EQ(concrete_domain(*p.stage("blury"), bound).str(),
            "[0, 1] x [0, 320] x [0, 192] x [2, 12]");
  EXPECT_EQ(concrete_domain(*p.stage("filtered"), bound).str(), "[0, 2559] x [0, 1535]");
  // The histogram reads 20 points before the image and up to 28 after it.
  EXPECT_EQ(concrete_domain(*p.stage("input_repeat_edge"), bound).str(),
            "[-28, 2587] x [-28, 1563]");
}

TEST(BilateralGridApp, HistogramOfAConstantImageFillsOneBin) {
  const App& app = find_app("bilateral_grid");
  const Pipeline p = app.build();
  const ParamValues params = app.size_for_image(3, 5); // X, Y in [-2, 3]
  const Pipeline grid_only = only(p, "grid");
  // v = 0.5: bin 2 + (int)(10 * 0.5 + 0.5) = 7; each cell sums 9 x 9 samples
  // (clamped to the edge, all 0.5).
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

// The image is the input as it is: the boundary condition clamps to its edges.
TEST(BilateralGridApp, InputsFromAnImageAreTheImage) {
  const App& app = find_app("bilateral_grid");
  const Pipeline p = app.build();
  Buffer image(ScalarType::UInt8, {10, 12});
  for (std::int64_t i = 0; i < image.size(); ++i)
    image.set_from_double(i, static_cast<double>(i % 251));
  const ParamValues params = app.size_for_image(10, 12);
  const BufferMap inputs = app.inputs_from_image(p, p.bind(params), image);
  const Buffer& input = inputs.at("input");
  ASSERT_EQ(input.extents(), (std::vector<std::int64_t>{10, 12}));
  for (std::int64_t x = 0; x < 10; ++x)
    for (std::int64_t y = 0; y < 12; ++y)
      ASSERT_FLOAT_EQ(input.at<float>({x, y}),
                      static_cast<float>(image.at<std::uint8_t>({x, y})) / 255.0f);
  // The synthetic input stays in [0, 1) (the spec's edge case v = 1.0 is for user images).
  const BufferMap synthetic = app.make_inputs(p, p.bind(app.small_size));
  const Buffer& s = synthetic.at("input");
  for (std::int64_t i = 0; i < s.size(); ++i)
    ASSERT_LT(s.get_as_double(i), 1.0) << "element " << i;
}

TEST(CameraPipeApp, HasTheTwentySevenStagesOfTheSpec) {
  const App& app = find_app("camera_pipe");
  const Pipeline p = app.build();
  EXPECT_EQ(p.stages().size(), 27u);
  EXPECT_EQ(stage_names(p),
            (std::set<std::string>{
                "denoised", "deinterleaved", "g_gr",    "r_r",       "b_b",      "g_gb",   "g_r",
                "g_b",      "r_gr",          "b_gr",    "r_gb",      "b_gb",     "r_b",    "b_r",
                "redX1",    "redX2",         "greenX1", "greenX2",   "blueX1",   "blueX2", "red",
                "green",    "blue",          "matrix",  "corrected", "curveLUT", "process"}));
  ASSERT_EQ(p.outputs().size(), 1u);
  EXPECT_EQ(p.outputs()[0]->name(), "process");
  EXPECT_EQ(p.stage("process")->type(), ScalarType::UInt8);
  EXPECT_EQ(p.stage("corrected")->type(), ScalarType::Int16);
  const ParamValues bound = p.bind(app.default_size);
  EXPECT_EQ(concrete_domain(*p.stage("process"), bound).str(), "[0, 2] x [12, 1931] x [16, 2543]");
  EXPECT_EQ(concrete_domain(*p.stage("g_gr"), bound).str(), "[4, 968] x [6, 1274]");
  EXPECT_EQ(concrete_domain(*p.stage("curveLUT"), bound).str(), "[-32768, 32767]");
  // The output is [3][R-48][C-64].
  EXPECT_EQ(allocate_output(p, *p.stage("process"), bound).extents(),
            (std::vector<std::int64_t>{3, 1920, 2528}));
}

TEST(CameraPipeApp, MatrixAtTheDefaultColourTemperature) {
  const App& app = find_app("camera_pipe");
  const Pipeline p = app.build();
  const Pipeline matrix_only = only(p, "matrix");
  const BufferMap all = app.make_inputs(p, p.bind(app.small_size));
  const BufferMap inputs = {{"matrix_3200", all.at("matrix_3200")},
                            {"matrix_7000", all.at("matrix_7000")}};
  const Buffer m = interpret(matrix_only, {{"colour_temp", 3700.0}}, inputs).at("matrix");
  ASSERT_EQ(m.extents(), (std::vector<std::int64_t>{3, 4}));
  // alpha = (1/3700 - 1/3200) / (1/7000 - 1/3200) = 0.24893;
  // (1.6697 alpha + 2.2997 (1 - alpha)) 256 = 548.58; -42.4346 and -39.0923 give -10220.6.
  EXPECT_EQ(m.at<std::int32_t>({0, 0}), 548);
  EXPECT_EQ(m.at<std::int32_t>({0, 3}), -10220); // truncated toward zero
  EXPECT_EQ(m.at<std::int32_t>({2, 2}), 882);
  // The formula as the spec writes it weighs m3200 by alpha, which is 0 at
  // 3200 K and 1 at 7000 K: 2.2997 * 256 = 588.7 and 1.6697 * 256 = 427.4.
  const Buffer at3200 = interpret(matrix_only, {{"colour_temp", 3200.0}}, inputs).at("matrix");
  EXPECT_EQ(at3200.at<std::int32_t>({0, 0}), 588);
  const Buffer at7000 = interpret(matrix_only, {{"colour_temp", 7000.0}}, inputs).at("matrix");
  EXPECT_EQ(at7000.at<std::int32_t>({0, 0}), 427);
}

TEST(CameraPipeApp, CurveLookUpTable) {
  const App& app = find_app("camera_pipe");
  const Pipeline p = app.build();
  const Buffer lut =
      interpret(only(p, "curveLUT"), {{"gamma", 2.0}, {"contrast", 50.0}}, {}).at("curveLUT");
  ASSERT_EQ(lut.extents(), (std::vector<std::int64_t>{65536}));
  const auto at = [&](std::int64_t v) { return int{lut.at<std::uint8_t>({v + 32768})}; };
  // b = 2 - sqrt(2), a = 2 - 2b; g = sqrt(clamp(v / 1024, 0, 1)).
  EXPECT_EQ(at(-32768), 0);
  EXPECT_EQ(at(-5), 0);
  EXPECT_EQ(at(0), 0);
  EXPECT_EQ(at(64), 50);   // g = 0.25: 256 (a/16 + b/4) = 50.75
  EXPECT_EQ(at(576), 205); // g = 0.75: 256 (1 - (a/16 + b/4)) = 205.25
  EXPECT_EQ(at(1023), 255);
  EXPECT_EQ(at(1024), 255); // 256 is clamped to 255
  EXPECT_EQ(at(32767), 255);
}

TEST(CameraPipeApp, AFlatGreyMosaicGivesTheMatrixRowSums) {
  const App& app = find_app("camera_pipe");
  const Pipeline p = app.build();
  const ParamValues bound = p.bind(app.size_for_image(49, 65));
  BufferMap inputs = app.make_inputs(p, bound);
  Buffer& raw = inputs.at("img");
  std::fill_n(raw.data<std::int16_t>(), raw.size(), std::int16_t{512});
  const Buffer out = interpret(p, bound, inputs).at("process");
  ASSERT_EQ(out.extents(), (std::vector<std::int64_t>{3, 1, 1}));
  // Demosaicking a flat image gives 512 in every channel; corrected channel c
  // is (m(2-c,3) + 512 (m(2-c,0) + m(2-c,1) + m(2-c,2))) / 256 with the Q8.8
  // matrix at 3700 K, rows (548, -103, 7, -10220), (-96, 373, 61, -7254),
  // (-30, -260, 882, -5562): 1162, 647, 864 for channels 0, 1, 2. The curve
  // (g = sqrt(v / 1024)) gives 255 (v > 1024), 216.3 and 242.4.
  EXPECT_EQ(int{out.at<std::uint8_t>({0, 0, 0})}, 255);
  EXPECT_EQ(int{out.at<std::uint8_t>({1, 0, 0})}, 216);
  EXPECT_EQ(int{out.at<std::uint8_t>({2, 0, 0})}, 242);
}

TEST(CameraPipeApp, InputsFromAnImageAreAGrbgMosaic) {
  const App& app = find_app("camera_pipe");
  const Pipeline p = app.build();
  Buffer image(ScalarType::UInt8, {3, 49, 65});
  for (std::int64_t i = 0; i < image.size(); ++i)
    image.set_from_double(i, static_cast<double>((i * 7) % 256));
  const ParamValues bound = p.bind(app.size_for_image(49, 65));
  const BufferMap inputs = app.inputs_from_image(p, bound, image);
  const Buffer& raw = inputs.at("img");
  ASSERT_EQ(raw.type(), ScalarType::Int16);
  ASSERT_EQ(raw.extents(), (std::vector<std::int64_t>{49, 65}));
  EXPECT_EQ(inputs.at("matrix_3200").extents(), (std::vector<std::int64_t>{3, 4}));
  EXPECT_FLOAT_EQ(inputs.at("matrix_7000").at<float>({1, 3}), -25.4311f);
  const auto ten_bit = [&](std::int64_t plane, std::int64_t x, std::int64_t y) {
    return static_cast<std::int16_t>(
        std::lround(static_cast<float>(image.at<std::uint8_t>({plane, x, y})) / 255.0f * 1023.0f));
  };
  EXPECT_EQ(raw.at<std::int16_t>({0, 0}), ten_bit(1, 0, 0)); // green
  EXPECT_EQ(raw.at<std::int16_t>({2, 5}), ten_bit(0, 2, 5)); // red
  EXPECT_EQ(raw.at<std::int16_t>({3, 4}), ten_bit(2, 3, 4)); // blue
  EXPECT_EQ(raw.at<std::int16_t>({7, 9}), ten_bit(1, 7, 9)); // green
  // The synthetic mosaic is 10-bit and not flat.
  const Buffer synthetic = app.make_inputs(p, p.bind(app.small_size)).at("img");
  std::set<std::int16_t> values;
  for (std::int64_t i = 0; i < synthetic.size(); ++i) {
    const std::int16_t v = synthetic.data<std::int16_t>()[i];
    ASSERT_GE(v, 0);
    ASSERT_LE(v, 1023);
    values.insert(v);
  }
  EXPECT_GT(values.size(), 100u);
}

TEST(CameraPipeApp, ImagesTooSmallOrOfTheWrongSizeAreRejected) {
  const App& app = find_app("camera_pipe");
  try {
    app.size_for_image(48, 100);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("app 'camera_pipe' needs an image of at least 49 x 65"));
  }
  const Pipeline p = app.build();
  try {
    app.inputs_from_image(p, p.bind(app.size_for_image(60, 80)),
                          Buffer(ScalarType::UInt8, {3, 50, 80}));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("must be 60 x 80 pixels"));
  }
}

} // namespace
} // namespace trapeze::apps
