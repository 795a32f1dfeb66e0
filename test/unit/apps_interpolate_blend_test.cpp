// Multiscale interpolation and pyramid blending (benchmarks.md sections 6 and
// 5): stage counts and names, domains at odd sizes, the up- and down-sampling
// formulas at points whose values were worked out by hand from impulse inputs,
// and the inputs made from a user's image.
//
// Values come from the reference interpreter run on a sub-pipeline (the
// stages under test and their producers), which keeps the tests fast.
#include "app.h"

#include "analysis/case_region.h"

#include "trapeze/error.h"
#include "trapeze/runtime.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace trapeze::apps {
namespace {

using testing::HasSubstr;

std::vector<std::string> sorted_stage_names(const Pipeline& p) {
  std::vector<std::string> names;
  for (const auto& s : p.stages())
    names.push_back(s->name());
  std::sort(names.begin(), names.end());
  return names;
}

std::string domain_of(const Pipeline& p, const std::string& stage, const ParamValues& size) {
  return concrete_domain(*p.stage(stage), p.bind(size)).str();
}

/// The stages `outputs` of `p` (and their producers) run by the interpreter.
class SubPipeline {
public:
  SubPipeline(const Pipeline& p, const std::vector<std::string>& outputs, const ParamValues& size,
              const BufferMap& inputs)
      : sub_(functions(p, outputs), "sub"), bound_(sub_.bind(size)) {
    BufferMap used;
    for (const auto& in : sub_.inputs())
      used.emplace(in->name(), inputs.at(in->name()));
    results_ = interpret(sub_, bound_, used);
  }

  /// Stage `stage` at a point of its domain.
  double at(const std::string& stage, const std::vector<std::int64_t>& point) const {
    const Box box = concrete_domain(*sub_.stage(stage), bound_);
    std::int64_t linear = 0;
    for (int d = 0; d < box.dimensions(); ++d) {
      const auto i = static_cast<std::size_t>(d);
      EXPECT_TRUE(point[i] >= box.lo[i] && point[i] <= box.hi[i]) << stage << " " << box.str();
      linear = linear * box.extent(d) + point[i] - box.lo[i];
    }
    return results_.at(stage).get_as_double(linear);
  }

private:
  static std::vector<ir::FunctionPtr> functions(const Pipeline& p,
                                                const std::vector<std::string>& names) {
    std::vector<ir::FunctionPtr> out;
    for (const std::string& n : names)
      out.push_back(p.stage(n));
    return out;
  }

  Pipeline sub_;
  ParamValues bound_;
  BufferMap results_;
};

std::string size_error(const App& app, std::int64_t rows, std::int64_t cols) {
  try {
    app.size_for_image(rows, cols);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

// ---------------------------------------------------------------- interpolate

// The spec's 38, and the premultiplication and zero ring that its first
// stage reads.
TEST(Interpolate, Has38StagesNamedAsTheSpec) {
  const App& app = find_app("interpolate");
  const Pipeline p = app.build();
  std::vector<std::string> expected = {"downsampled_L0", "interpolate", "premultiplied",
                                       "premultiplied_constant_exterior"};
  for (int l = 1; l <= 9; ++l) {
    expected.push_back("Dx_" + std::to_string(l));
    expected.push_back("D_" + std::to_string(l));
  }
  for (int l = 0; l <= 8; ++l) {
    expected.push_back("Ux_interpolated_L" + std::to_string(l));
    expected.push_back("interpolated_L" + std::to_string(l));
  }
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(p.stages().size(), 40u);
  EXPECT_EQ(sorted_stage_names(p), expected);
  EXPECT_EQ(p.outputs()[0]->name(), "interpolate");
  EXPECT_EQ(app.default_size.at("R").i, 2560);
  EXPECT_EQ(app.default_size.at("C").i, 1536);
}

TEST(Interpolate, DomainsAtAnOddSize) {
  const App& app = find_app("interpolate");
  const Pipeline p = app.build();
  const ParamValues size = app.size_for_image(600, 1029); // R/2^l: 300 150 75 37 18 9 4 2 1
  EXPECT_EQ(domain_of(p, "premultiplied_constant_exterior", size),
            "[0, 3] x [-1, 600] x [-1, 1029]");
  EXPECT_EQ(domain_of(p, "downsampled_L0", size), "[0, 3] x [0, 601] x [0, 1030]");
  EXPECT_EQ(domain_of(p, "Dx_1", size), "[0, 3] x [0, 301] x [0, 1030]");
  EXPECT_EQ(domain_of(p, "Dx_3", size), "[0, 3] x [0, 76] x [0, 258]");
  EXPECT_EQ(domain_of(p, "D_9", size), "[0, 3] x [0, 2] x [0, 3]");
  EXPECT_EQ(domain_of(p, "Ux_interpolated_L8", size), "[0, 3] x [0, 3] x [0, 3]");
  EXPECT_EQ(domain_of(p, "Ux_interpolated_L0", size), "[0, 3] x [0, 601] x [0, 515]");
  EXPECT_EQ(domain_of(p, "interpolated_L0", size), "[0, 3] x [0, 601] x [0, 1030]");
  EXPECT_EQ(domain_of(p, "interpolate", size), "[0, 2] x [0, 599] x [0, 1028]");
}

TEST(Interpolate, ImagesSmallerThan512AreRejected) {
  const App& app = find_app("interpolate");
  EXPECT_THAT(size_error(app, 511, 600), HasSubstr("needs an image of at least 512 x 512"));
  EXPECT_THAT(size_error(app, 600, 511), HasSubstr("got 600 x 511"));
  EXPECT_EQ(size_error(app, 512, 512), "no error");
  EXPECT_EQ(app.small_size.at("R").i, 512);
}

// Impulses: colour 1 with alpha 1 at (c=0, 11, 11) (an odd row and column)
// and colour 0.5 with alpha 0.5 at (c=1, 20, 20) (even), in the spec's
// coordinates (inside its 1-pixel zero ring: the image's pixel (x-1, y-1)).
TEST(Interpolate, DownSamplingByHand) {
  const App& app = find_app("interpolate");
  const Pipeline p = app.build();
  const ParamValues size = app.small_size;
  Buffer img(ScalarType::Float32, {4, 512, 512});
  img.at<float>({0, 10, 10}) = 1.0f;
  img.at<float>({3, 10, 10}) = 1.0f;
  img.at<float>({1, 19, 19}) = 0.5f;
  img.at<float>({3, 19, 19}) = 0.5f;
  const SubPipeline s(p, {"downsampled_L0", "Dx_1", "D_1"}, size, {{"img", img}});
  // Colour times alpha, and alpha times itself.
  EXPECT_EQ(s.at("downsampled_L0", {1, 20, 20}), 0.25);
  EXPECT_EQ(s.at("downsampled_L0", {3, 20, 20}), 0.25);
  EXPECT_EQ(s.at("downsampled_L0", {3, 11, 11}), 1.0);
  EXPECT_EQ(s.at("downsampled_L0", {3, 0, 11}), 0.0); // the ring
  EXPECT_EQ(s.at("downsampled_L0", {0, 11, 513}), 0.0);
  // Dx_1(x) = (D(2x-2) + 2 D(2x-1) + D(2x)) / 4: row 11 is 2x-1 for x = 6 only.
  EXPECT_EQ(s.at("Dx_1", {0, 6, 11}), 0.5);
  EXPECT_EQ(s.at("Dx_1", {0, 5, 11}), 0.0);
  EXPECT_EQ(s.at("Dx_1", {0, 7, 11}), 0.0);
  // Row 20 is 2x for x = 10 and 2x-2 for x = 11.
  EXPECT_EQ(s.at("Dx_1", {1, 10, 20}), 0.0625);
  EXPECT_EQ(s.at("Dx_1", {1, 11, 20}), 0.0625);
  EXPECT_EQ(s.at("Dx_1", {3, 10, 20}), 0.0625);
  // D_1 does the same along columns.
  EXPECT_EQ(s.at("D_1", {0, 6, 6}), 0.25);
  EXPECT_EQ(s.at("D_1", {0, 6, 5}), 0.0);
  EXPECT_EQ(s.at("D_1", {1, 10, 10}), 0.015625);
  EXPECT_EQ(s.at("D_1", {1, 11, 11}), 0.015625);
  EXPECT_EQ(s.at("D_1", {1, 10, 12}), 0.0);
}

// With alpha 1 everywhere the image is opaque: interpolated_L0 = D_0 +
// (1 - 1) * Ux = the colour, and the output is the colour itself. The
// up-sampling is checked against its producer at hand-computed indices.
TEST(Interpolate, UpSamplingAndAnOpaqueImage) {
  const App& app = find_app("interpolate");
  const Pipeline p = app.build();
  const ParamValues size = app.small_size;
  BufferMap inputs = app.make_inputs(p, p.bind(size));
  Buffer& img = inputs.at("img");
  for (std::int64_t x = 0; x < 512; ++x)
    for (std::int64_t y = 0; y < 512; ++y)
      img.at<float>({3, x, y}) = 1.0f;
  const SubPipeline s(p, {"interpolated_L1", "Ux_interpolated_L0", "interpolate"}, size, inputs);
  const auto interp1 = [&](std::int64_t c, std::int64_t x, std::int64_t y) {
    return s.at("interpolated_L1", {c, x, y});
  };
  // Ux(x) = (Interp_1((x+1)/2) + Interp_1((x+2)/2)) / 2.
  EXPECT_FLOAT_EQ(s.at("Ux_interpolated_L0", {1, 5, 40}),
                  (interp1(1, 3, 40) + interp1(1, 3, 40)) / 2);
  EXPECT_FLOAT_EQ(s.at("Ux_interpolated_L0", {1, 6, 40}),
                  (interp1(1, 3, 40) + interp1(1, 4, 40)) / 2);
  EXPECT_FLOAT_EQ(s.at("Ux_interpolated_L0", {3, 512, 256}),
                  (interp1(3, 256, 256) + interp1(3, 257, 256)) / 2);
  EXPECT_EQ(s.at("Ux_interpolated_L0", {0, 0, 7}), 0.0); // border line
  for (std::int64_t c = 0; c < 3; ++c)
    for (const auto& [x, y] : std::vector<std::pair<std::int64_t, std::int64_t>>{
             {0, 0}, {17, 300}, {511, 511}, {256, 3}})
      EXPECT_EQ(s.at("interpolate", {c, x, y}), img.at<float>({c, x, y}));
}

TEST(Interpolate, SyntheticAlphaHasTransparentAndOpaqueAreas) {
  const App& app = find_app("interpolate");
  const Pipeline p = app.build();
  const BufferMap inputs = app.make_inputs(p, p.bind(app.small_size));
  const Buffer& img = inputs.at("img");
  ASSERT_EQ(img.extents(), (std::vector<std::int64_t>{4, 512, 512}));
  int transparent = 0, opaque = 0;
  for (std::int64_t x = 0; x < 512; ++x)
    for (std::int64_t y = 0; y < 512; ++y) {
      const float a = img.at<float>({3, x, y});
      ASSERT_TRUE(a >= 0.0f && a <= 1.0f);
      transparent += a == 0.0f;
      opaque += a == 1.0f;
    }
  EXPECT_GT(transparent, 1000);
  EXPECT_GT(opaque, 1000);
  for (std::int64_t i = 0; i < 512; ++i) { // opaque edges
    EXPECT_EQ(img.at<float>({3, 511, i}), 1.0f);
    EXPECT_EQ(img.at<float>({3, i, 511}), 1.0f);
    EXPECT_EQ(img.at<float>({3, 0, i}), 1.0f);
  }
}

// The odd size leaves the last rows and columns out of the coarse levels;
// the synthetic alpha's opaque edges keep the division there away from 0/0.
TEST(Interpolate, SyntheticInputsGiveAFiniteOutputAtAnOddSize) {
  const App& app = find_app("interpolate");
  const Pipeline p = app.build();
  const ParamValues bound = p.bind(app.size_for_image(513, 517));
  const Buffer out = interpret(p, bound, app.make_inputs(p, bound)).at("interpolate");
  float lo = 1e30f, hi = -1e30f;
  for (std::int64_t i = 0; i < out.size(); ++i) {
    ASSERT_TRUE(std::isfinite(out.data<float>()[i])) << "element " << i;
    lo = std::min(lo, out.data<float>()[i]);
    hi = std::max(hi, out.data<float>()[i]);
  }
  EXPECT_GE(lo, 0.0f);
  EXPECT_LT(hi, 10.0f);
}

TEST(Interpolate, InputsFromAnImageKeepItsAlpha) {
  const App& app = find_app("interpolate");
  const Pipeline p = app.build();
  const ParamValues size = app.size_for_image(512, 513);
  Buffer rgba(ScalarType::UInt8, {4, 512, 513});
  rgba.at<std::uint8_t>({0, 2, 3}) = 255;
  rgba.at<std::uint8_t>({3, 2, 3}) = 51;
  const Buffer rgba_in = app.inputs_from_image(p, p.bind(size), rgba).at("img");
  ASSERT_EQ(rgba_in.extents(), (std::vector<std::int64_t>{4, 512, 513}));
  EXPECT_EQ(rgba_in.at<float>({0, 2, 3}), 1.0f);
  EXPECT_FLOAT_EQ(rgba_in.at<float>({3, 2, 3}), 0.2f);
  EXPECT_EQ(rgba_in.at<float>({3, 2, 4}), 0.0f);
  // No alpha in the PNG: opaque.
  Buffer grey(ScalarType::UInt8, {512, 513});
  grey.at<std::uint8_t>({0, 0}) = 255;
  const Buffer grey_in = app.inputs_from_image(p, p.bind(size), grey).at("img");
  EXPECT_EQ(grey_in.at<float>({2, 0, 0}), 1.0f); // grey replicated
  EXPECT_EQ(grey_in.at<float>({3, 0, 0}), 1.0f);
  EXPECT_EQ(grey_in.at<float>({3, 511, 512}), 1.0f);
  // Grey + alpha: the second plane is the alpha.
  Buffer grey_alpha(ScalarType::UInt8, {2, 512, 513});
  grey_alpha.at<std::uint8_t>({1, 7, 8}) = 255;
  const Buffer ga_in = app.inputs_from_image(p, p.bind(size), grey_alpha).at("img");
  EXPECT_EQ(ga_in.at<float>({3, 7, 8}), 1.0f);
  EXPECT_EQ(ga_in.at<float>({3, 7, 9}), 0.0f);
}

// ---------------------------------------------------------------- pyramid_blend

TEST(PyramidBlend, Has40StagesNamedAsTheSpec) {
  const App& app = find_app("pyramid_blend");
  const Pipeline p = app.build();
  std::vector<std::string> expected = {"Col_1", "Col_1_x", "Col_2", "Col_2_x", "blend_x", "blend"};
  for (const char* input : {"img1", "img2", "mask"})
    for (int l = 1; l <= 3; ++l) {
      expected.push_back("Dx_" + std::to_string(l) + "_" + input);
      expected.push_back("Dy_" + std::to_string(l) + "_" + input);
    }
  for (const char* input : {"img1", "img2"})
    for (int l = 0; l <= 2; ++l) {
      expected.push_back("Ux_" + std::to_string(l) + "_" + input);
      expected.push_back("Uy_" + std::to_string(l) + "_" + input);
    }
  for (int l = 0; l <= 3; ++l)
    expected.push_back("Res_" + std::to_string(l));
  // and the boundary conditions that give the spec's padding.
  for (const char* input : {"img1", "img2", "mask"})
    expected.push_back(std::string(input) + "_repeat_edge");
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(p.stages().size(), 43u);
  EXPECT_EQ(sorted_stage_names(p), expected);
  EXPECT_EQ(p.outputs()[0]->name(), "blend");
  EXPECT_EQ(p.stage("Dy_2_mask")->dimensions(), 2);
  EXPECT_EQ(p.stage("Dy_2_img2")->dimensions(), 3);
  // 2160 x 3840 is the image, in and out.
  EXPECT_EQ(app.default_size.at("R").i, 2160);
  EXPECT_EQ(app.default_size.at("C").i, 3840);
}

TEST(PyramidBlend, DomainsAtAnOddSize) {
  const App& app = find_app("pyramid_blend");
  const Pipeline p = app.build();
  const ParamValues size = app.size_for_image(37, 61); // the padded 97 x 121
  EXPECT_EQ(domain_of(p, "Dx_1_img1", size), "[0, 2] x [1, 46] x [0, 119]");
  EXPECT_EQ(domain_of(p, "Dy_1_img1", size), "[0, 2] x [1, 46] x [1, 58]");
  EXPECT_EQ(domain_of(p, "Dx_3_mask", size), "[3, 10] x [2, 28]");
  EXPECT_EQ(domain_of(p, "Dy_3_mask", size), "[3, 10] x [3, 13]");
  EXPECT_EQ(domain_of(p, "Ux_0_img2", size), "[0, 2] x [31, 67] x [15, 46]");
  EXPECT_EQ(domain_of(p, "Uy_1_img2", size), "[0, 2] x [15, 34] x [15, 46]");
  EXPECT_EQ(domain_of(p, "Res_3", size), "[0, 2] x [3, 10] x [3, 13]");
  EXPECT_EQ(domain_of(p, "Col_2_x", size), "[0, 2] x [7, 18] x [3, 13]");
  EXPECT_EQ(domain_of(p, "Col_1", size), "[0, 2] x [15, 34] x [15, 46]");
  EXPECT_EQ(domain_of(p, "blend", size), "[0, 2] x [31, 67] x [31, 91]");
  EXPECT_EQ(domain_of(p, "img1_repeat_edge", size), "[0, 2] x [-31, 67] x [-31, 91]");
  const Buffer out = allocate_output(p, *p.stage("blend"), p.bind(size));
  EXPECT_EQ(out.extents(), (std::vector<std::int64_t>{3, 37, 61}));
}

TEST(PyramidBlend, EveryImageOfAPixelOrMoreIsValid) {
  const App& app = find_app("pyramid_blend");
  EXPECT_THAT(size_error(app, 0, 5), HasSubstr("needs an image of at least 1 x 1"));
  EXPECT_EQ(size_error(app, 1, 1), "no error");
  const Pipeline p = app.build();
  EXPECT_EQ(domain_of(p, "Dy_3_img1", app.size_for_image(1, 1)), "[0, 2] x [3, 5] x [3, 5]");
}

// The even formula's case starts at the first even point of the (odd) lower
// bound: without that, interval arithmetic would find v/2 - 1 one below the
// producer's domain at the odd lower bound, where the odd formula applies.
TEST(PyramidBlend, EvenCasesStartAtTheFirstEvenPoint) {
  const App& app = find_app("pyramid_blend");
  const Pipeline p = app.build();
  const ParamValues bound = p.bind(app.size_for_image(37, 61));
  const auto even_case_start = [&](const std::string& stage, int dim) {
    const auto regions = analysis::case_regions(*p.stage(stage));
    EXPECT_EQ(regions.size(), 1u) << stage;
    EXPECT_TRUE(regions[0].residual.defined()) << stage; // the parity test
    return evaluate_int(regions[0].box[static_cast<std::size_t>(dim)].lo, bound);
  };
  EXPECT_EQ(even_case_start("Ux_0_img1", 1), 32); // rows_0 starts at 31
  EXPECT_EQ(even_case_start("Uy_2_img2", 2), 8);  // cols_2 starts at 7
  EXPECT_EQ(even_case_start("Col_1_x", 1), 16);   // rows_1 starts at 15
  EXPECT_EQ(even_case_start("blend", 2), 32);
}

// An impulse of 1 at img1(0, 9, 9), the pyramid's (40, 40); the values below
// were worked out by hand (all are exact in float: sums of powers of two).
TEST(PyramidBlend, SamplingByHand) {
  const App& app = find_app("pyramid_blend");
  const Pipeline p = app.build();
  const ParamValues size = app.size_for_image(40, 40); // padded: 100 x 100
  Buffer img1(ScalarType::Float32, {3, 40, 40});
  img1.at<float>({0, 9, 9}) = 1.0f;
  const SubPipeline s(p, {"Dx_1_img1", "Dy_1_img1", "Ux_0_img1", "Uy_0_img1"}, size,
                      {{"img1", img1}});
  // Dx_1(x) = (G(2x-2) + 4G(2x-1) + 6G(2x) + 4G(2x+1) + G(2x+2)) / 16.
  EXPECT_EQ(s.at("Dx_1_img1", {0, 19, 40}), 0.0625);
  EXPECT_EQ(s.at("Dx_1_img1", {0, 20, 40}), 0.375);
  EXPECT_EQ(s.at("Dx_1_img1", {0, 21, 40}), 0.0625);
  EXPECT_EQ(s.at("Dx_1_img1", {0, 20, 41}), 0.0);
  EXPECT_EQ(s.at("Dx_1_img1", {1, 20, 40}), 0.0);
  EXPECT_EQ(s.at("Dy_1_img1", {0, 20, 20}), 0.140625);
  EXPECT_EQ(s.at("Dy_1_img1", {0, 20, 19}), 0.0234375);
  EXPECT_EQ(s.at("Dy_1_img1", {0, 19, 20}), 0.0234375);
  EXPECT_EQ(s.at("Dy_1_img1", {0, 21, 21}), 0.00390625);
  // Ux_0: even x (G(x/2-1) + 6G(x/2) + G(x/2+1)) / 8, odd x (4G((x-1)/2) + 4G((x+1)/2)) / 8.
  EXPECT_EQ(s.at("Ux_0_img1", {0, 40, 20}), 0.111328125);
  EXPECT_EQ(s.at("Ux_0_img1", {0, 41, 20}), 0.08203125);
  EXPECT_EQ(s.at("Ux_0_img1", {0, 39, 21}), 0.013671875);
  EXPECT_EQ(s.at("Ux_0_img1", {0, 42, 20}), 0.03515625);
  // Uy_0 = G_0 - the same along columns of Ux_0.
  EXPECT_EQ(s.at("Uy_0_img1", {0, 40, 40}), 3735.0 / 4096);
  EXPECT_EQ(s.at("Uy_0_img1", {0, 40, 41}), -133.0 / 2048);
  EXPECT_EQ(s.at("Uy_0_img1", {0, 41, 41}), -49.0 / 1024);
  EXPECT_EQ(s.at("Uy_0_img1", {0, 39, 38}), -21.0 / 1024);
}

// Blending an image with itself collapses its own Laplacian pyramid, which
// gives the image back (up to float rounding); the mask is the seam mask.
TEST(PyramidBlend, BlendingAnImageWithItselfGivesItBack) {
  const App& app = find_app("pyramid_blend");
  const Pipeline p = app.build();
  const ParamValues bound = p.bind(app.size_for_image(21, 26));
  BufferMap inputs = app.make_inputs(p, bound);
  inputs.at("img2") = inputs.at("img1");
  const Buffer out = interpret(p, bound, inputs).at("blend");
  const Buffer& img = inputs.at("img1");
  for (std::int64_t c = 0; c < 3; ++c)
    for (std::int64_t x = 0; x < 21; ++x)
      for (std::int64_t y = 0; y < 26; ++y)
        ASSERT_NEAR(out.at<float>({c, x, y}), img.at<float>({c, x, y}), 1e-5)
            << c << " " << x << " " << y;
}

TEST(PyramidBlend, SyntheticInputsAreImagesAndTheMaskHasASeam) {
  const App& app = find_app("pyramid_blend");
  const Pipeline p = app.build();
  const BufferMap inputs = app.make_inputs(p, p.bind(app.size_for_image(10, 12)));
  const Buffer& img1 = inputs.at("img1");
  ASSERT_EQ(img1.extents(), (std::vector<std::int64_t>{3, 10, 12}));
  EXPECT_NE(img1.at<float>({0, 4, 9}), inputs.at("img2").at<float>({0, 4, 9}));
  const Buffer& mask = inputs.at("mask");
  ASSERT_EQ(mask.extents(), (std::vector<std::int64_t>{10, 12}));
  EXPECT_EQ(mask.at<float>({0, 5}), 0.0f);
  EXPECT_EQ(mask.at<float>({4, 5}), 0.0f);
  EXPECT_EQ(mask.at<float>({5, 5}), 1.0f); // row 5 = 10 / 2
  EXPECT_EQ(mask.at<float>({9, 11}), 1.0f);
}

TEST(PyramidBlend, InputsFromAnImageMirrorIt) {
  const App& app = find_app("pyramid_blend");
  const Pipeline p = app.build();
  const ParamValues bound = p.bind(app.size_for_image(5, 7));
  Buffer rgb(ScalarType::UInt8, {3, 5, 7});
  rgb.at<std::uint8_t>({2, 1, 0}) = 255;
  const BufferMap inputs = app.inputs_from_image(p, bound, rgb);
  ASSERT_EQ(inputs.at("img1").extents(), (std::vector<std::int64_t>{3, 5, 7}));
  ASSERT_EQ(inputs.at("img2").extents(), (std::vector<std::int64_t>{3, 5, 7}));
  ASSERT_EQ(inputs.at("mask").extents(), (std::vector<std::int64_t>{5, 7}));
  EXPECT_EQ(inputs.at("img1").at<float>({2, 1, 0}), 1.0f);
  EXPECT_EQ(inputs.at("img2").at<float>({2, 1, 6}), 1.0f); // mirrored: column 6
  EXPECT_EQ(inputs.at("img2").at<float>({2, 1, 0}), 0.0f);
  EXPECT_EQ(inputs.at("mask").at<float>({1, 4}), 0.0f);
  EXPECT_EQ(inputs.at("mask").at<float>({2, 4}), 1.0f); // row 2 = 5 / 2
  // Grey is replicated into the three channels.
  Buffer grey(ScalarType::UInt8, {5, 7});
  grey.at<std::uint8_t>({4, 6}) = 255;
  const Buffer g = app.inputs_from_image(p, bound, grey).at("img1");
  for (std::int64_t c = 0; c < 3; ++c)
    EXPECT_EQ(g.at<float>({c, 4, 6}), 1.0f);
  // An image of another size does not fit the parameters.
  try {
    app.inputs_from_image(p, bound, Buffer(ScalarType::UInt8, {3, 6, 7}));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("a 6x7 image does not fit R = 5, C = 7"));
  }
}

} // namespace
} // namespace trapeze::apps
