/// \file
/// Pyramid blending: benchmarks.md section 5 ("Pyramid blending (L = 4
/// levels; 40 stages)").
///
///   R, C (int64)  padded rows / cols: R = rows + 60, C = cols + 60
///   img1, img2    float [3][R][C]: colour images in [0, 1] padded by 31
///                 (top/left) and 29 (bottom/right) with clamp-to-edge
///   mask          float [R][C]: 0 above a horizontal seam, 1 below
///   down-sampling, l = 1..3, G_0 = the input (the mask's stages have no c):
///     Dx_l  on [l, R/2^l-2] x [l-1, C/2^(l-1)-2]:
///           (G(2x-2) + 4G(2x-1) + 6G(2x) + 4G(2x+1) + G(2x+2)) * 0.0625 along rows
///     Dy_l  (= G_l) on [l, R/2^l-2] x [l, C/2^l-2]: the same taps along columns of Dx_l
///   rows_l = [2^(L-l+1)-1, R/2^l-2^(L-l+1)+2], cols_l likewise with C,
///   half-cols_l = [2^(L-l)-1, C/2^(l+1)-2^(L-l)+2] (= cols_{l+1})
///   Laplacian, l = 0..2, per image (Lap_l = Uy_l, Lap_3 = G_3):
///     Ux_l  on rows_l x half-cols_l: row up-sampling of G_{l+1}:
///           x even: (G(x/2-1) + 6G(x/2) + G(x/2+1)) * 0.125
///           x odd:  (4G((x-1)/2) + 4G((x+1)/2)) * 0.125
///     Uy_l  on rows_l x cols_l: G_l - (the same along columns of Ux_l)
///   Res_l, l = 0..3, on rows_l x cols_l: Lap1_l * M_l + Lap2_l * (1 - M_l),
///           M_0 = mask, M_l = Dy_l of the mask
///   collapse, Out_3 = Res_3: for l = 2, 1: Col_l_x on rows_l x half-cols_l =
///           row up-sampling of Out_{l+1}; Col_l on rows_l x cols_l = Res_l +
///           column up-sampling of Col_l_x (= Out_l); for l = 0: blend_x, then
///   blend (output) on [0,2] x [31,R-30] x [31,C-30] = Res_0 + column up-sampling of blend_x
///
/// Names: the spec's, with a suffix naming the input where a stage exists per
/// input: Dx_l_img1, Dy_l_img1, Dx_l_img2, Dy_l_img2, Dx_l_mask, Dy_l_mask
/// (l = 1..3), Ux_l_img1, Uy_l_img1, Ux_l_img2, Uy_l_img2 (l = 0..2), Res_0..3,
/// Col_2_x, Col_2, Col_1_x, Col_1, blend_x, blend: 40 stages.
///
/// Interpretation: the default size 2160 x 3840 x 3 is the output (the image),
/// so R = 2220, C = 3900. The collapse's row up-sampling stages take the
/// domain of the Laplacian's (rows_l x half-cols_l). The even/odd formulas are
/// Cases: the even one where `v % 2 == 0` and v is at least the first even
/// point of the domain (all lower bounds are odd, and the extra conjunct tells
/// the bounds check that the odd lower bound never takes the even formula,
/// whose v/2 - 1 would read one row below the producer there); the odd one is
/// the default. The sums are added in the order written; `/` on indices is
/// floor division, C's on these non-negative values.
#include "app.h"

#include "trapeze/dsl.h"
#include "trapeze/error.h"
#include "trapeze/image_io.h"

#include <algorithm>
#include <functional>
#include <string>

namespace trapeze::apps {

namespace {

constexpr int kLevels = 4;
constexpr std::int64_t kPadBefore = 31, kPadAfter = 29;

/// N / 2^l (floor division; N itself at level 0).
Expr at_level(const Expr& n, int l) { return l == 0 ? n : n / (1 << l); }

/// The lower bound of rows_l, cols_l (and, at l + 1, of half-cols_l): odd.
int level_lo(int l) { return (1 << (kLevels - l + 1)) - 1; }

/// rows_l (N = R) or cols_l (N = C): [2^(L-l+1) - 1, N/2^l - 2^(L-l+1) + 2].
/// half-cols_l is level_range(C, l + 1).
Interval level_range(const Expr& n, int l) {
  const int m = 1 << (kLevels - l + 1);
  return {level_lo(l), at_level(n, l) - (m - 2)};
}

/// A stage read along one dimension at an index, the other index fixed.
using Line = std::function<Expr(const Expr&)>;

/// (G(v/2-1) + 6G(v/2) + G(v/2+1)) * 0.125: up-sampling at an even v.
Expr upsample_even(const Line& g, const Expr& v) {
  return (g(v / 2 - 1) + 6.0f * g(v / 2) + g(v / 2 + 1)) * 0.125f;
}
/// (4G((v-1)/2) + 4G((v+1)/2)) * 0.125: up-sampling at an odd v.
Expr upsample_odd(const Line& g, const Expr& v) {
  return (4.0f * g((v - 1) / 2) + 4.0f * g((v + 1) / 2)) * 0.125f;
}

class Builder {
public:
  Builder() : R_("R"), C_("C"), c_("c"), x_("x"), y_("y") {}

  Pipeline build() {
    Image img1("img1", ScalarType::Float32, {3, R_, C_});
    Image img2("img2", ScalarType::Float32, {3, R_, C_});
    Image mask("mask", ScalarType::Float32, {R_, C_});

    // Gaussian pyramids: G[0] is the input, G[l] = Dy_l.
    const std::vector<Plane> g1 = gaussian(colour(img1), "img1");
    const std::vector<Plane> g2 = gaussian(colour(img2), "img2");
    const std::vector<Plane> gm = gaussian(grey(mask), "mask");

    // Laplacian pyramids: Lap_l = Uy_l for l < 3, Lap_3 = G_3.
    const std::vector<Plane> lap1 = laplacian(g1, "img1");
    const std::vector<Plane> lap2 = laplacian(g2, "img2");

    std::vector<Plane> res;
    for (int l = 0; l < kLevels; ++l) {
      const auto i = static_cast<std::size_t>(l);
      Func f = colour_stage("Res_" + std::to_string(l), level_range(R_, l), level_range(C_, l));
      const Plane& m = gm[i];
      f.define(lap1[i].at(x_, y_) * m.at(x_, y_) + lap2[i].at(x_, y_) * (1.0f - m.at(x_, y_)));
      res.push_back(colour(f));
    }

    // Collapse: Out_3 = Res_3, Out_l = Res_l + up-sampled Out_{l+1}.
    Plane out = res.back();
    ir::FunctionPtr blend;
    for (int l = kLevels - 2; l >= 0; --l) {
      const std::string name = l == 0 ? "blend" : "Col_" + std::to_string(l);
      const Func up_rows = upsample_rows(name + "_x", out, l);
      const Plane up = colour(up_rows);
      Func col = colour_stage(name, level_range(R_, l), level_range(C_, l));
      const Plane& r = res[static_cast<std::size_t>(l)];
      define_by_parity(col, y_, level_lo(l), r.at(x_, y_) + upsample_even(along_y(up), y_),
                       r.at(x_, y_) + upsample_odd(along_y(up), y_));
      out = colour(col);
      blend = col.contents();
    }

    Pipeline p(std::vector<ir::FunctionPtr>{blend}, "pyramid_blend");
    p.set_default("R", std::int64_t{2160} + kPadBefore + kPadAfter);
    p.set_default("C", std::int64_t{3840} + kPadBefore + kPadAfter);
    return p;
  }

private:
  /// A colour stage or image read at channel c, or a grey one: at(x, y).
  struct Plane {
    std::function<Expr(const Expr&, const Expr&)> at;
    bool is_colour = true;
  };

  Plane colour(const Image& im) const {
    return {[im, c = c_](const Expr& x, const Expr& y) { return im(c, x, y); }, true};
  }
  Plane colour(const Func& f) const {
    return {[f, c = c_](const Expr& x, const Expr& y) { return f(c, x, y); }, true};
  }
  static Plane grey(const Image& im) {
    return {[im](const Expr& x, const Expr& y) { return im(x, y); }, false};
  }
  static Plane grey(const Func& f) {
    return {[f](const Expr& x, const Expr& y) { return f(x, y); }, false};
  }

  Func colour_stage(const std::string& name, const Interval& rows, const Interval& cols) const {
    return Func(name, ScalarType::Float32, {c_, x_, y_}, {{0, 2}, rows, cols});
  }
  Func stage(const std::string& name, bool is_colour, const Interval& rows,
             const Interval& cols) const {
    if (is_colour) return colour_stage(name, rows, cols);
    return Func(name, ScalarType::Float32, {x_, y_}, {rows, cols});
  }
  Plane plane(const Func& f, bool is_colour) const { return is_colour ? colour(f) : grey(f); }

  /// p along x (down a column, y fixed) and along y (along a row, x fixed).
  Line along_x(const Plane& p) const {
    return [p, y = Expr(y_)](const Expr& x) { return p.at(x, y); };
  }
  Line along_y(const Plane& p) const {
    return [p, x = Expr(x_)](const Expr& y) { return p.at(x, y); };
  }

  /// (G(2v-2) + 4G(2v-1) + 6G(2v) + 4G(2v+1) + G(2v+2)) * 0.0625 along one line.
  static Expr downsample(const Line& g, const Expr& v) {
    return (g(2 * v - 2) + 4.0f * g(2 * v - 1) + 6.0f * g(2 * v) + 4.0f * g(2 * v + 1) +
            g(2 * v + 2)) *
           0.0625f;
  }

  /// G_0 = input, G_l = Dy_l for l = 1..3.
  std::vector<Plane> gaussian(const Plane& input, const std::string& suffix) const {
    std::vector<Plane> g = {input};
    for (int l = 1; l < kLevels; ++l) {
      const std::string level = std::to_string(l);
      const Interval rows{l, at_level(R_, l) - 2};
      Func dx = stage("Dx_" + level + "_" + suffix, input.is_colour, rows,
                      {l - 1, at_level(C_, l - 1) - 2});
      dx.define(downsample(along_x(g.back()), x_));
      Func dy =
          stage("Dy_" + level + "_" + suffix, input.is_colour, rows, {l, at_level(C_, l) - 2});
      dy.define(downsample(along_y(plane(dx, input.is_colour)), y_));
      g.push_back(plane(dy, input.is_colour));
    }
    return g;
  }

  /// Uy_l for l = 0..2, then G_3.
  std::vector<Plane> laplacian(const std::vector<Plane>& g, const std::string& suffix) const {
    std::vector<Plane> lap;
    for (int l = 0; l + 1 < kLevels; ++l) {
      const std::string level = std::to_string(l);
      const Func ux =
          upsample_rows("Ux_" + level + "_" + suffix, g[static_cast<std::size_t>(l + 1)], l);
      Func uy = colour_stage("Uy_" + level + "_" + suffix, level_range(R_, l), level_range(C_, l));
      const Plane& gl = g[static_cast<std::size_t>(l)];
      const Plane up = colour(ux);
      define_by_parity(uy, y_, level_lo(l), gl.at(x_, y_) - upsample_even(along_y(up), y_),
                       gl.at(x_, y_) - upsample_odd(along_y(up), y_));
      lap.push_back(colour(uy));
    }
    lap.push_back(g.back());
    return lap;
  }

  /// A stage on rows_l x half-cols_l: the row up-sampling of `coarse`.
  Func upsample_rows(const std::string& name, const Plane& coarse, int l) const {
    Func f = colour_stage(name, level_range(R_, l), level_range(C_, l + 1));
    define_by_parity(f, x_, level_lo(l), upsample_even(along_x(coarse), x_),
                     upsample_odd(along_x(coarse), x_));
    return f;
  }

  /// `even` where v is even, `odd` elsewhere; `lo` is the domain's (odd)
  /// lower bound in v, so the even case starts at lo + 1.
  static void define_by_parity(Func& f, const Var& v, int lo, const Expr& even, const Expr& odd) {
    f.define({Case(v >= lo + 1 && v % 2 == 0, even)}, odd);
  }

  Param R_, C_;
  Var c_, x_, y_;
};

ParamValues pyramid_blend_size_for_image(std::int64_t rows, std::int64_t cols) {
  // With the 60 pixels of padding, every level's domain is non-empty for any
  // image of at least one pixel.
  require_image_size("pyramid_blend", rows, cols, 1, 1);
  return {{"R", rows + kPadBefore + kPadAfter}, {"C", cols + kPadBefore + kPadAfter}};
}

/// `planes` ([3][rows][cols] float) padded with clamp-to-edge into [3][R][C].
Buffer pad_colour(const Buffer& planes, std::int64_t R, std::int64_t C) {
  const std::int64_t rows = planes.extent(1), cols = planes.extent(2);
  Buffer out(ScalarType::Float32, {3, R, C});
  for (std::int64_t ch = 0; ch < 3; ++ch)
    for (std::int64_t x = 0; x < R; ++x)
      for (std::int64_t y = 0; y < C; ++y)
        out.at<float>({ch, x, y}) =
            planes.at<float>({ch, std::clamp<std::int64_t>(x - kPadBefore, 0, rows - 1),
                              std::clamp<std::int64_t>(y - kPadBefore, 0, cols - 1)});
  return out;
}

/// The seam mask for an image of `rows` rows: 0 in its upper half, 1 in its
/// lower half (the padding continues the nearest image row).
Buffer seam_mask(std::int64_t R, std::int64_t C) {
  const std::int64_t rows = R - kPadBefore - kPadAfter;
  Buffer out(ScalarType::Float32, {R, C});
  for (std::int64_t x = 0; x < R; ++x) {
    const bool below = x - kPadBefore >= rows / 2;
    std::fill_n(&out.at<float>({x, 0}), C, below ? 1.0f : 0.0f);
  }
  return out;
}

BufferMap pyramid_blend_inputs(const Pipeline& p, const ParamValues& params) {
  const std::vector<std::int64_t> extents = input_extents(p, "img1", params);
  const std::int64_t R = extents[1], C = extents[2];
  SyntheticSpec spec;
  spec.type = ScalarType::Float32;
  spec.extents = {3, R - kPadBefore - kPadAfter, C - kPadBefore - kPadAfter};
  spec.lo = 0.0;
  spec.hi = 1.0;
  spec.seed = 5;
  const Buffer a = synthetic_image(spec);
  spec.seed = 7;
  const Buffer b = synthetic_image(spec);
  return {{"img1", pad_colour(a, R, C)}, {"img2", pad_colour(b, R, C)}, {"mask", seam_mask(R, C)}};
}

/// The user's image (colour, grey replicated) as img1, its left-right mirror
/// image as img2, and the seam at mid height.
BufferMap pyramid_blend_image_inputs(const Pipeline& p, const ParamValues& params,
                                     const Buffer& image) {
  const std::vector<std::int64_t> extents = input_extents(p, "img1", params);
  const std::int64_t R = extents[1], C = extents[2];
  const Buffer f = to_float(image, ScalarType::Float32);
  const int dims = f.dimensions();
  const std::int64_t planes = dims == 3 ? f.extent(0) : 1;
  const std::int64_t rows = f.extent(dims - 2), cols = f.extent(dims - 1);
  if (rows + kPadBefore + kPadAfter != R || cols + kPadBefore + kPadAfter != C)
    throw Error("pyramid_blend: a " + std::to_string(rows) + "x" + std::to_string(cols) +
                " image does not fit R = " + std::to_string(R) + ", C = " + std::to_string(C) +
                " (R and C are the image's size plus 60)");
  const std::int64_t colour_planes = planes >= 3 ? 3 : 1;
  Buffer img(ScalarType::Float32, {3, rows, cols}), mirrored(ScalarType::Float32, {3, rows, cols});
  for (std::int64_t ch = 0; ch < 3; ++ch)
    for (std::int64_t x = 0; x < rows; ++x)
      for (std::int64_t y = 0; y < cols; ++y) {
        const std::int64_t plane = colour_planes == 3 ? ch : 0;
        img.at<float>({ch, x, y}) = f.data<float>()[(plane * rows + x) * cols + y];
        mirrored.at<float>({ch, x, cols - 1 - y}) = img.at<float>({ch, x, y});
      }
  return {{"img1", pad_colour(img, R, C)},
          {"img2", pad_colour(mirrored, R, C)},
          {"mask", seam_mask(R, C)}};
}

} // namespace

App make_pyramid_blend_app() {
  App app;
  app.name = "pyramid_blend";
  app.description = "pyramid blending: 4-level Laplacian pyramids of two images, seam mask";
  app.build = [] { return Builder().build(); };
  app.default_size = pyramid_blend_size_for_image(2160, 3840);
  app.small_size = pyramid_blend_size_for_image(64, 80);
  app.manual_schedule = make_manual_schedule_pyramid_blend;
  app.make_inputs = pyramid_blend_inputs;
  app.size_for_image = pyramid_blend_size_for_image;
  app.inputs_from_image = pyramid_blend_image_inputs;
  app.test_sizes = {{37, 61}, {1, 1}, {8, 9}, {200, 300}};
  // Sums of a few float products with weights summing to 1 per pass: values
  // stay within a few units of [0, 1], and each stage adds a few ulps.
  app.tolerance = 1e-4;
  return app;
}

Schedule make_manual_schedule_pyramid_blend(const Pipeline& p) {
  // Tried (default size, 2 threads, ms): all 40 stages in one group, tiles
  // [1, 64, 512]: 135 (naive 142): the coarse levels' halos are recomputed
  // per tile and the group's scratchpads spill L2. Per-level groups of whole
  // rows, below: 69, with tiles of 8 / 32 rows within 5%.
  Schedule s;
  const std::string rows_reason =
      "a down-sampling step fused: the column pass reads the row pass at its own rows, so "
      "tiles of 16 whole rows of one channel recompute nothing and keep the row pass in a "
      "scratchpad of 16 x C/2^(l-1) floats (250 KiB at level 1, in L2); channels and row tiles "
      "in parallel";
  for (int l = 1; l < kLevels; ++l) {
    const std::string level = std::to_string(l);
    for (const char* input : {"img1", "img2"})
      s.groups.push_back(fused_group({"Dx_" + level + "_" + input, "Dy_" + level + "_" + input},
                                     {1, 16, 100000}, 2, rows_reason));
    s.groups.push_back(
        fused_group({"Dx_" + level + "_mask", "Dy_" + level + "_mask"}, {16, 100000}, 2,
                    "the mask's down-sampling step fused, tiles of 16 whole rows in parallel"));
  }
  s.groups.push_back(fused_group({"Res_3"}, {}, 2,
                                 "the coarsest level's blend: 1/64 of the pixels, not worth a "
                                 "scratchpad in the level-2 group"));
  for (int l = kLevels - 2; l >= 0; --l) {
    const std::string level = std::to_string(l);
    const std::string out = l == 0 ? "blend" : "Col_" + level;
    const std::string uy1 = "Uy_" + level + "_img1", uy2 = "Uy_" + level + "_img2",
                      res = "Res_" + level;
    s.groups.push_back(fused_group(
        {"Ux_" + level + "_img1", uy1, "Ux_" + level + "_img2", uy2, res, out + "_x", out},
        {1, 16, 100000}, 2,
        "one collapse level: both Laplacians, their blend and the up-sampling of the coarser "
        "result fused; the column passes read the row passes at their own rows, so tiles of 16 "
        "whole rows of one channel recompute nothing and keep the row passes in scratchpads of "
        "16 x C/2^(l+1) floats; the Laplacians and the blend inlined into their one reader; "
        "channels and row tiles in parallel"));
    for (const std::string& stage : {uy1, uy2, res})
      s.storage[stage] = Storage::Inlined;
  }
  add_remaining_stages(p, s, "not fused");
  return s;
}

} // namespace trapeze::apps
