/// \file
/// Multiscale interpolation: benchmarks.md section 6 ("Multiscale
/// interpolation (L = 10 levels; 38 stages)").
///
///   R, C (int64)  image rows / cols
///   img     float [4][R][C]: colour in [0, 1] (channels 0-2) and alpha in
///           [0, 1] (channel 3)
///   premultiplied (c, x, y) on [0,3] x [0,R-1] x [0,C-1]: img(c,x,y) * img(3,x,y)
///           (alpha is multiplied by itself too, as the spec says)
///   premultiplied_constant_exterior: premultiplied with 0 beyond its edges
///           (boundary::constant_exterior, margins inferred)
///   downsampled_L0 (c, x, y) on [0,3] x [0,R+1] x [0,C+1]: the spec's
///           img(c,x,y) * img(3,x,y) on its input with a 1-pixel zero ghost
///           ring, i.e. premultiplied_constant_exterior(c, x-1, y-1)
///   for l = 1..9, with D_0 = downsampled_L0 and Rl = R/2^l, Cl = C/2^l:
///     Dx_l  on [0,3] x [0,Rl+1] x [0,C(l-1)+1], interior [1,Rl] x [1,C(l-1)]:
///           (D_{l-1}(c,2x-2,y) + 2 D_{l-1}(c,2x-1,y) + D_{l-1}(c,2x,y)) * 0.25
///     D_l   on [0,3] x [0,Rl+1] x [0,Cl+1], interior [1,Rl] x [1,Cl]:
///           (Dx_l(c,x,2y-2) + 2 Dx_l(c,x,2y-1) + Dx_l(c,x,2y)) * 0.25
///   for l = 8 down to 0, with Interp_9 = D_9 and Interp_l = interpolated_Ll:
///     Ux_interpolated_Ll on [0,3] x [0,Rl+1] x [0,C(l+1)+1], interior
///           [1,Rl] x [1,C(l+1)]: (Interp_{l+1}(c,(x+1)/2,y) + Interp_{l+1}(c,(x+2)/2,y)) / 2
///     interpolated_Ll on [0,3] x [0,Rl+1] x [0,Cl+1], interior [1,Rl] x [1,Cl]:
///           D_l(c,x,y) + (1 - D_l(3,x,y)) * (Ux(c,x,(y+1)/2) + Ux(c,x,(y+2)/2)) / 2
///   interpolate (output) (c, x, y) on [0,2] x [0,R-1] x [0,C-1]:
///           interpolated_L0(c,x+1,y+1) / interpolated_L0(3,x+1,y+1)
///
/// Names are the spec's: downsampled_L0, Dx_1..Dx_9, D_1..D_9,
/// Ux_interpolated_L8..L0, interpolated_L8..L0, interpolate (38 stages).
/// Interpretation: the default size 2560 x 1536 x 3 is the image (R = 2560,
/// C = 1536). The borders are Cases (x.in(1, Rl) && y.in(1, ...)) with default
/// 0. R/2^l is floor division, which is C's on these non-negative values.
/// Every level must have a non-empty interior, R/2^9 >= 1 and C/2^9 >= 1, so
/// images are at least 512 x 512. "/ 2" is float division by 2.0f; the sums
/// are added in the order written. `(1 - D) * (a + b) / 2` groups as C does:
/// ((1 - D) * (a + b)) / 2. As specified, the output is 0/0 (NaN) where a
/// fully transparent area reaches the last rows or columns that the coarse
/// levels do not cover (2^l * (R/2^l) < R); the synthetic alpha is opaque
/// along the edges for that reason, a user's RGBA image may show it.
#include "app.h"

#include "trapeze/boundary.h"
#include "trapeze/dsl.h"
#include "trapeze/error.h"
#include "trapeze/image_io.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace trapeze::apps {

namespace {

constexpr int kLevels = 10;
/// The smallest image side: the coarsest level, R/2^(L-1), must hold a pixel.
constexpr std::int64_t kMinSide = std::int64_t{1} << (kLevels - 1);

/// N / 2^l (floor division; N itself at level 0).
Expr at_level(const Expr& n, int l) { return l == 0 ? n : n / (1 << l); }

Pipeline build_interpolate() {
  Param R("R"), C("C");
  Var c("c"), x("x"), y("y");
  Image img("img", ScalarType::Float32, {4, R, C});
  // The spec's input is the image inside a 1-pixel zero ring, and its first
  // stage multiplies colour by alpha there. Here the product is taken on the
  // image and the ring is a boundary condition around it (0, as the product
  // of the ring's zeros); downsampled_L0's (x, y) is the image's (x-1, y-1).
  // (A boundary of img itself would be read at c and at channel 3, which no
  // alignment of a fused group makes constant.)
  Func premultiplied("premultiplied", ScalarType::Float32, {c, x, y},
                     {{0, 3}, {0, R - 1}, {0, C - 1}});
  premultiplied.define(img(c, x, y) * img(3, x, y));
  const Func ring = boundary::constant_exterior(premultiplied, 0.0f);

  // A stage on [0,3] x [0,rows+1] x [0,cols+1], `value` on the interior
  // [1,rows] x [1,cols] and 0 on the border lines.
  const auto bordered = [&](const std::string& name, const Expr& rows, const Expr& cols,
                            const Expr& value) {
    Func f(name, ScalarType::Float32, {c, x, y}, {{0, 3}, {0, rows + 1}, {0, cols + 1}});
    f.define({Case(x.in(1, rows) && y.in(1, cols), value)}, 0.0f);
    return f;
  };

  Func downsampled("downsampled_L0", ScalarType::Float32, {c, x, y},
                   {{0, 3}, {0, R + 1}, {0, C + 1}});
  downsampled.define(ring(c, x - 1, y - 1));

  std::vector<Func> D = {downsampled};
  for (int l = 1; l < kLevels; ++l) {
    const Func& prev = D.back();
    const std::string level = std::to_string(l);
    const Func dx = bordered(
        "Dx_" + level, at_level(R, l), at_level(C, l - 1),
        (prev(c, 2 * x - 2, y) + 2.0f * prev(c, 2 * x - 1, y) + prev(c, 2 * x, y)) * 0.25f);
    D.push_back(
        bordered("D_" + level, at_level(R, l), at_level(C, l),
                 (dx(c, x, 2 * y - 2) + 2.0f * dx(c, x, 2 * y - 1) + dx(c, x, 2 * y)) * 0.25f));
  }

  Func interp = D.back(); // Interp_9 = D_9
  for (int l = kLevels - 2; l >= 0; --l) {
    const std::string level = std::to_string(l);
    const Func ux = bordered("Ux_interpolated_L" + level, at_level(R, l), at_level(C, l + 1),
                             (interp(c, (x + 1) / 2, y) + interp(c, (x + 2) / 2, y)) / 2.0f);
    const Func& d = D[static_cast<std::size_t>(l)];
    interp = bordered("interpolated_L" + level, at_level(R, l), at_level(C, l),
                      d(c, x, y) + (1.0f - d(3, x, y)) *
                                       (ux(c, x, (y + 1) / 2) + ux(c, x, (y + 2) / 2)) / 2.0f);
  }

  Func out("interpolate", ScalarType::Float32, {c, x, y}, {{0, 2}, {0, R - 1}, {0, C - 1}});
  out.define(interp(c, x + 1, y + 1) / interp(3, x + 1, y + 1));

  Pipeline p({out}, "interpolate");
  // What size_for_image requires, declared so that lowering can order the
  // zero ring's border pieces for every accepted size (docs/lowering.md).
  p.set_range("R", kMinSide, std::nullopt);
  p.set_range("C", kMinSide, std::nullopt);
  p.set_default("R", std::int64_t{2560});
  p.set_default("C", std::int64_t{1536});
  return p;
}

ParamValues interpolate_size_for_image(std::int64_t rows, std::int64_t cols) {
  require_image_size("interpolate", rows, cols, kMinSide, kMinSide);
  return {{"R", rows}, {"C", cols}};
}

/// A smooth bump in [0, 1] of period `period`: smoothstep of a triangle wave,
/// 0 at multiples of the period plus half of it. Only + - * /, so the same bits
/// everywhere.
double smooth_wave(std::int64_t i, double period) {
  const double t = static_cast<double>(i) / period;
  const double tri = std::abs(2.0 * (t - std::floor(t)) - 1.0); // 1 at 0, 0 at 1/2
  return tri * tri * (3.0 - 2.0 * tri);
}

/// smoothstep(t) for t clamped into [0, 1].
double smoothstep(double t) {
  t = std::clamp(t, 0.0, 1.0);
  return t * t * (3.0 - 2.0 * t);
}

/// Width of the band along the image's edges where the synthetic alpha rises
/// to 1: the coarse levels cover the image only up to 2^l * (R / 2^l), and
/// the last row and column (odd R, C) read nothing from level 1, so a
/// transparent pixel near the bottom or right edge would divide 0 by 0.
constexpr double kOpaqueBand = 48.0;

/// The synthetic alpha at image pixel (i, j) of a rows x cols image: smooth,
/// with fully transparent blobs (tens of pixels across, which coarser levels
/// fill, keeping the final division's denominator away from 0), fully opaque
/// areas, and opaque edges (kOpaqueBand).
float synthetic_alpha(std::int64_t i, std::int64_t j, std::int64_t rows, std::int64_t cols) {
  const double p = 0.5 * (smooth_wave(i, 173.0) + smooth_wave(j, 211.0));
  const double a = std::clamp(2.5 * (p - 0.5) + 0.5, 0.0, 1.0);
  const auto edge = static_cast<double>(std::min({i, j, rows - 1 - i, cols - 1 - j}));
  return static_cast<float>(a + (1.0 - a) * smoothstep((kOpaqueBand - edge) / kOpaqueBand));
}

/// A colour image in [0, 1] with the synthetic alpha.
BufferMap interpolate_inputs(const Pipeline& p, const ParamValues& params) {
  const std::vector<std::int64_t> extents = input_extents(p, "img", params);
  const std::int64_t rows = extents[1], cols = extents[2];
  SyntheticSpec spec;
  spec.type = ScalarType::Float32;
  spec.extents = {3, rows, cols};
  spec.lo = 0.0;
  spec.hi = 1.0;
  spec.seed = 6;
  const Buffer colour = synthetic_image(spec);
  Buffer img(ScalarType::Float32, extents);
  for (std::int64_t ch = 0; ch < 3; ++ch)
    for (std::int64_t x = 0; x < rows; ++x)
      std::copy_n(&colour.at<float>({ch, x, 0}), cols, &img.at<float>({ch, x, 0}));
  for (std::int64_t x = 0; x < rows; ++x)
    for (std::int64_t y = 0; y < cols; ++y)
      img.at<float>({3, x, y}) = synthetic_alpha(x, y, rows, cols);
  return {{"img", img}};
}

/// The user's colour image with its alpha (opaque if the PNG has none).
BufferMap interpolate_image_inputs(const Pipeline& p, const ParamValues& params,
                                   const Buffer& image) {
  BufferMap inputs = image_input(p, params, image, "img", 3, 0, 0);
  Buffer& img = inputs.at("img");
  const Buffer f = to_float(image, ScalarType::Float32);
  const int dims = f.dimensions();
  const std::int64_t planes = dims == 3 ? f.extent(0) : 1;
  const std::int64_t rows = f.extent(dims - 2), cols = f.extent(dims - 1);
  // Grey + alpha has 2 planes, RGBA 4: alpha is the last.
  const bool has_alpha = planes == 2 || planes == 4;
  for (std::int64_t x = 0; x < rows; ++x)
    for (std::int64_t y = 0; y < cols; ++y)
      img.at<float>({3, x, y}) = has_alpha ? f.at<float>({planes - 1, x, y}) : 1.0f;
  return inputs;
}

} // namespace

App make_interpolate_app() {
  App app;
  app.name = "interpolate";
  app.description = "multiscale interpolation: 10-level pyramid fills transparent areas (RGBA)";
  app.build = build_interpolate;
  app.default_size = interpolate_size_for_image(2560, 1536);
  app.small_size = interpolate_size_for_image(kMinSide, kMinSide);
  app.manual_schedule = make_manual_schedule_interpolate;
  app.make_inputs = interpolate_inputs;
  app.size_for_image = interpolate_size_for_image;
  app.inputs_from_image = interpolate_image_inputs;
  app.test_sizes = {{513, 517}, {600, 1029}};
  // Every term of every sum is non-negative (and 1 - D(3) is only small where
  // D(3), which dominates the denominator, is near 1), so each stage carries
  // a few ulps of relative error; the synthetic alpha keeps the final
  // denominator well above 0 (outputs stay below about 4), so the quotient's
  // error stays near 1e-6, far below 1e-4.
  app.tolerance = 1e-4;
  return app;
}

Schedule make_manual_schedule_interpolate(const Pipeline& p) {
  // Levels 0-3 hold 99% of the points; fusing deeper would grow the halos
  // (2^l) faster than it saves traffic. Tried (default size, 2 threads):
  // groups of two levels with [1, 32, 256] tiles 2.29 s, [4, 32, 512] 2.45 s;
  // this one 1.57 s; naive 2.19 s (medians on a loaded machine).
  std::vector<std::string> down = {"premultiplied", "premultiplied_constant_exterior",
                                   "downsampled_L0"},
                           up;
  for (int l = 1; l <= 3; ++l) {
    down.push_back("Dx_" + std::to_string(l));
    down.push_back("D_" + std::to_string(l));
  }
  for (int l = 3; l >= 0; --l) {
    up.push_back("Ux_interpolated_L" + std::to_string(l));
    up.push_back("interpolated_L" + std::to_string(l));
  }
  Schedule s;
  s.groups.push_back(fused_group(down, {1, 64, 512}, 2,
                                 "the fine levels 0-3 of the down pyramid fused (scales 1 to "
                                 "8), the image's premultiplication and zero ring inlined; "
                                 "their D_l are read by the up pyramid, so they stay full"));
  s.storage["premultiplied"] = Storage::Inlined;
  s.storage["premultiplied_constant_exterior"] = Storage::Inlined;
  s.groups.push_back(fused_group(
      up, {1, 64, 512}, 2,
      "the fine levels 3-0 of the up pyramid fused; the output stays apart: it reads "
      "interpolated_L0 at channel 3 and at its own c, which no alignment makes constant"));
  add_remaining_stages(p, s, "a coarse level (or the output): small, not fused");
  return s;
}

} // namespace trapeze::apps
