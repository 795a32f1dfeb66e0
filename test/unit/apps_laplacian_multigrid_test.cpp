// The local Laplacian filter and the multigrid Jacobi apps: stage counts,
// hand-computed values of the first local Laplacian stages, and the residual
// reduction of one multigrid cycle on test problem 1 (run by the interpreter).
#include "app.h"

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

// The spec's 68, and the grey of the unpadded image with its zero border
// (a boundary condition) that img reads.
TEST(LocalLaplacian, Has68Stages) {
  const Pipeline p = find_app("local_laplacian").build();
  EXPECT_EQ(p.stages().size(), 70u);
  for (const char* name :
       {"grey", "grey_constant_exterior", "img", "remapLUT", "gPyramid_L0", "Dx_inGPyramid_L1",
        "D_gPyramid_L7", "Ux_lPyramid_L6", "U_lPyramid_L0", "outLPyramid_L7", "Ux_outGPyramid_L1",
        "outGPyramid_L6", "Ux_result_ref_gray", "result_ref_gray", "laplacian"})
    EXPECT_NO_THROW(p.stage(name)) << name;
}

TEST(LocalLaplacian, ImagesSmallerThanTheCoarsestLevelAreRejected) {
  const App& app = find_app("local_laplacian");
  EXPECT_NO_THROW(app.size_for_image(128, 128));
  try {
    app.size_for_image(127, 300);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("at least 128 x 128"));
  }
}

TEST(LocalLaplacian, PngsBecome16BitColourInBlueGreenRedOrder) {
  const App& app = find_app("local_laplacian");
  const Pipeline p = app.build();
  const ParamValues params = p.bind(app.size_for_image(128, 130));
  Buffer rgb(ScalarType::UInt8, {3, 128, 130});
  for (std::int64_t i = 0; i < 128 * 130; ++i) {
    rgb.set_from_double(i, 255);               // red
    rgb.set_from_double(128 * 130 + i, 0);     // green
    rgb.set_from_double(2 * 128 * 130 + i, 1); // blue
  }
  const Buffer colour = app.inputs_from_image(p, params, rgb).at("img_colour");
  ASSERT_EQ(colour.extents(), (std::vector<std::int64_t>{3, 128, 130}));
  EXPECT_EQ(colour.at<std::uint16_t>({0, 0, 0}), 257);       // blue, scaled by 257
  EXPECT_EQ(colour.at<std::uint16_t>({1, 50, 60}), 0);       // green
  EXPECT_EQ(colour.at<std::uint16_t>({2, 127, 129}), 65535); // red

  Buffer grey(ScalarType::UInt16, {128, 130});
  grey.set_from_double(0, 1234);
  const Buffer g = app.inputs_from_image(p, params, grey).at("img_colour");
  for (std::int64_t c = 0; c < 3; ++c)
    EXPECT_EQ(g.at<std::uint16_t>({c, 0, 0}), 1234) << c;
}

/// remapLUT and gPyramid_L0 on an image that is 32768 everywhere (the spec's
/// interior; its 2-pixel ghost ring is the boundary condition's zeros).
TEST(LocalLaplacian, RemapLutAndFirstPyramidLevelByHand) {
  const Pipeline full = find_app("local_laplacian").build();
  const Pipeline p({full.stage("remapLUT"), full.stage("gPyramid_L0")}, "first_stages");
  const ParamValues params = p.bind(
      {{"R", std::int64_t{128}}, {"C", std::int64_t{128}}, {"alpha", 1.0 / 7.0}, {"beta", 1.0}});
  Buffer colour(ScalarType::UInt16, {3, 128, 128});
  for (std::int64_t c = 0; c < 3; ++c)
    for (std::int64_t x = 0; x < 128; ++x)
      for (std::int64_t y = 0; y < 128; ++y)
        colour.at<std::uint16_t>({c, x, y}) = 32768;
  const BufferMap out = interpret(p, params, {{"img_colour", colour}});
  const Buffer& lut = out.at("remapLUT");
  const Buffer& g0 = out.at("gPyramid_L0");
  const double alpha = 1.0 / 7.0;
  const auto remap = [&](double r) {
    const double fx = r / 256.0;
    return alpha * fx * std::exp(-fx * fx / 2.0);
  };
  // lut index = r + 1792.
  EXPECT_EQ(lut.get_as_double(1792), 0.0);
  EXPECT_NEAR(lut.get_as_double(1792 + 256), 0.0866472, 1e-6);  // exp(-1/2) / 7
  EXPECT_NEAR(lut.get_as_double(1792 - 512), -0.0386672, 1e-6); // -2 exp(-2) / 7
  EXPECT_NEAR(lut.get_as_double(0), -2.3e-11, 1e-12);           // -exp(-24.5)
  for (int r : {-1792, -768, -1, 5, 384, 1000, 1792})
    EXPECT_NEAR(lut.get_as_double(r + 1792), remap(r), 1e-7) << "r = " << r;

  // gPyramid_L0 is [8][132][132]. In the interior img = 32768/65535, so
  // idx = (int)(img * 1792) = 896; on the ghost ring img = 0 and idx = 0.
  const auto g = [&](std::int64_t k, std::int64_t x, std::int64_t y) {
    return g0.get_as_double((k * 132 + x) * 132 + y);
  };
  const double img = 32768.0 / 65535.0;
  for (int k = 0; k < 8; ++k) {
    EXPECT_NEAR(g(k, 50, 60), img + remap(896 - 256 * k), 1e-6) << "k = " << k;
    EXPECT_NEAR(g(k, 0, 0), remap(-256 * k), 1e-6) << "k = " << k;
  }
  EXPECT_NEAR(g(2, 50, 60), 0.5000076 + 0.0695683, 1e-6); // fx = 1.5: 1.5 exp(-1.125) / 7
  EXPECT_NEAR(g(3, 1, 7), -0.0047610, 1e-6);              // fx = -3: -3 exp(-4.5) / 7
}

// Stage counts with L = 3: a level-l visit (l >= 1) has nu1 smoothing steps,
// defect, restrict, interpolate and nu2 steps; level 0 has nuc. With nuc = 0
// level 1's defect and restrict feed nothing and are not pipeline stages.
//   V-4-4-4: 3 x 11 + 4 = 37     W-4-4-4: (1 + 2 + 4) x 11 + 8 x 4 = 109
//   V-10-0-0: 13 + 13 + 10 = 36  W-10-0-0: 13 + 2 x 13 + 4 x 10 = 79
// Residual reduction (max norm of the defect over the interior, before / after
// one cycle; n = 3, finest 31^d), measured with the interpreter: 2-D V-4-4-4
// 52.5, W-4-4-4 58.1, both 10-0-0 12.5; 3-D 36.5, 39.7, 12.0. For 10-0-0 the V
// and W factors are equal: with no post-smoothing the maximum sits at
// odd-odd points next to the corners, where the (bi/tri)linear prolongation of
// any coarse correction is discretely harmonic (A P e = 0), so the residual
// there is that of the pre-smoothed grid. The bounds below leave ~20% margin.
struct MultigridCase {
  MultigridConfig config;
  std::size_t stages;
  double min_reduction; ///< max-norm residual before / after one cycle
};

void PrintTo(const MultigridCase& c, std::ostream* os) { *os << c.config.name(); }

std::string config_name(const testing::TestParamInfo<MultigridCase>& param) {
  return param.param.config.name();
}

class Multigrid : public testing::TestWithParam<MultigridCase> {};

/// max |F - A U| over the interior of a (N+2)^d grid with F = 0.
double residual(const Buffer& U, int dims) {
  const std::int64_t m = U.extent(0), N = m - 2;
  const double invhh = static_cast<double>((N + 1) * (N + 1));
  std::vector<std::int64_t> stride(static_cast<std::size_t>(dims), 1);
  for (int d = dims - 2; d >= 0; --d)
    stride[static_cast<std::size_t>(d)] = stride[static_cast<std::size_t>(d + 1)] * m;
  double worst = 0;
  for (std::int64_t i = 0; i < U.size(); ++i) {
    bool inside = true;
    for (std::int64_t rest = i, d = 0; d < dims; ++d, rest /= m)
      inside = inside && rest % m != 0 && rest % m != m - 1;
    if (!inside) continue;
    double neighbours = 0;
    for (std::int64_t s : stride)
      neighbours += U.get_as_double(i - s) + U.get_as_double(i + s);
    worst = std::max(worst, std::abs((2.0 * dims * U.get_as_double(i) - neighbours) * invhh));
  }
  return worst;
}

TEST_P(Multigrid, StageCount) {
  const MultigridCase& c = GetParam();
  EXPECT_EQ(find_app(c.config.name()).build().stages().size(), c.stages);
}

TEST_P(Multigrid, OneCycleReducesTheResidualOfTestProblem1) {
  const MultigridCase& c = GetParam();
  const App& app = find_app(c.config.name());
  const Pipeline p = app.build();
  const ParamValues params = p.bind(app.small_size); // n = 3: finest 31^d
  const BufferMap inputs = app.make_inputs(p, params);
  const Buffer& V = inputs.at("V_");
  const BufferMap out = interpret(p, params, inputs);
  const Buffer& U = out.at(p.outputs().front()->name());
  ASSERT_EQ(U.extents(), V.extents());
  const double before = residual(V, c.config.dims), after = residual(U, c.config.dims);
  EXPECT_EQ(before, c.config.dims * 32.0 * 32); // corners: d ghost neighbours, invhh = 32^2
  EXPECT_GE(before / after, c.min_reduction) << "before " << before << ", after " << after;
  // The Dirichlet boundary (ghost layer, 0) is kept.
  EXPECT_EQ(U.get_as_double(0), 0.0);
}

INSTANTIATE_TEST_SUITE_P(Configs, Multigrid,
                         testing::Values(MultigridCase{{2, 'V', 4, 4, 4}, 37, 40},
                                         MultigridCase{{2, 'V', 10, 0, 0}, 36, 10},
                                         MultigridCase{{2, 'W', 4, 4, 4}, 109, 50},
                                         MultigridCase{{2, 'W', 10, 0, 0}, 79, 10},
                                         MultigridCase{{3, 'V', 4, 4, 4}, 37, 30},
                                         MultigridCase{{3, 'V', 10, 0, 0}, 36, 10},
                                         MultigridCase{{3, 'W', 4, 4, 4}, 109, 35},
                                         MultigridCase{{3, 'W', 10, 0, 0}, 79, 10}),
                         config_name);

TEST(Multigrid, AllEightAreRegisteredAfterTheLocalLaplacian) {
  std::vector<std::string> names;
  for (const App& a : all_apps())
    names.push_back(a.name);
  const auto at = std::find(names.begin(), names.end(), "local_laplacian");
  ASSERT_NE(at, names.end());
  EXPECT_EQ(
      std::vector<std::string>(at, std::min(at + 9, names.end())),
      (std::vector<std::string>{"local_laplacian", "mg_jacobi2d_v_444", "mg_jacobi2d_v_1000",
                                "mg_jacobi2d_w_444", "mg_jacobi2d_w_1000", "mg_jacobi3d_v_444",
                                "mg_jacobi3d_v_1000", "mg_jacobi3d_w_444", "mg_jacobi3d_w_1000"}));
}

TEST(Multigrid, TakesNoImage) {
  try {
    find_app("mg_jacobi2d_v_444").size_for_image(64, 64);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("multigrid apps take no image"));
  }
  const Pipeline p = find_app("mg_jacobi3d_w_444").build();
  try {
    find_app("mg_jacobi3d_w_444").inputs_from_image(p, {}, Buffer(ScalarType::UInt8, {4, 4}));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("multigrid apps take no image"));
  }
}

} // namespace
} // namespace trapeze::apps
