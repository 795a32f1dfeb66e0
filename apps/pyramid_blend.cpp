/// \file
/// Pyramid blending: benchmarks.md section 5 ("Pyramid blending (L = 4
/// levels; 40 stages)").
///
///   R, C (int64)  image rows / cols; the pyramid's coordinates are the spec's,
///                 of the image padded by 31 (top/left) and 29 (bottom/right):
///                 P = R + 60 rows, Q = C + 60 columns, the image at (31, 31)
///   img1, img2    float [3][R][C]: colour images in [0, 1]
///   mask          float [R][C]: 0 above a horizontal seam, 1 below
///   img1_repeat_edge, img2_repeat_edge, mask_repeat_edge: the inputs clamped
///                 to their edges (boundary::repeat_edge) by 31 along x and y,
///                 the spec's padding; G_0 below is the input at (x-31, y-31),
///                 read through them by the first down-sampling only
///   down-sampling, l = 1..3, G_0 = the input (the mask's stages have no c):
///     Dx_l  on [l, P/2^l-2] x [l-1, Q/2^(l-1)-2]:
///           (G(2x-2) + 4G(2x-1) + 6G(2x) + 4G(2x+1) + G(2x+2)) * 0.0625 along rows
///     Dy_l  (= G_l) on [l, P/2^l-2] x [l, Q/2^l-2]: the same taps along columns of Dx_l
///   rows_l = [2^(L-l+1)-1, P/2^l-2^(L-l+1)+2], cols_l likewise with Q,
///   half-cols_l = [2^(L-l)-1, Q/2^(l+1)-2^(L-l)+2] (= cols_{l+1})
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
///   blend (output) on [0,2] x [31,R+30] x [31,C+30] (the image) = Res_0 + column
///           up-sampling of blend_x; its buffer [3][R][C] holds (c, x, y) at (c, x-31, y-31)
///
/// Names: the spec's, with a suffix naming the input where a stage exists per
/// input: Dx_l_img1, Dy_l_img1, Dx_l_img2, Dy_l_img2, Dx_l_mask, Dy_l_mask
/// (l = 1..3), Ux_l_img1, Uy_l_img1, Ux_l_img2, Uy_l_img2 (l = 0..2), Res_0..3,
/// Col_2_x, Col_2, Col_1_x, Col_1, blend_x, blend: 40 stages.
///
/// Interpretation: the default size 2160 x 3840 x 3 is the image, in and out
/// (R = 2160, C = 3840). The spec pads the inputs by hand; here the pipeline
/// takes the images as they are and boundary conditions give the padding's
/// values (the margins are given: the first down-sampling reads 2x - 33, whose
/// reach beyond the image depends on P modulo 2). Every value is the spec's.
/// The collapse's row up-sampling stages take the
/// domain of the Laplacian's (rows_l x half-cols_l). The even/odd formulas are
/// Cases: the even one where `v % 2 == 0` and v is at least the first even
/// point of the domain (all lower bounds are odd, and the extra conjunct tells
/// the bounds check that the odd lower bound never takes the even formula,
/// whose v/2 - 1 would read one row below the producer there); the odd one is
/// the default. The sums are added in the order written; `/` on indices is
/// floor division, C's on these non-negative values.
#include "app.h"

#include "trapeze/boundary.h"
#include "trapeze/dsl.h"
#include "trapeze/error.h"
#include "trapeze/image_io.h"

#include <algorithm>
#include <functional>
#include <string>

namespace trapeze::apps {

namespace {

constexpr int kLevels = 4;
// int, not int64: the shifted indices x - 31 stay int32, as the variables are
// (an int64 shift would make them int32(int64(y) - 31), which the C++
// compiler cannot vectorize as consecutive addresses).
constexpr int kPadBefore = 31, kPadAfter = 29;

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
  Builder()
      : R_("R"), C_("C"), c_("c"), x_("x"), y_("y"), Rp_(R_ + kPadBefore + kPadAfter),
        Cp_(C_ + kPadBefore + kPadAfter) {}

  Pipeline build() {
    Image img1("img1", ScalarType::Float32, {3, R_, C_});
    Image img2("img2", ScalarType::Float32, {3, R_, C_});
    Image mask("mask", ScalarType::Float32, {R_, C_});
    // The spec's padding as boundary conditions: the first down-sampling
    // reads up to 31 points beyond the image (29 below and right).
    const Func edge1 = boundary::repeat_edge(img1, {0, kPadBefore, kPadBefore});
    const Func edge2 = boundary::repeat_edge(img2, {0, kPadBefore, kPadBefore});
    const Func edge_mask = boundary::repeat_edge(mask, {kPadBefore, kPadBefore});

    // Gaussian pyramids: G[0] is the input, G[l] = Dy_l.
    const std::vector<Plane> g1 = gaussian(colour(img1), colour(edge1, kPadBefore), "img1");
    const std::vector<Plane> g2 = gaussian(colour(img2), colour(edge2, kPadBefore), "img2");
    const std::vector<Plane> gm = gaussian(grey(mask), grey(edge_mask, kPadBefore), "mask");

    // Laplacian pyramids: Lap_l = Uy_l for l < 3, Lap_3 = G_3.
    const std::vector<Plane> lap1 = laplacian(g1, "img1");
    const std::vector<Plane> lap2 = laplacian(g2, "img2");

    std::vector<Plane> res;
    for (int l = 0; l < kLevels; ++l) {
      const auto i = static_cast<std::size_t>(l);
      Func f = colour_stage("Res_" + std::to_string(l), level_range(Rp_, l), level_range(Cp_, l));
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
      Func col = colour_stage(name, level_range(Rp_, l), level_range(Cp_, l));
      const Plane& r = res[static_cast<std::size_t>(l)];
      define_by_parity(col, y_, level_lo(l), r.at(x_, y_) + upsample_even(along_y(up), y_),
                       r.at(x_, y_) + upsample_odd(along_y(up), y_));
      out = colour(col);
      blend = col.contents();
    }

    Pipeline p(std::vector<ir::FunctionPtr>{blend}, "pyramid_blend");
    p.set_default("R", std::int64_t{2160});
    p.set_default("C", std::int64_t{3840});
    return p;
  }

private:
  /// A colour stage or image read at channel c, or a grey one: at(x, y).
  struct Plane {
    std::function<Expr(const Expr&, const Expr&)> at;
    bool is_colour = true;
  };

  // The image, or its boundary condition, in the pyramid's coordinates: the
  // spec's padded ones, where the image starts at (31, 31).
  Plane colour(const Image& im) const {
    return {[im, c = c_](const Expr& x, const Expr& y) {
              return im(c, x - kPadBefore, y - kPadBefore);
            },
            true};
  }
  static Plane grey(const Image& im) {
    return {[im](const Expr& x, const Expr& y) { return im(x - kPadBefore, y - kPadBefore); },
            false};
  }
  Plane colour(const Func& f, int shift = 0) const {
    return {[f, c = c_, shift](const Expr& x, const Expr& y) { return f(c, x - shift, y - shift); },
            true};
  }
  static Plane grey(const Func& f, int shift = 0) {
    return {[f, shift](const Expr& x, const Expr& y) { return f(x - shift, y - shift); }, false};
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

  /// G_0 = input, G_l = Dy_l for l = 1..3. The first down-sampling reads
  /// `clamped` (the input's values, and clamp-to-edge beyond it); the
  /// Laplacian and the blend read G_0 only on the image, where the two agree.
  std::vector<Plane> gaussian(const Plane& input, const Plane& clamped,
                              const std::string& suffix) const {
    std::vector<Plane> g = {input};
    for (int l = 1; l < kLevels; ++l) {
      const std::string level = std::to_string(l);
      const Interval rows{l, at_level(Rp_, l) - 2};
      Func dx = stage("Dx_" + level + "_" + suffix, input.is_colour, rows,
                      {l - 1, at_level(Cp_, l - 1) - 2});
      dx.define(downsample(along_x(l == 1 ? clamped : g.back()), x_));
      Func dy =
          stage("Dy_" + level + "_" + suffix, input.is_colour, rows, {l, at_level(Cp_, l) - 2});
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
      Func uy =
          colour_stage("Uy_" + level + "_" + suffix, level_range(Rp_, l), level_range(Cp_, l));
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
    Func f = colour_stage(name, level_range(Rp_, l), level_range(Cp_, l + 1));
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
  Expr Rp_, Cp_; // the spec's padded rows and columns: R + 60, C + 60
};

ParamValues pyramid_blend_size_for_image(std::int64_t rows, std::int64_t cols) {
  // With the 60 points of the boundary condition, every level's domain is
  // non-empty for any image of at least one pixel.
  require_image_size("pyramid_blend", rows, cols, 1, 1);
  return {{"R", rows}, {"C", cols}};
}

/// The seam mask for an image of `rows` rows: 0 in its upper half, 1 in its
/// lower half.
Buffer seam_mask(std::int64_t rows, std::int64_t cols) {
  Buffer out(ScalarType::Float32, {rows, cols});
  for (std::int64_t x = 0; x < rows; ++x)
    std::fill_n(&out.at<float>({x, 0}), cols, x >= rows / 2 ? 1.0f : 0.0f);
  return out;
}

BufferMap pyramid_blend_inputs(const Pipeline& p, const ParamValues& params) {
  SyntheticSpec spec;
  spec.type = ScalarType::Float32;
  spec.extents = input_extents(p, "img1", params);
  spec.lo = 0.0;
  spec.hi = 1.0;
  spec.seed = 5;
  Buffer a = synthetic_image(spec);
  spec.seed = 7;
  Buffer b = synthetic_image(spec);
  return {{"img1", std::move(a)},
          {"img2", std::move(b)},
          {"mask", seam_mask(spec.extents[1], spec.extents[2])}};
}

/// The user's image (colour, grey replicated) as img1, its left-right mirror
/// image as img2, and the seam at mid height.
BufferMap pyramid_blend_image_inputs(const Pipeline& p, const ParamValues& params,
                                     const Buffer& image) {
  const std::vector<std::int64_t> extents = input_extents(p, "img1", params);
  const Buffer f = to_float(image, ScalarType::Float32);
  const int dims = f.dimensions();
  const std::int64_t planes = dims == 3 ? f.extent(0) : 1;
  const std::int64_t rows = f.extent(dims - 2), cols = f.extent(dims - 1);
  if (rows != extents[1] || cols != extents[2])
    throw Error("pyramid_blend: a " + std::to_string(rows) + "x" + std::to_string(cols) +
                " image does not fit R = " + std::to_string(extents[1]) +
                ", C = " + std::to_string(extents[2]) + " (R and C are the image's size)");
  const std::int64_t colour_planes = planes >= 3 ? 3 : 1;
  Buffer img(ScalarType::Float32, {3, rows, cols}), mirrored(ScalarType::Float32, {3, rows, cols});
  for (std::int64_t ch = 0; ch < 3; ++ch)
    for (std::int64_t x = 0; x < rows; ++x)
      for (std::int64_t y = 0; y < cols; ++y) {
        const std::int64_t plane = colour_planes == 3 ? ch : 0;
        img.at<float>({ch, x, y}) = f.data<float>()[(plane * rows + x) * cols + y];
        mirrored.at<float>({ch, x, cols - 1 - y}) = img.at<float>({ch, x, y});
      }
  return {{"img1", std::move(img)}, {"img2", std::move(mirrored)}, {"mask", seam_mask(rows, cols)}};
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
    // Level 1 reads the inputs' boundary conditions: inlined, so that only
    // the rows and columns near the edges clamp their indices.
    const auto with_edge = [&](const std::string& input, std::vector<std::string> stages) {
      if (l == 1) {
        stages.insert(stages.begin(), input + "_repeat_edge");
        s.storage[input + "_repeat_edge"] = Storage::Inlined;
      }
      return stages;
    };
    for (const char* input : {"img1", "img2"})
      s.groups.push_back(
          fused_group(with_edge(input, {"Dx_" + level + "_" + input, "Dy_" + level + "_" + input}),
                      {1, 16, 100000}, 2, rows_reason));
    s.groups.push_back(fused_group(
        with_edge("mask", {"Dx_" + level + "_mask", "Dy_" + level + "_mask"}), {16, 100000}, 2,
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
